#!/usr/bin/env python3
"""Latency of tdsl-repl on top of large live values (issue 13): the time from
writing an input line to its printed value, with 100 MB of bound tensors,
200 other values and a trained model in the session, against the same
inputs in a session with a few small values.

Not a test: it prints medians and spreads. Usage:
  bench/repl_latency.py [--repl build/bin/tdsl-repl] [--reps 7] [--mb 100]
"""
import argparse
import os
import queue
import statistics
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class Repl:
    def __init__(self, exe):
        self.p = subprocess.Popen([exe], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True,
                                  bufsize=1, cwd=ROOT)
        self.q = queue.Queue()
        threading.Thread(target=lambda: [self.q.put(ln) for ln in self.p.stdout],
                         daemon=True).start()
        self.ask("1 + 2", "i64 = 3")

    def ask(self, line, expect=None, timeout=600):
        """Sends one input; returns the seconds until its first output line
        (or, with expect=None, until the marker printed after it)."""
        t0 = time.perf_counter()
        self.p.stdin.write(line + "\n")
        if expect is None:
            self.p.stdin.write('print("__done__")\n')
        self.p.stdin.flush()
        while True:
            got = self.q.get(timeout=timeout)
            if expect is None and got.startswith("__done__"):
                return time.perf_counter() - t0
            if expect is not None:
                if not got.startswith(expect):
                    raise RuntimeError("%r printed %r" % (line, got))
                return time.perf_counter() - t0

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


# (label, input, the start of its printed value)
SMALL = [("1 + 2", "1 + 2", "i64 = 3"),
         ("sum(ones(f32[1000]))", "sum(ones(f32[1000]))", "f32 = 1000"),
         ("a small live tensor: v * 2.0", "v * 2.0", "f32[3] = [2, 4, 6]"),
         ("one element of the 100 MB tensor", "big[7, 7]", "f32 = "),
         ("the trained model: sum(m.b2)", "sum(m.b2)", "f32 = "),
         ("accuracy(logits(m, xb), tb) on 64 rows",
          "accuracy(logits(m, xb), tb)", "f32 = ")]


def session(exe, live, mb, reps):
    r = Repl(exe)
    setup = {}
    if live:
        n = int((mb * 2 ** 20 / 4) ** 0.5)
        for label, line in [
                ("load the MLP functions", ":load examples/digits_mlp.tdsl"),
                ("bind %d MB (uniform f32[%d, %d])" % (mb, n, n),
                 "big = uniform(f32[%d, %d], 1)" % (n, n)),
                ("bind 200 more values s0..s199 (one input)",
                 "; ".join("s%d = full(f32[100], %d.0)" % (k, k) for k in range(200))),
                ("train the MLP 200 steps on random data",
                 "m = Mlp(1); vel = zeros(Mlp); xb = uniform(f32[64, 64], 2); "
                 "tb = onehot(f32(arange(i64[64]) % 10)); "
                 "for s in 0..200 { vel = nn.momentum(vel, grad(loss, m, xb, tb), 0.9); "
                 "m = nn.sgd(m, vel, 0.05) }")]:
            setup[label] = r.ask(line)
        r.ask("v = [1.0, 2.0, 3.0]")
    else:
        r.ask(":load examples/digits_mlp.tdsl")
        r.ask("v = [1.0, 2.0, 3.0]; big = zeros(f32[8, 8]); m = Mlp(1); "
              "xb = uniform(f32[64, 64], 2); tb = onehot(f32(arange(i64[64]) % 10))")
    times = {label: [] for label, _, _ in SMALL}
    for _ in range(reps):
        for label, line, expect in SMALL:
            times[label].append(r.ask(line, expect))
    r.close()
    return setup, times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repl", default=os.path.join(ROOT, "build", "bin", "tdsl-repl"))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--mb", type=int, default=100)
    a = ap.parse_args()
    _, fresh = session(a.repl, False, a.mb, a.reps)
    setup, live = session(a.repl, True, a.mb, a.reps)
    for label, s in setup.items():
        print("setup: %-52s %8.0f ms" % (label, s * 1e3))
    print("%-40s %18s %18s" % ("input", "small values (ms)", "%d MB live (ms)" % a.mb))
    for label, _, _ in SMALL:
        f, l = fresh[label], live[label]
        print("%-40s %8.0f [%4.0f-%4.0f] %8.0f [%4.0f-%4.0f]" % (
            label, statistics.median(f) * 1e3, min(f) * 1e3, max(f) * 1e3,
            statistics.median(l) * 1e3, min(l) * 1e3, max(l) * 1e3))


if __name__ == "__main__":
    main()
