#!/usr/bin/python3
"""Differential fuzzer for tdslc: random well-typed TDSL programs, evaluated
by a reference interpreter while they are generated, run in several
configurations (JIT -O0/-O2 with 1 and 2 threads, AOT, the CUDA emulator,
ptxas); every disagreement is a finding, reduced on the program tree.

  scripts/difffuzz.py [--seed N] [--count N] [--time SECONDS]
      [--configs cpu-O0,cpu-O2-t1,cpu-O2-t2,aot,cuda-emu,ptxas]
      [--tdslc PATH] [--out DIR] [--jobs N] [--keep] [--self-test]

Needs numpy: run it with /usr/bin/python3. See docs/testing.md.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from difffuzz.cli import main  # noqa: E402

if __name__ == '__main__':
    sys.exit(main())
