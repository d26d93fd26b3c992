"""Checks the examples' printed results (and the test-only variants' saved
.npy files) against references computed independently with numpy.

usage: check.py EXAMPLE DIR

DIR holds one `<label>.out` per run of examples/EXAMPLE.tdsl, with labels

  exe-t1, exe-t2        the executable (tdslc -o, default -O2), --threads=1/2
  run-O0                tdslc run -O0
  run-O3-t1, run-O3-t2  tdslc run -O3, --threads=1/2

and one subdirectory per run of Inputs/EXAMPLE_save.tdsl (save-O0,
save-O3-t1, save-O3-t2) with the .npy files it wrote.

The references below are re-implementations of what each example's comment
says it computes; none of them reads tdslc output.

Tolerances (f32 = IEEE single, eps = 2^-23 ~ 1.2e-7):
  * Printed floats have 6 significant digits (printf "%g"). A printed value
    whose reference is exactly representable (a small integer, an exact
    f32) must equal '%g' % reference as a string. Otherwise the printed
    value must be within rtol of the reference, where rtol = 5e-6 (the
    rounding to 6 digits) + the computation's own tolerance (per example).
  * Integers (counts, argmax, shapes) are compared exactly.
  * Runs with --threads=1 and --threads=2 of the same build must print the
    same text and save bit-identical .npy files: parallel reductions use a
    fixed split into 256 chunks, so thread count cannot change the result.
  * Runs at different optimization levels (-O0 / -O2 / -O3) may sum in a
    different order: their printed values must agree within the same
    tolerance as against the reference (exactly for integers).
"""
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import philox  # noqa: E402

FMT_RTOL = 5e-6  # relative rounding of printf("%g"): half a unit in the 6th digit

RUN_LABELS = ["exe-t1", "exe-t2", "run-O0", "run-O3-t1", "run-O3-t2"]
THREAD_PAIRS = [("exe-t1", "exe-t2"), ("run-O3-t1", "run-O3-t2")]
SAVE_LABELS = ["save-O0", "save-O3-t1", "save-O3-t2"]
SAVE_THREAD_PAIRS = [("save-O3-t1", "save-O3-t2")]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def ok(msg):
    print("ok: " + msg)


# ----------------------------------------------------------------- parsing --

def parse_run(text, prefixes):
    """Maps each expected line prefix to the list of number strings after it
    (tensors are flattened: brackets and commas dropped)."""
    lines = text.splitlines()
    if len(lines) != len(prefixes):
        raise ValueError("expected %d lines, got %d:\n%s" % (len(prefixes), len(lines), text))
    out = {}
    for line, prefix in zip(lines, prefixes):
        if not line.startswith(prefix):
            raise ValueError("line %r does not start with %r" % (line, prefix))
        rest = line[len(prefix):]
        out[prefix] = [t for t in re.split(r"[\s,\[\]]+", rest) if t]
    return out


def load_runs(d, prefixes):
    runs = {}
    for label in RUN_LABELS:
        path = os.path.join(d, label + ".out")
        with open(path) as f:
            text = f.read()
        runs[label] = (text, parse_run(text, prefixes))
    return runs


# ------------------------------------------------------------- comparisons --

def g(x):
    return "%g" % x


def check_exact_printed(runs, prefix, refs, what):
    """Every run prints exactly '%g' % ref for each value (refs exact)."""
    want = [g(r) if isinstance(r, float) else str(r) for r in refs]
    for label, (_, parsed) in runs.items():
        got = parsed[prefix]
        if got != want:
            fail("%s [%s]: printed %s, reference %s (exact)" % (what, label, got, want))
            return
    ok("%s: %s in all runs (exact)" % (what, " ".join(want)))


def check_close_printed(runs, prefix, refs, rtol, atol, what):
    """Every run is within rtol/atol of the reference, and of every other run."""
    refs = np.asarray(refs, dtype=np.float64)
    vals = {}
    for label, (_, parsed) in runs.items():
        got = np.array([float(t) for t in parsed[prefix]])
        vals[label] = got
        if got.shape != refs.shape:
            fail("%s [%s]: %d values, reference has %d" % (what, label, got.size, refs.size))
            return
        err = np.abs(got - refs)
        bad = err > rtol * np.abs(refs) + atol
        if bad.any():
            k = int(np.argmax(bad))
            fail("%s [%s]: value %d printed %r, reference %.9g (rtol %g, atol %g)"
                 % (what, label, k, got[k], refs[k], rtol, atol))
            return
    base = vals["exe-t1"]
    for label, got in vals.items():
        if np.any(np.abs(got - base) > 2 * (rtol * np.abs(refs) + atol)):
            fail("%s: run %s disagrees with exe-t1: %s vs %s" % (what, label, got, base))
            return
    ok("%s: %d value(s) within rtol %g atol %g of numpy in all runs"
       % (what, refs.size, rtol, atol))


