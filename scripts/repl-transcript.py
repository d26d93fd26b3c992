#!/usr/bin/env python3
"""Runs a file of tdsl-repl inputs and prints the session as a terminal shows
it: each input after the prompt `tdsl> ` (continuation lines after `  ... `),
then what it printed. docs/repl.md's transcripts are made with it.

Usage: scripts/repl-transcript.py INPUTS [--repl build/bin/tdsl-repl]
The inputs run in the current directory.
"""
import argparse
import os
import subprocess
import sys

MARK = "@@transcript-mark@@"


def depth(text):
    """Open brackets of `text`, strings and // comments skipped (as the REPL)."""
    d, i, in_str = 0, 0, False
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c in "\"\n":
                in_str = False
        elif c == '"':
            in_str = True
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
        elif c in "([{":
            d += 1
        elif c in ")]}":
            d -= 1
        i += 1
    return d


def inputs(lines):
    pending = []
    for line in lines:
        pending.append(line)
        if depth("\n".join(pending)) <= 0:
            yield pending
            pending = []
    if pending:
        yield pending


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs")
    ap.add_argument("--repl", default=os.path.join(root, "build", "bin", "tdsl-repl"))
    a = ap.parse_args()
    with open(a.inputs) as f:
        lines = f.read().splitlines()
    p = subprocess.Popen([a.repl], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, bufsize=1)
    out = []
    for group in inputs(lines):
        out.append("tdsl> " + group[0])
        out.extend("  ... " + g for g in group[1:])
        p.stdin.write("\n".join(group) + "\n" + 'print("%s")\n' % MARK)
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit("tdsl-repl ended early")
            if line.rstrip("\n") == MARK:
                break
            out.append(line.rstrip("\n"))
    p.stdin.close()
    p.wait()
    out.append("tdsl>")
    print("\n".join(out))


if __name__ == "__main__":
    main()
