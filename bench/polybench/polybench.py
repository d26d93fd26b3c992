"""PolyBench/C 4.2.1 kernels for bench/suite.py: where each kernel's C
source is, which arrays its TDSL port reads (PolyBench's init_array,
transcribed to numpy: the same integer arithmetic, then the same double
division) and which arrays it dumps, and the dataset sizes from its header.

PolyBench's C sources are not part of this repository: they are read from a
directory (set_source_dir) that holds a checkout of REPO at COMMIT, which
fetch() clones when it has none. Nothing here reads that directory at import
time.
"""
import os
import re
import shutil
import subprocess

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATASETS = ["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"]
REPO = "https://github.com/MatthiasJReisinger/PolyBenchC-4.2.1"
COMMIT = "3e872547cef7e5c9909422ef1e6af03cf4e56072"

_source_dir = None


def set_source_dir(path):
    """The folder of PolyBench/C's sources (a checkout of REPO)."""
    global _source_dir
    _source_dir = os.path.abspath(path)


def source_dir():
    if _source_dir is None:
        raise RuntimeError("polybench.set_source_dir() was not called: "
                           "where are PolyBench/C's sources?")
    return _source_dir


def how_to_provide(path):
    return ("git clone %s %s && git -C %s checkout %s, then pass "
            "--polybench-src %s (or set POLYBENCH_SRC)" % (REPO, path, path, COMMIT, path))


def _grid(*shape):
    return np.meshgrid(*[np.arange(n, dtype=np.int64) for n in shape],
                       indexing="ij")


def _div(num, den):
    """(DATA_TYPE) num / den: num converted to double, then divided."""
    return num.astype(np.float64) / np.float64(den)


def init_gemm(s):
    ni, nj, nk = s["NI"], s["NJ"], s["NK"]
    i, j = _grid(ni, nj)
    C = _div((i * j + 1) % ni, ni)
    i, j = _grid(ni, nk)
    A = _div(i * (j + 1) % nk, nk)
    i, j = _grid(nk, nj)
    B = _div(i * (j + 2) % nj, nj)
    return dict(C=C, A=A, B=B)


def init_2mm(s):
    ni, nj, nk, nl = s["NI"], s["NJ"], s["NK"], s["NL"]
    i, j = _grid(ni, nk)
    A = _div((i * j + 1) % ni, ni)
    i, j = _grid(nk, nj)
    B = _div(i * (j + 1) % nj, nj)
    i, j = _grid(nj, nl)
    C = _div((i * (j + 3) + 1) % nl, nl)
    i, j = _grid(ni, nl)
    D = _div(i * (j + 2) % nk, nk)
    return dict(A=A, B=B, C=C, D=D)


def init_3mm(s):
    ni, nj, nk, nl, nm = s["NI"], s["NJ"], s["NK"], s["NL"], s["NM"]
    i, j = _grid(ni, nk)
    A = _div((i * j + 1) % ni, 5 * ni)
    i, j = _grid(nk, nj)
    B = _div((i * (j + 1) + 2) % nj, 5 * nj)
    i, j = _grid(nj, nm)
    C = _div(i * (j + 3) % nl, 5 * nl)
    i, j = _grid(nm, nl)
    D = _div((i * (j + 2) + 2) % nk, 5 * nk)
    return dict(A=A, B=B, C=C, D=D)


def init_atax(s):
    m, n = s["M"], s["N"]
    fn = np.float64(n)
    x = 1 + np.arange(n, dtype=np.float64) / fn
    i, j = _grid(m, n)
    A = _div((i + j) % n, 5 * m)
    return dict(A=A, x=x)


def init_bicg(s):
    m, n = s["M"], s["N"]
    p = _div(np.arange(m) % m, m)
    r = _div(np.arange(n) % n, n)
    i, j = _grid(n, m)
    A = _div(i * (j + 1) % n, n)
    return dict(A=A, p=p, r=r)


def init_gesummv(s):
    n = s["N"]
    x = _div(np.arange(n) % n, n)
    i, j = _grid(n, n)
    return dict(A=_div((i * j + 1) % n, n), B=_div((i * j + 2) % n, n), x=x)