def check_thread_identity(runs):
    for a, b in THREAD_PAIRS:
        if runs[a][0] != runs[b][0]:
            fail("output of %s differs from %s:\n%s---\n%s" % (a, b, runs[a][0], runs[b][0]))
        else:
            ok("%s and %s print identical text" % (a, b))


def load_saves(d, names):
    saves = {}
    for label in SAVE_LABELS:
        saves[label] = {n: np.load(os.path.join(d, label, n + ".npy")) for n in names}
    for a, b in SAVE_THREAD_PAIRS:
        for n in names:
            x, y = saves[a][n], saves[b][n]
            if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
                fail("%s.npy differs between %s and %s (must be bit-identical)" % (n, a, b))
                break
        else:
            ok("saved arrays bit-identical between %s and %s" % (a, b))
    return saves


def check_array(saves, name, ref, what, exact=False, rtol=0.0, atol=0.0, dtype=None):
    """Saved array `name` of every run equals `ref` (exact) or is within
    rtol/atol of it; its dtype must be `dtype` (default: ref's dtype)."""
    ref = np.asarray(ref)
    dtype = np.dtype(dtype or ref.dtype)
    for label, arrs in saves.items():
        got = arrs[name]
        if got.shape != ref.shape or got.dtype != dtype:
            fail("%s [%s]: %s %s, expected %s %s" % (what, label, got.dtype, got.shape,
                                                     dtype, ref.shape))
            continue
        if exact:
            bad = got != ref
        else:
            bad = ~(np.abs(got.astype(np.float64) - ref) <= rtol * np.abs(ref) + atol)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            fail("%s [%s]: %d element(s) differ, first at %s: %r vs reference %r (%s)"
                 % (what, label, int(bad.sum()), idx, got[idx], ref[idx],
                    "exact" if exact else "rtol %g atol %g" % (rtol, atol)))
        else:
            continue
    if not any(f.startswith(what + " [") for f in failures):
        ok("%s: %s %s matches numpy in all saved runs (%s)"
           % (what, dtype, ref.shape, "exact" if exact else "rtol %g atol %g" % (rtol, atol)))


# ----------------------------------------------------------------- examples --

def check_saxpy(d):
    # z[i] = 2 * x[i] + y[i] with x = 0..1023, y = 1: small integers, exact in
    # f32, and every partial sum of z is an integer below 2^24: all exact.
    x = np.arange(1024, dtype=np.float32)
    z = np.float32(2.0) * x + np.float32(1.0)
    total = float(np.sum(z.astype(np.float64)))
    P = ["saxpy checksum: ", "z[0], z[1], z[1023]: "]
    runs = load_runs(d, P)
    check_thread_identity(runs)
    check_exact_printed(runs, P[0], [total], "saxpy checksum")
    check_exact_printed(runs, P[1], [float(z[0]), float(z[1]), float(z[1023])], "z[0], z[1], z[1023]")
    saves = load_saves(d, ["z"])
    check_array(saves, "z", z, "saxpy z", exact=True)


def matmul_inputs():
    i = np.arange(256)[:, None]
    k = np.arange(256)[None, :]
    A = ((i + 2 * k) % 7).astype(np.float32)
    kk = np.arange(256)[:, None]
    j = np.arange(256)[None, :]
    B = ((3 * kk + j) % 5).astype(np.float32)
    return A, B


