"""leaks.test: builds programs with tdslc and runs the executables under
valgrind memcheck; fails on definite leaks or memory errors.

usage: leaks.py WORKDIR EXAMPLES_DIR INPUTS_DIR

* Without valgrind the check is skipped (exit 0) with a clear note.
* Executables are built for the host CPU. valgrind (3.19 in Debian 12) cannot
  decode AVX-512 instructions: such a run dies with SIGILL after
  "Unrecognised instruction". That run is reported as skipped, not passed
  (its leak report would be meaningless); if every program hits that
  limitation, a WARNING says so. -O0 code mostly avoids AVX-512, so the -O0
  builds are the ones that get checked on AVX-512 machines.
"""
import os
import re
import shutil
import subprocess
import sys

work, examples, inputs = sys.argv[1:4]

if shutil.which("valgrind") is None:
    print("valgrind not installed: leak check skipped")
    sys.exit(0)

sys.path.insert(0, inputs)
import npy_io  # noqa: E402

# (name, source, opt level, run directory needs load_save inputs)
PROGRAMS = [
    ("saxpy-O0", os.path.join(examples, "saxpy.tdsl"), "-O0", False),
    ("pi-O0", os.path.join(examples, "pi.tdsl"), "-O0", False),
    ("softmax-O0", os.path.join(examples, "softmax.tdsl"), "-O0", False),
    ("load_save-O0", os.path.join(inputs, "load_save.tdsl"), "-O0", True),
    ("saxpy-O2", os.path.join(examples, "saxpy.tdsl"), "-O2", False),
    ("matmul-O2", os.path.join(examples, "matmul.tdsl"), "-O2", False),
]

checked, skipped, failed = [], [], []
os.makedirs(work, exist_ok=True)
for name, src, opt, needs_inputs in PROGRAMS:
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    exe = os.path.join(d, name + ".exe")
    subprocess.run(["tdslc", opt, src, "-o", exe], check=True)
    if needs_inputs:
        npy_io.make(d)
    log = os.path.join(d, "valgrind.log")
    p = subprocess.run(["valgrind", "--leak-check=full", "--error-exitcode=3",
                        "--errors-for-leak-kinds=definite", "--log-file=" + log,
                        exe, "--threads=2"], cwd=d, stdout=subprocess.DEVNULL)
    with open(log) as f:
        text = f.read()
    if "Unrecognised instruction" in text:
        skipped.append(name)
        print("%s: SKIPPED: valgrind cannot decode an instruction of this CPU's "
              "code (AVX-512?); see %s" % (name, log))
        continue
    lost = re.search(r"definitely lost: ([\d,]+) bytes", text)
    lost = int(lost.group(1).replace(",", "")) if lost else 0
    if p.returncode != 0 or lost:
        failed.append(name)
        print("%s: FAIL: exit %d, definitely lost %d bytes; valgrind says:\n%s"
              % (name, p.returncode, lost, text))
    else:
        checked.append(name)
        print("%s: ok (no definite leaks, no memcheck errors)" % name)

print("checked %d, skipped %d, failed %d" % (len(checked), len(skipped), len(failed)))
if failed:
    sys.exit(1)
if not checked:
    print("WARNING: valgrind could not run any of the programs on this CPU: "
          "leak check effectively skipped")
