"""Runs every .tdsl program of the repository that runs on the CPU (under
examples/ and test/, but not the error tests) on both targets with
`tdslc run --target=cpu,cuda --compare --gpu-bitcode`, the GPU side in the
emulating test double of libcuda that TDSL_CUDA_LIBRARY names, and fails
unless every comparison says "outputs agree" (rtol 1e-4, atol 1e-6) or,
for a program that prints only words, that they agree.

Each program runs in a scratch copy of its folder (what it saves must not
land in the source tree). A program whose text says `compare_all: skip`
(with the reason) is left out, e.g. a million GPU launches that the
emulator would take minutes over.

usage: compare_all.py TDSLC SOURCE_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile

tdslc, root = sys.argv[1], sys.argv[2]
programs = []
for top in ("examples", "test"):
    for d, _, files in os.walk(os.path.join(root, top)):
        if "errors" in d.split(os.sep) or "Output" in d.split(os.sep):
            continue
        programs += [os.path.join(d, f) for f in files if f.endswith(".tdsl")]
programs = [p for p in programs if "compare_all: skip" not in open(p).read()]


def scratch_copy(folder):
    """A temporary folder holding the files (not subfolders) of `folder`."""
    tmp = tempfile.mkdtemp(prefix="compare_all.")
    for f in os.listdir(folder):
        if os.path.isfile(os.path.join(folder, f)):
            shutil.copy(os.path.join(folder, f), tmp)
    return tmp


agree, failed = 0, []
for p in sorted(programs):
    name = os.path.basename(p)
    d = scratch_copy(os.path.dirname(p))
    cpu = subprocess.run([tdslc, "run", name], cwd=d, capture_output=True, timeout=120)
    if cpu.returncode != 0:
        shutil.rmtree(d)
        continue  # an error test, or one that needs arguments or files
    both = subprocess.run([tdslc, "run", "--target=cpu,cuda", "--compare", "--gpu-bitcode", name],
                          cwd=d, capture_output=True, text=True, timeout=300)
    shutil.rmtree(d)
    # Programs that print only words (true/false) have no numbers to agree.
    if "outputs agree" in both.stdout or "its printed words agree" in both.stdout:
        agree += 1
    else:
        failed.append(os.path.relpath(p, root))
        print("== %s\n%s%s" % (os.path.relpath(p, root), both.stdout[-2000:], both.stderr[-2000:]))
print("%d programs agree, %d do not" % (agree, len(failed)))
sys.exit(1 if failed else 0)
