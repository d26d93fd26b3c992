#!/usr/bin/env python3
"""Usage: exit-code.py CODE COMMAND ARGS...

Runs COMMAND (found on PATH) with its output discarded and fails unless it
exits with exactly CODE. lit's internal shell has no `$?`, so tests use this
to tell "exit 1" from a crash or any other non-zero status.
"""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL).returncode
if got != want:
    print("%s: exit code %d, expected %d" % (sys.argv[2], got, want))
    sys.exit(1)
