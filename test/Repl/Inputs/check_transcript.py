#!/usr/bin/env python3
"""Checks a tdsl-repl run against a transcript in the docs.

Usage: check_transcript.py DOC INPUTS OUTPUT
DOC holds the transcript in the ```text block after the line
`<!-- transcript: NAME -->`, NAME being INPUTS' file name. Checks that the
transcript's inputs (after `tdsl> ` and `  ... `) are the lines of INPUTS,
and that every line of OUTPUT that starts with `epoch ` is a line of the
transcript. Prints one line per check.
"""
import os
import sys

doc, inputs, output = sys.argv[1:4]
name = os.path.basename(inputs)
text = open(doc).read().splitlines()
try:
    start = text.index("<!-- transcript: %s -->" % name)
except ValueError:
    sys.exit("no transcript of %s in %s" % (name, doc))
fence = text.index("```text", start) + 1
block = text[fence:text.index("```", fence)]

typed = [l[6:] for l in block if l.startswith("tdsl> ") or l.startswith("  ... ")]
wanted = open(inputs).read().splitlines()
if typed != wanted:
    for i, (a, b) in enumerate(zip(typed, wanted)):
        if a != b:
            sys.exit("input %d differs:\n  transcript: %s\n  inputs:     %s" % (i + 1, a, b))
    sys.exit("the transcript has %d input lines, the inputs %d" % (len(typed), len(wanted)))
print("transcript inputs: %d lines, as in %s" % (len(typed), name))

epochs = [l for l in open(output).read().splitlines() if l.startswith("epoch ")]
missing = [l for l in epochs if l not in block]
if not epochs or missing:
    sys.exit("epoch lines not in the transcript: %s" % (missing or "(none run)"))
print("%d epoch lines, each as in the transcript" % len(epochs))
