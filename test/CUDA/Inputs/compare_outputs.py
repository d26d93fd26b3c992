"""Compares the printed output of a program run on the CPU and on the GPU.

usage: compare_outputs.py CPU.out GPU.out [--rtol R] [--atol A]
                          [--loose-after N --loose-rtol R2]

Both outputs must have the same lines, and the same text between numbers.
Numbers are compared one by one:
  - exactly when both are printed as integers (counts, indices, shapes,
    pi's hit count: the random numbers are bit-identical across back ends,
    and integer-valued f32 results such as matmul's are exact);
  - otherwise as floats, |cpu - gpu| <= atol + rtol * max(|cpu|, |gpu|),
    default rtol 1e-4 and atol 1e-6 (the atol is for values that are 0 up
    to rounding, such as softmax's max |p - nn.softmax(x)|); nan must match
    nan and inf the same inf.
Lines after the first N compare floats within rtol R2 instead (--loose-after
N --loose-rtol R2): training over many steps, where rounding in a different
order moves a max-pooling choice now and then and the runs drift apart.
"""
import argparse
import math
import re
import sys

NUM = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan)")
INT = re.compile(r"[-+]?\d+$")


def split(line):
    """(text skeleton with numbers replaced by '#', [number tokens])."""
    toks = []

    def repl(m):
        toks.append(m.group(0))
        return "#"
    return NUM.sub(repl, line), toks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cpu")
    ap.add_argument("gpu")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-6)
    ap.add_argument("--loose-after", type=int, default=None)
    ap.add_argument("--loose-rtol", type=float, default=None)
    a = ap.parse_args()
    if (a.loose_after is None) != (a.loose_rtol is None):
        ap.error("--loose-after and --loose-rtol go together")
    cpu = open(a.cpu).read().splitlines()
    gpu = open(a.gpu).read().splitlines()
    errors = []
    if len(cpu) != len(gpu):
        errors.append("%d lines on the CPU, %d on the GPU" % (len(cpu), len(gpu)))
    worst = 0.0
    count = 0
    for n, (lc, lg) in enumerate(zip(cpu, gpu), 1):
        sc, tc = split(lc)
        sg, tg = split(lg)
        if sc != sg or len(tc) != len(tg):
            errors.append("line %d differs in its text:\n  cpu: %s\n  gpu: %s" % (n, lc, lg))
            continue
        for x, y in zip(tc, tg):
            count += 1
            if INT.match(x) and INT.match(y):
                if int(x) != int(y):
                    errors.append("line %d: integers %s (cpu) != %s (gpu): %s" % (n, x, y, lc))
                continue
            fx, fy = float(x), float(y)
            if math.isnan(fx) or math.isnan(fy) or math.isinf(fx) or math.isinf(fy):
                if not (math.isnan(fx) and math.isnan(fy)) and fx != fy:
                    errors.append("line %d: %s (cpu) vs %s (gpu)" % (n, x, y))
                continue
            diff = abs(fx - fy)
            rtol = a.rtol
            if a.loose_after is not None and n > a.loose_after:
                rtol = a.loose_rtol
            bound = a.atol + rtol * max(abs(fx), abs(fy))
            if diff > bound:
                errors.append("line %d: %s (cpu) vs %s (gpu): |diff| %.3g > %.3g (rtol %g, atol %g)"
                              % (n, x, y, diff, bound, rtol, a.atol))
            worst = max(worst, diff / bound)
    for e in errors[:20]:
        print("compare_outputs.py: " + e)
    if len(errors) > 20:
        print("compare_outputs.py: ... and %d more differences" % (len(errors) - 20))
    if errors:
        sys.exit(1)
    loose = ""
    if a.loose_after is not None:
        loose = " (rtol %g after line %d)" % (a.loose_rtol, a.loose_after)
    print("outputs match: %d lines, %d numbers, worst |diff| / tolerance %.3g%s"
          % (len(cpu), count, worst, loose))


if __name__ == "__main__":
    main()