def check_matmul(d):
    A, B = matmul_inputs()
    # Integer product in int64: exact. Every entry is <= 6*4*256 < 2^24, and
    # so is every partial sum of a dot product, so f32 C is exact too.
    C = (A.astype(np.int64) @ B.astype(np.int64))
    Cf = C.astype(np.float32)
    # The checksum (~1e8 > 2^24) is an f32 sum of 65536 values. sum(t) over a
    # tensor accumulates serially in f32 (only 'parallel for ... reduce' is
    # split into 256 chunks), and with integer terms the rounding is biased:
    # the serial sum is 100664520 vs the exact 100659721 (rel. 4.8e-5). The
    # worst-case bound (n - 1) * 2^-24 = 3.9e-3 is useless; allow rtol 2e-4
    # (plus the 5e-6 of printing). C itself is checked exactly below.
    total = float(C.sum())
    P = ["matmul checksum: ", "C[0, 0], C[255, 255]: ", "max |C - A @ B|: "]
    runs = load_runs(d, P)
    check_thread_identity(runs)
    check_close_printed(runs, P[0], [total], 2e-4 + FMT_RTOL, 0.0, "matmul checksum")
    check_exact_printed(runs, P[1], [float(C[0, 0]), float(C[255, 255])], "C[0, 0], C[255, 255]")
    check_exact_printed(runs, P[2], [0.0], "max |C - A @ B|")
    saves = load_saves(d, ["A", "B", "C", "AB"])
    check_array(saves, "A", A, "matmul A", exact=True)
    check_array(saves, "B", B, "matmul B", exact=True)
    check_array(saves, "C", Cf, "matmul C (index notation)", exact=True)
    check_array(saves, "AB", Cf, "matmul A @ B", exact=True)


def softmax_ref():
    k = np.arange(40, dtype=np.uint64)
    x = (np.float32(3.0) * philox.normal_f32(7, k)).reshape(4, 10)
    # Reference softmax in float64 from the (float32) logits.
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return x, p


def check_softmax(d):
    x, p = softmax_ref()
    # Logits: numpy's float32 log/cos may differ from the C library's by a few
    # ulp (measured: 2 ulp). |x| < 16, where an ulp is <= 9.5e-7: allow
    # 4 ulp, i.e. rtol 5e-7 + atol 4e-6.
    # Probabilities: an absolute error dx <= 4e-6 in the logits changes p
    # relatively by <= 2 dx = 8e-6, plus a few f32 roundings in exp, sum and
    # divide: rtol 2e-5 (measured 3.5e-7); atol 1e-9 for the tiny entries.
    X_RTOL, X_ATOL = 5e-7, 4e-6
    P_RTOL, P_ATOL = 2e-5, 1e-9
    P = ["probabilities: ", "row sums: ", "most likely class per row: ",
         "max |p - nn.softmax(x)|: "]
    runs = load_runs(d, P)
    check_thread_identity(runs)
    check_close_printed(runs, P[0], p.ravel(), P_RTOL + FMT_RTOL, P_ATOL, "probabilities")
    # Row sums of f32 probabilities: 1 within 10 f32 roundings (1e-6), printed %g.
    check_close_printed(runs, P[1], [1.0] * 4, 1e-6 + FMT_RTOL, 0.0, "row sums")
    check_exact_printed(runs, P[2], [int(v) for v in p.argmax(axis=1)], "argmax per row")
    # Two f32 softmax formulations differ by a few ulp of values <= 1.
    check_close_printed(runs, P[3], [0.0], 0.0, 1e-6, "max |p - nn.softmax(x)|")
    saves = load_saves(d, ["x", "p", "pnn", "argmax"])
    check_array(saves, "x", x, "softmax logits 3*normal(f32[4,10], 7)", rtol=X_RTOL, atol=X_ATOL)
    check_array(saves, "p", p, "softmax_rows(x)", rtol=P_RTOL, atol=P_ATOL,
                dtype=np.float32)
    check_array(saves, "pnn", p, "nn.softmax(x)", rtol=P_RTOL, atol=P_ATOL,
                dtype=np.float32)
    check_array(saves, "argmax", p.argmax(axis=1).astype(np.int64), "nn.argmax", exact=True)