def init_gemver(s):
    n = s["N"]
    fn = np.float64(n)
    i1 = np.arange(n, dtype=np.float64) + 1
    i, j = _grid(n, n)
    return dict(A=_div(i * j % n, n), u1=np.arange(n, dtype=np.float64),
                u2=(i1 / fn) / 2.0, v1=(i1 / fn) / 4.0, v2=(i1 / fn) / 6.0,
                y=(i1 / fn) / 8.0, z=(i1 / fn) / 9.0)


def init_mvt(s):
    n = s["N"]
    k = np.arange(n)
    i, j = _grid(n, n)
    return dict(x1=_div(k % n, n), x2=_div((k + 1) % n, n),
                y_1=_div((k + 3) % n, n), y_2=_div((k + 4) % n, n),
                A=_div(i * j % n, n))


def init_syrk(s):
    n, m = s["N"], s["M"]
    i, j = _grid(n, m)
    A = _div((i * j + 1) % n, n)
    i, j = _grid(n, n)
    C = _div((i * j + 2) % m, m)
    return dict(A=A, C=C)


def init_doitgen(s):
    nr, nq, np_ = s["NR"], s["NQ"], s["NP"]
    i, j, k = _grid(nr, nq, np_)
    A = _div((i * j + k) % np_, np_)
    i, j = _grid(np_, np_)
    return dict(A=A, C4=_div(i * j % np_, np_))


def init_jacobi_1d(s):
    n = s["N"]
    i = np.arange(n, dtype=np.float64)
    return dict(A=(i + 2) / n, B=(i + 3) / n)


def init_jacobi_2d(s):
    n = s["N"]
    i, j = _grid(n, n)
    i = i.astype(np.float64)
    return dict(A=(i * (j + 2) + 2) / n, B=(i * (j + 3) + 3) / n)


def init_heat_3d(s):
    n = s["N"]
    i, j, k = _grid(n, n, n)
    A = (i + j + (n - k)).astype(np.float64) * 10 / n
    return dict(A=A, B=A.copy())


def init_fdtd_2d(s):
    tmax, nx, ny = s["TMAX"], s["NX"], s["NY"]
    i, j = _grid(nx, ny)
    i = i.astype(np.float64)
    return {"_fict_": np.arange(tmax, dtype=np.float64),
            "ex": i * (j + 1) / nx, "ey": i * (j + 2) / ny,
            "hz": i * (j + 3) / nx}


def init_floyd_warshall(s):
    n = s["N"]
    i, j = _grid(n, n)
    path = (i * j % 7 + 1).astype(np.int32)
    far = ((i + j) % 13 == 0) | ((i + j) % 7 == 0) | ((i + j) % 11 == 0)
    path[far] = 999
    return dict(path=path)


def init_covariance(s):
    m, n = s["M"], s["N"]
    i, j = _grid(n, m)
    return dict(data=i.astype(np.float64) * j / m)


def init_correlation(s):
    m, n = s["M"], s["N"]
    i, j = _grid(n, m)
    return dict(data=i.astype(np.float64) * j / m + i)


# name: (source folder, init, the arrays the C version dumps)
KERNELS = {
    "gemm": ("linear-algebra/blas/gemm", init_gemm, ["C"]),
    "2mm": ("linear-algebra/kernels/2mm", init_2mm, ["D"]),
    "3mm": ("linear-algebra/kernels/3mm", init_3mm, ["G"]),
    "atax": ("linear-algebra/kernels/atax", init_atax, ["y"]),
    "bicg": ("linear-algebra/kernels/bicg", init_bicg, ["s", "q"]),
    "gesummv": ("linear-algebra/blas/gesummv", init_gesummv, ["y"]),
    "gemver": ("linear-algebra/blas/gemver", init_gemver, ["w"]),
    "mvt": ("linear-algebra/kernels/mvt", init_mvt, ["x1", "x2"]),
    "syrk": ("linear-algebra/blas/syrk", init_syrk, ["C"]),
    "doitgen": ("linear-algebra/kernels/doitgen", init_doitgen, ["A"]),
    "covariance": ("datamining/covariance", init_covariance, ["cov"]),
    "correlation": ("datamining/correlation", init_correlation, ["corr"]),
    "jacobi-1d": ("stencils/jacobi-1d", init_jacobi_1d, ["A"]),
    "jacobi-2d": ("stencils/jacobi-2d", init_jacobi_2d, ["A"]),
    "heat-3d": ("stencils/heat-3d", init_heat_3d, ["A"]),
    "fdtd-2d": ("stencils/fdtd-2d", init_fdtd_2d, ["ex", "ey", "hz"]),
    "floyd-warshall": ("medley/floyd-warshall", init_floyd_warshall, ["path"]),
}


