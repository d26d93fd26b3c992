#!/usr/bin/python3
"""py_anchors.py - the PyTorch and numpy anchors of bench/suite.py.

Each mode reads the files the suite wrote for the matching TDSL program,
makes one untimed warm-up call, times REPS calls, and prints one JSON line:
{"times": [seconds per call], "checksum": [...], "version": "..."}.

  mlp-forward DIR REPS THREADS   MLP 784-512-256-10 loss (ReLU, mean softmax
                                 cross-entropy), forward only (no_grad)
  mlp-train   DIR REPS THREADS   forward, backward (autograd) and an SGD
                                 step (lr 0.1); the warm-up is the first of
                                 REPS + 1 steps from the same weights, as
                                 the TDSL program takes them
  conv        DIR PAD REPS THREADS   conv2d(x, w, bias, padding=PAD), no_grad
  sum         DIR REPS           numpy: x.sum() of x.npy (f32, pairwise)
  rng         N REPS             numpy: Generator(Philox).random(N, f32,
                                 out=buffer)

PyTorch runs with THREADS threads (torch.set_num_threads; the suite also
sets OMP_NUM_THREADS and OMP_WAIT_POLICY=PASSIVE); numpy is single-threaded.
"""
import json
import os
import sys
import time

import numpy as np


def emit(times, checksum, **extra):
    print(json.dumps(dict(times=times, checksum=[float(c) for c in checksum],
                          **extra)))


def timed(f, reps):
    f()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return times


def torch_setup(threads):
    import torch
    torch.set_num_threads(threads)
    return torch


NAMES = ["w1", "b1", "w2", "b2", "w3", "b3"]


def mlp_params(torch, d):
    return [torch.from_numpy(np.load(os.path.join(d, "mlp-%s.npy" % n)))
            for n in NAMES]


def mlp_loss(torch, p, x, y):
    F = torch.nn.functional
    w1, b1, w2, b2, w3, b3 = p
    h1 = torch.relu(x @ w1 + b1)
    h2 = torch.relu(h1 @ w2 + b2)
    return F.cross_entropy(h2 @ w3 + b3, y)


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode in ("mlp-forward", "mlp-train"):
        d, reps, threads = args[0], int(args[1]), int(args[2])
        torch = torch_setup(threads)
        x = torch.from_numpy(np.load(os.path.join(d, "x.npy")))
        y = torch.from_numpy(np.load(os.path.join(d, "labels.npy")))
        p0 = mlp_params(torch, d)
        if mode == "mlp-forward":
            out = []

            def f():
                with torch.no_grad():
                    out.append(mlp_loss(torch, p0, x, y).item())
            times = timed(f, reps)
            emit(times, [out[-1]], version="torch " + torch.__version__,
                 threads=torch.get_num_threads())
        else:
            p = [t.clone().requires_grad_() for t in p0]

            def step():
                g = torch.autograd.grad(mlp_loss(torch, p, x, y), p)
                with torch.no_grad():
                    for t, gt in zip(p, g):
                        t.sub_(0.1 * gt)
            times = timed(step, reps)
            with torch.no_grad():
                delta = [(t - t0).abs().double().sum().item()
                         for t, t0 in zip(p, p0)]
            # The order of the TDSL program's checksum: w1, w2, w3, b1, b2, b3.
            emit(times, [delta[0], delta[2], delta[4], delta[1], delta[3],
                         delta[5]], version="torch " + torch.__version__,
                 threads=torch.get_num_threads())
    elif mode == "conv":
        d, pad, reps, threads = args[0], int(args[1]), int(args[2]), int(args[3])
        torch = torch_setup(threads)
        x, w, b = (torch.from_numpy(np.load(os.path.join(d, n + ".npy")))
                   for n in ("x", "w", "bias"))
        out = []

        def f():
            with torch.no_grad():
                out[:] = [torch.nn.functional.conv2d(x, w, b, padding=pad)]
        times = timed(f, reps)
        y = out[0].double()
        emit(times, [y[:, :, 7, 9].sum().item(), y[0, 0, 0, 0].item(),
                     y[-1, 63, -1, -1].item()],
             version="torch " + torch.__version__,
             threads=torch.get_num_threads())
    elif mode == "sum":
        d, reps = args[0], int(args[1])
        x = np.load(os.path.join(d, "x.npy"))
        out = []
        times = timed(lambda: out.append(x.sum()), reps)
        emit(times, [out[-1]], version="numpy " + np.__version__, threads=1)
    elif mode == "rng":
        n, reps = int(args[0]), int(args[1])
        buf = np.empty(n, dtype=np.float32)
        seeds = iter(range(1000))

        def f():
            g = np.random.Generator(np.random.Philox(next(seeds)))
            g.random(n, dtype=np.float32, out=buf)
        times = timed(f, reps)
        emit(times, [float(buf.mean(dtype=np.float64))],
             version="numpy " + np.__version__, threads=1)
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
