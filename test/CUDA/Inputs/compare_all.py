"""Runs every .tdsl program of the repository that runs on the CPU (under
examples/ and test/, but not the error tests) on both targets with
`tdslc run --target=cpu,cuda --compare --gpu-bitcode`, the GPU side in the
emulating test double of libcuda that TDSL_CUDA_LIBRARY names, and fails
unless every comparison says "outputs agree" (rtol 1e-4, atol 1e-6).

usage: compare_all.py TDSLC SOURCE_ROOT
"""
import os
import subprocess
import sys

tdslc, root = sys.argv[1], sys.argv[2]
programs = []
for top in ("examples", "test"):
    for d, _, files in os.walk(os.path.join(root, top)):
        if "errors" in d.split(os.sep) or "Output" in d.split(os.sep):
            continue
        programs += [os.path.join(d, f) for f in files if f.endswith(".tdsl")]
agree, failed = 0, []
for p in sorted(programs):
    d, name = os.path.split(p)
    cpu = subprocess.run([tdslc, "run", name], cwd=d, capture_output=True, timeout=120)
    if cpu.returncode != 0:
        continue  # an error test, or one that needs arguments or files
    both = subprocess.run([tdslc, "run", "--target=cpu,cuda", "--compare", "--gpu-bitcode", name],
                          cwd=d, capture_output=True, text=True, timeout=300)
    if "outputs agree" in both.stdout:
        agree += 1
    else:
        failed.append(os.path.relpath(p, root))
        print("== %s\n%s%s" % (os.path.relpath(p, root), both.stdout[-2000:], both.stderr[-2000:]))
print("%d programs agree, %d do not" % (agree, len(failed)))
sys.exit(1 if failed else 0)