def utilities():
    """The folder of polybench.c and polybench.h."""
    return os.path.join(source_dir(), "utilities")


def source(name):
    folder = KERNELS[name][0]
    return os.path.join(source_dir(), folder, os.path.basename(folder) + ".c")


def header(name):
    return source(name)[:-2] + ".h"


def needed_files():
    """Every file of the source folder that the suite reads."""
    files = [os.path.join(utilities(), "polybench.c"),
             os.path.join(utilities(), "polybench.h")]
    for k in KERNELS:
        files += [source(k), header(k)]
    return files


def missing_files():
    return [f for f in needed_files() if not os.path.isfile(f)]


def checkout_commit():
    """The commit the source folder has checked out, when it is a git
    checkout of its own; None otherwise."""
    d = source_dir()
    if not os.path.exists(os.path.join(d, ".git")):
        return None
    try:
        p = subprocess.run(["git", "-C", d, "rev-parse", "HEAD"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def _git(argv, log):
    log("polybench: %s" % " ".join(argv))
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0")
    try:
        p = subprocess.run(argv, capture_output=True, text=True, env=env,
                           timeout=600)
    except (OSError, subprocess.SubprocessError) as e:
        return str(e)
    if p.returncode:
        lines = (p.stderr or p.stdout).strip().splitlines()
        return "exit status %d%s" % (p.returncode, (": " + lines[-1]) if lines else "")
    return None


def fetch(log=print):
    """Makes sure the source folder holds PolyBench/C: when it is missing or
    empty, clones REPO into it and checks out COMMIT (into a sibling folder
    first, moved into place only when both worked). Returns None when the
    sources are there, else why they are not."""
    d = source_dir()
    if not missing_files():
        return None
    if os.path.isdir(d) and os.listdir(d):
        missing = missing_files()
        return ("%s is not empty but lacks %d of PolyBench/C's files (%s%s); "
                "not cloning into it" % (d, len(missing), missing[0],
                                         ", ..." if len(missing) > 1 else ""))
    tmp = d.rstrip(os.sep) + ".clone-tmp"
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    os.makedirs(os.path.dirname(tmp) or ".", exist_ok=True)
    err = _git(["git", "clone", "--quiet", REPO, tmp], log)
    if err:
        why = "git clone %s failed (%s)" % (REPO, err)
    else:
        err = _git(["git", "-C", tmp, "checkout", "--quiet", COMMIT], log)
        why = "git checkout %s failed (%s)" % (COMMIT, err) if err else None
    if why:
        if os.path.exists(tmp):
            shutil.rmtree(tmp)
        return why
    if os.path.isdir(d):
        os.rmdir(d)  # empty, checked above
    os.rename(tmp, d)
    missing = missing_files()
    if missing:
        return "the checkout of %s at %s lacks %s" % (REPO, COMMIT, missing[0])
    return None


def port(name):
    return os.path.join(HERE, "tdsl", name + ".tdsl")


def sizes(name, dataset):
    """The #defines of the dataset's block in the kernel's header."""
    text = open(header(name)).read()
    m = re.search(r"#\s*ifdef\s+%s_DATASET\s*\n(.*?)#\s*endif" % dataset,
                  text, re.S)
    if not m:
        raise ValueError("%s: no %s_DATASET in %s" % (name, dataset, header(name)))
    return {k: int(v) for k, v in
            re.findall(r"#\s*define\s+(\w+)\s+(\d+)", m.group(1))}


def init(name, dataset):
    return KERNELS[name][1](sizes(name, dataset))


def parse_dump(text):
    """The arrays of a POLYBENCH_DUMP_ARRAYS run's standard error."""
    out = {}
    for m in re.finditer(r"begin dump: (\S+)(.*?)end   dump: \1", text, re.S):
        out[m.group(1)] = np.array(m.group(2).split(), dtype=np.float64)
    return out
