"""Runs a command, copies its stdout and stderr to stdout, and succeeds only
if it exited with exactly status CODE (a crash, a signal or another status
fails the test).

usage: expect_exit.py CODE CMD ARGS...
"""
import subprocess
import sys

code = int(sys.argv[1])
p = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(p.stdout.decode(errors="replace"))
if p.returncode != code:
    sys.stdout.write("expect_exit.py: expected exit status %d, got %d\n" % (code, p.returncode))
    sys.exit(1)
