#!/usr/bin/env python3
"""Checks that every ```tdsl block of a Markdown file appears verbatim in a test.

Usage: check_doc_examples.py DOC.md TEST_DIR

A block is the text between a line that is exactly ```tdsl and the next line
that is exactly ```. It must occur, byte for byte (including its final
newline), in at least one *.tdsl file directly inside TEST_DIR. Exits with
status 1 and names each missing block (with its line in DOC.md) otherwise, so
that the reference and the tests cannot drift apart.
"""
import os
import sys


def blocks(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```tdsl":
            start = i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            if j == len(lines):
                sys.exit(f"{path}:{i + 1}: unterminated ```tdsl block")
            out.append((i + 1, "\n".join(lines[start:j]) + "\n"))
            i = j
        i += 1
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    doc, test_dir = sys.argv[1], sys.argv[2]
    tests = {}
    for name in sorted(os.listdir(test_dir)):
        if name.endswith(".tdsl"):
            with open(os.path.join(test_dir, name), encoding="utf-8") as f:
                tests[name] = f.read()
    found = blocks(doc)
    if not found:
        sys.exit(f"{doc}: no ```tdsl blocks found")
    missing = 0
    for line, text in found:
        owners = [n for n, body in tests.items() if text in body]
        if owners:
            print(f"{doc}:{line}: ok ({owners[0]})")
        else:
            missing += 1
            first = text.split("\n", 1)[0]
            print(f"{doc}:{line}: error: ```tdsl block starting with "
                  f"'{first}' does not appear verbatim in any test in {test_dir}")
    print(f"{len(found) - missing} of {len(found)} examples found in tests")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
