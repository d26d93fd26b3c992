#!/usr/bin/env python3
"""Deterministic mutation fuzzing of tdslc: the front end must never crash.

Usage: mutate.py TDSLC N SEED INPUT.tdsl...

Makes N mutants of the given valid programs (tokens deleted, duplicated,
swapped or replaced, text truncated, punctuation inserted), runs
`TDSLC <mutant> --emit=tdsl` on each, and fails if any exit code is not 0 or 1
or if the output shows an assertion, a crash report or a signal. Failing
mutants are written next to the temporary files and listed.
"""
import os
import random
import re
import subprocess
import sys
import tempfile

TOKEN_RE = re.compile(r'\s+|//[^\n]*|"[^"\n]*"|[A-Za-z_][A-Za-z0-9_]*|'
                      r'[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|'
                      r'\.\.|->|==|!=|<=|>=|&&|\|\||.', re.S)
PUNCT = list("()[]{},:;.?=+-*/%@<>!&|\"") + ["..", "->", "==", "&&", "||",
                                              "\n", " 0 ", " 1.5 ", " x ",
                                              " fn ", " for ", " parallel ",
                                              " yield ", " return ", " sum(k) ",
                                              " f32[", " ? ", " import ",
                                              "\u00e9", "\t", "99999999999999999999999"]
BAD = ("Assertion", "PLEASE submit a bug report", "Stack dump",
       "Segmentation fault", "UNREACHABLE", "LLVM ERROR")


def tokens(text):
    return TOKEN_RE.findall(text)


def mutate(rng, toks):
    toks = list(toks)
    n = rng.randint(1, 3)
    for _ in range(n):
        if not toks:
            break
        op = rng.randrange(7)
        i = rng.randrange(len(toks))
        if op == 0:
            del toks[i]
        elif op == 1:
            toks.insert(i, toks[i])
        elif op == 2:
            j = rng.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
        elif op == 3:
            toks[i] = rng.choice(PUNCT)
        elif op == 4:
            toks.insert(i, rng.choice(PUNCT))
        elif op == 5:
            toks = toks[:i]
        else:
            # Replace a token with another token of the same program.
            toks[i] = rng.choice(toks)
    return "".join(toks)


def main():
    tdslc, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    sources = []
    for path in sys.argv[4:]:
        with open(path, encoding="utf-8") as f:
            sources.append((os.path.basename(path), tokens(f.read())))
    rng = random.Random(seed)
    workdir = tempfile.mkdtemp(prefix="tdsl-fuzz-")
    failures = []
    codes = {}
    for k in range(count):
        name, toks = sources[k % len(sources)]
        text = mutate(rng, toks)
        path = os.path.join(workdir, "m%04d-%s" % (k, name))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            p = subprocess.run([tdslc, path, "--emit=tdsl", "-o", os.devnull],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=20)
        except subprocess.TimeoutExpired:
            failures.append((path, "timeout"))
            continue
        err = p.stderr.decode("utf-8", "replace")
        codes[p.returncode] = codes.get(p.returncode, 0) + 1
        why = None
        if p.returncode not in (0, 1):
            why = "exit code %d" % p.returncode
        else:
            for b in BAD:
                if b in err:
                    why = "stderr contains %r" % b
                    break
        if why is None and p.returncode == 1 and "error" not in err:
            why = "exit code 1 without an error message"
        if why:
            failures.append((path, why))
        else:
            os.remove(path)
    print("mutants: %d, exit codes: %s" % (count, dict(sorted(codes.items()))))
    for path, why in failures:
        print("FAIL: %s: %s" % (path, why))
    if failures:
        print("%d of %d mutants crashed tdslc" % (len(failures), count))
        return 1
    os.rmdir(workdir)
    print("no crashes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