def blur_ref():
    y = np.arange(64)[:, None]
    x = np.arange(48)[None, :]
    img = ((y // 8 + x // 8) % 2 == 1).astype(np.float32)
    pad = np.pad(img.astype(np.float64), 1, mode="edge")  # clamped indices
    acc = sum(pad[dy:dy + 64, dx:dx + 48] for dy in range(3) for dx in range(3))
    return img, acc


def check_blur(d):
    img, acc = blur_ref()
    # acc is a sum of 9 values in {0, 1}: an exact small integer in f32, and
    # acc / 9.0 is one correctly rounded f32 division, so each pixel must be
    # bit-exact (no fast-math reciprocal is allowed to change it).
    out = (acc.astype(np.float32) / np.float32(9.0)).astype(np.float32)
    P = ["image checksum: ", "blurred checksum: ", "out[0, 0], out[4, 4], out[8, 8]: "]
    runs = load_runs(d, P)
    check_thread_identity(runs)
    check_exact_printed(runs, P[0], [float(img.sum())], "image checksum")
    # f32 sum of 3072 values k/9 (inexact): rtol 1e-5.
    check_close_printed(runs, P[1], [float(acc.sum() / 9.0)], 1e-5 + FMT_RTOL, 0.0, "blurred checksum")
    check_close_printed(runs, P[2], [out[0, 0], out[4, 4], out[8, 8]], FMT_RTOL, 0.0,
                        "out[0, 0], out[4, 4], out[8, 8]")
    saves = load_saves(d, ["img", "out"])
    check_array(saves, "img", img, "blur image", exact=True)
    check_array(saves, "out", out, "blur3x3(img)", exact=True)


def conv2d_ref():
    y = np.arange(32)[:, None]
    x = np.arange(32)[None, :]
    img = ((x + 2 * y) % 16).astype(np.int64)
    k = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=np.int64)
    out = np.zeros((30, 30), dtype=np.int64)
    for dy in range(3):
        for dx in range(3):
            out += k[dy, dx] * img[dy:dy + 30, dx:dx + 30]
    return img, out


def check_conv2d(d):
    img, out = conv2d_ref()
    # Integer image and kernel: every product, output and partial sum is a
    # small integer (|sum| < 2^24), so f32 results are exact.
    P = ["output shape: ", "conv2d checksum: ", "out[0, 0]: "]
    runs = load_runs(d, P)
    check_thread_identity(runs)
    check_exact_printed(runs, P[0], [30, 30], "output shape")
    check_exact_printed(runs, P[1], [float(out.sum())], "conv2d checksum")
    check_exact_printed(runs, P[2], [float(out[0, 0])], "out[0, 0]")
    saves = load_saves(d, ["img", "out"])
    check_array(saves, "img", img.astype(np.float32), "conv2d image", exact=True)
    check_array(saves, "out", out.astype(np.float32), "conv3x3(img, laplacian)", exact=True)


def check_pi(d):
    philox.self_check()
    ok("philox4x32_10 known-answer vectors (Random123)")
    n, seed = 1000000, 2024
    i = np.arange(n, dtype=np.uint64)
    x = philox.uniform_f32(seed, 2 * i)
    y = philox.uniform_f32(seed, 2 * i + 1)
    # x*x + y*y < 1 in f32 with separate roundings, as the DSL writes it.
    inside = (x * x + y * y) < np.float32(1.0)
    hits = int(np.count_nonzero(inside))
    P = ["hits: ", "pi is about "]
    runs = load_runs(d, P)
    check_thread_identity(runs)
    # The hit count is an integer: exact. Uniforms are bit-exact by spec.
    check_exact_printed(runs, P[0], [hits], "hits")
    # 4.0 * f64(hits) / f64(n) in f64, printed with %g: exact string.
    check_exact_printed(runs, P[1], [4.0 * float(hits) / float(n)], "pi estimate")
    m = 4096
    saves = load_saves(d, ["x", "y", "inside", "u"])
    check_array(saves, "x", x[:m], "uniform(2024, 2i)", exact=True)
    check_array(saves, "y", y[:m], "uniform(2024, 2i + 1)", exact=True)
    check_array(saves, "inside", inside[:m].astype(np.int64), "hit flags", exact=True)
    check_array(saves, "u", philox.uniform_f32(seed, np.arange(m, dtype=np.uint64)),
                "uniform(f32[4096], 2024)", exact=True)


CHECKS = {
    "saxpy": check_saxpy,
    "matmul": check_matmul,
    "softmax": check_softmax,
    "blur": check_blur,
    "conv2d": check_conv2d,
    "pi": check_pi,
}


def main():
    name, d = sys.argv[1], sys.argv[2]
    try:
        CHECKS[name](d)
    except Exception as e:  # a missing or malformed output is a failure too
        fail("%s: %s: %s" % (name, type(e).__name__, e))
    if failures:
        print("%s: %d check(s) FAILED" % (name, len(failures)))
        return 1
    print("%s: all checks passed" % name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
