"""Assembles every kernel of a `tdslc --emit=ptx` output with ptxas.

usage: ptxas_check.py ARCH FILE.ptx [KERNEL...]

`--emit=ptx` writes one complete PTX module per kernel, each under a
`// kernel <name>` line. This splits them, checks that each module's
`.target` is ARCH and that it has a `.visible .entry <name>`, and runs
`ptxas -arch=ARCH` on each (ptxas needs -arch to match .target). Any ptxas
error (or a nonzero exit) fails; warnings are printed. With KERNEL names,
the set of kernels must be exactly those. ptxas is $PTXAS, else the one on
PATH, else $CUDA_HOME/bin/ptxas, else /usr/local/cuda/bin/ptxas.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def find_ptxas():
    for cand in (os.environ.get("PTXAS"), shutil.which("ptxas"),
                 os.path.join(os.environ.get("CUDA_HOME", "/nonexistent"), "bin", "ptxas"),
                 "/usr/local/cuda/bin/ptxas"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    sys.exit("ptxas_check.py: no ptxas found")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    arch, path, expected = sys.argv[1], sys.argv[2], sys.argv[3:]
    text = open(path).read()
    parts = re.split(r"^// kernel (\S+)\n", text, flags=re.M)
    if parts[0].strip():
        sys.exit("ptxas_check.py: text before the first '// kernel' line: %r" % parts[0][:200])
    kernels = list(zip(parts[1::2], parts[2::2]))
    if not kernels:
        sys.exit("ptxas_check.py: no '// kernel <name>' module in %s" % path)
    names = [n for n, _ in kernels]
    if len(set(names)) != len(names):
        sys.exit("ptxas_check.py: duplicate kernel names %r" % names)
    if expected and sorted(names) != sorted(expected):
        sys.exit("ptxas_check.py: kernels %r, expected %r" % (names, expected))
    ptxas = find_ptxas()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, ptx in kernels:
            target = re.search(r"^\.target\s+(\S+?)\s*$", ptx, flags=re.M)
            if not target or target.group(1).split(",")[0] != arch:
                print("FAIL %s: .target is %r, expected %s" %
                      (name, target and target.group(1), arch))
                failed = True
                continue
            if not re.search(r"^\.visible \.entry %s\(" % re.escape(name), ptx, flags=re.M):
                print("FAIL %s: no '.visible .entry %s(' in its module" % (name, name))
                failed = True
            src = os.path.join(tmp, name + ".ptx")
            with open(src, "w") as f:
                f.write(ptx)
            p = subprocess.run([ptxas, "-arch=" + arch, src, "-o", os.path.join(tmp, name + ".cubin")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            out = p.stdout.decode(errors="replace").strip()
            if p.returncode != 0 or re.search(r"\berror\b", out, flags=re.I):
                print("FAIL %s: ptxas -arch=%s exited %d:\n%s" % (name, arch, p.returncode, out))
                failed = True
            else:
                print("ok %s (ptxas -arch=%s)%s" % (name, arch, ("\n" + out) if out else ""))
    if failed:
        sys.exit(1)
    print("%d kernel(s) assembled for %s" % (len(kernels), arch))


if __name__ == "__main__":
    main()
