"""Runs a command, copies its stdout and stderr to stdout, and succeeds only
if it exited with status 1 (the documented status for user errors; a crash
or a 0 fails the test). usage: exit1.py CMD ARGS..."""
import subprocess
import sys

p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(p.stdout.decode(errors="replace"))
if p.returncode != 1:
    sys.stdout.write("exit1.py: expected exit status 1, got %d\n" % p.returncode)
    sys.exit(1)
