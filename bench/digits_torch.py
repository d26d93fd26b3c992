#!/usr/bin/python3
"""examples/digits_mlp.tdsl (or, with --net cnn, examples/digits_cnn.tdsl)
against PyTorch, side by side.

PyTorch trains the same network (64-128-10, or the CNN: two 3x3
convolutions with ReLU and 2x2 max pooling, then a dense layer) from the
same initial weights
(TDSL's model Mlp(1) draws glorot-uniform weights from Philox4x32-10
streams; test/Examples/Inputs/philox.py computes the same values), on the
same 80/20 split with the same standardized pixels, with the same batches in the
same order, the same loss (mean softmax cross-entropy) and the same
optimizer (SGD with momentum 0.9 as TDSL writes it: v = 0.9 v + g;
w = w - lr v; lr 0.05 for the MLP, 0.02 for the CNN). It prints both runs' loss and test accuracy
per epoch and the time per epoch of each: the medians of ROUNDS interleaved
runs, TDSL as a compiled executable (`tdslc -o`; its time includes reading
the CSV, about a millisecond), PyTorch 1.13 on the CPU with as many threads.

usage: bench/digits_torch.py [--net mlp|cnn] [--tdslc build/bin/tdslc]
       [--rounds 3] [--threads N] [--check]

With --check (test/Examples/digits-torch.test) it also fails unless every
epoch's loss agrees to a relative 1e-3 and every test accuracy to one row:
the same gradients, step by step, or the curves part.
Needs python3-torch, python3-numpy and python3-sklearn (the data).
"""
import argparse
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "test", "Examples", "Inputs"))
import philox  # noqa: E402

DATA = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
BATCHES, BATCH, NTRAIN = 44, 32, 1438
# Per network: its example, epochs, learning rate.
NETS = {"mlp": ("digits_mlp", 30, 0.05), "cnn": ("digits_cnn", 20, 0.02)}
EPOCHS = 30
STREAM = 0x9E3779B97F4A7C15


def load():
    d = np.loadtxt(gzip.open(DATA), delimiter=",", dtype=np.float32)
    r = np.arange(NTRAIN)
    train = d[r + r // 4]
    test = d[5 * np.arange(359) + 4]
    xtr = train[:, :64] / np.float32(16.0)
    # As the TDSL examples compute them (mu[j] = sum(r) x[r, j] / n): f32
    # sums of x / n row after row. Inputs that differ in the last bit (numpy
    # sums pairwise) flip near-ties of max pooling and part the curves by a
    # few 1e-3, which would hide what --check looks for.
    n = np.float32(NTRAIN)
    def rowsum(v):
        acc = np.zeros(v.shape[1], np.float32)
        for row in v:
            acc = acc + row
        return acc
    mu = rowsum(xtr / n)
    sd = np.sqrt(rowsum((xtr - mu) * (xtr - mu) / n)) + np.float32(0.1)
    def split(t):
        x = (t[:, :64] / np.float32(16.0) - mu) / sd
        return (torch.from_numpy(x.astype(np.float32)),
                torch.from_numpy(t[:, 64].astype(np.int64)))
    return split(train), split(test)


def stream(field):
    """The Philox seed of field k of a model created with seed 1."""
    return (1 + (field + 1) * STREAM) & 0xFFFFFFFFFFFFFFFF


def uniform(shape, field, a):
    """uniform(a) and glorot: 2a * u - a in f32."""
    u = philox.uniform_f32(stream(field), np.arange(int(np.prod(shape))))
    return torch.from_numpy((u.reshape(shape) * np.float32(2 * a)
                             - np.float32(a)).astype(np.float32))


def he(shape, field):
    """he: a normal times sqrt(2 / fan_in), fan_in = in channels * window."""
    z = philox.normal_f32(stream(field), np.arange(int(np.prod(shape))))
    scale = np.float32((2.0 / float(np.prod(shape[1:]))) ** 0.5)
    return torch.from_numpy((z.reshape(shape) * scale).astype(np.float32))


def init_mlp():
    """Mlp(1): glorot-uniform weights, a = sqrt(6 / (fan_in + fan_out))."""
    glorot = lambda shape, field: uniform(shape, field,
                                          (6.0 / (shape[0] + shape[1])) ** 0.5)
    return [glorot((64, 128), 0), torch.zeros(128),
            glorot((128, 10), 2), torch.zeros(10)]


def init_cnn():
    """Cnn(1): he kernels, zero biases, uniform(0.20851) dense weights."""
    return [he((16, 1, 3, 3), 0), torch.zeros(16), he((32, 16, 3, 3), 2),
            torch.zeros(32), uniform((32, 2, 2, 10), 4, 0.20851),
            torch.zeros(10)]


def logits_mlp(params, x):
    w1, b1, w2, b2 = params
    return torch.relu(x @ w1 + b1) @ w2 + b2


def logits_cnn(params, x):
    F = torch.nn.functional
    k1, b1, k2, b2, w, b = params
    h = x.reshape(-1, 1, 8, 8)
    h = F.max_pool2d(torch.relu(F.conv2d(h, k1, b1, padding=1)), 2)
    h = F.max_pool2d(torch.relu(F.conv2d(h, k2, b2, padding=1)), 2)
    return torch.flatten(h, 1) @ w.reshape(128, 10) + b


def torch_run(net, train, test):
    (xtr, ytr), (xte, yte) = train, test
    lr = NETS[net][2]
    init, forward = (init_mlp, logits_mlp) if net == "mlp" else (init_cnn, logits_cnn)
    params = [p.clone().requires_grad_() for p in init()]
    vel = [torch.zeros_like(p) for p in params]
    logits = lambda x: forward(params, x)
    lines, times = [], []
    for epoch in range(EPOCHS):
        start = time.perf_counter()
        a = 4 * epoch + 1
        for batch in range(BATCHES):
            rows = (a * (batch * BATCH + np.arange(BATCH)) + 101 * epoch) % NTRAIN
            rows = torch.from_numpy(rows)
            loss = torch.nn.functional.cross_entropy(logits(xtr[rows]), ytr[rows])
            grads = torch.autograd.grad(loss, params)
            with torch.no_grad():
                for p, v, g in zip(params, vel, grads):
                    v.mul_(0.9).add_(g)
                    p.sub_(lr * v)
        times.append(time.perf_counter() - start)
        with torch.no_grad():
            z = logits(xtr)
            loss = torch.nn.functional.cross_entropy(z, ytr).item()
            acc = (logits(xte).argmax(1) == yte).float().mean().item()
        lines.append((loss, acc))
    return lines, sum(times)


def tdsl_run(exe, threads):
    start = time.perf_counter()
    out = subprocess.run([exe, "--threads=%d" % threads], capture_output=True,
                         text=True, check=True, cwd=os.path.join(root, "examples"))
    total = time.perf_counter() - start
    lines = []
    for line in out.stdout.splitlines():
        f = line.split()
        if f and f[0] == "epoch":
            lines.append((float(f[3]), float(f[7])))
    return lines, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tdslc", default=os.path.join(root, "build", "bin", "tdslc"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--net", choices=sorted(NETS), default="mlp")
    args = ap.parse_args()
    global EPOCHS
    example, EPOCHS, _ = NETS[args.net]
    torch.set_num_threads(args.threads)
    exe = os.path.join(tempfile.mkdtemp(prefix="digits."), example)
    subprocess.run([args.tdslc, os.path.join(root, "examples", example + ".tdsl"),
                    "-o", exe], check=True)
    train, test = load()
    tdsl_times, torch_times = [], []
    for _ in range(args.rounds):
        tdsl_lines, t = tdsl_run(exe, args.threads)
        tdsl_times.append(t)
        torch_lines, t = torch_run(args.net, train, test)
        torch_times.append(t)
    print("epoch  TDSL loss  TDSL test  PyTorch loss  PyTorch test")
    for e, ((l1, a1), (l2, a2)) in enumerate(zip(tdsl_lines, torch_lines)):
        print("%5d  %9.5f  %9.4f  %12.5f  %12.4f" % (e + 1, l1, a1, l2, a2))
    tt, pt = statistics.median(tdsl_times), statistics.median(torch_times)
    print("time per epoch (median of %d rounds, %d threads): TDSL %.2f ms, "
          "PyTorch %.2f ms, ratio PyTorch/TDSL %.2f"
          % (args.rounds, args.threads, 1000 * tt / EPOCHS, 1000 * pt / EPOCHS,
             pt / tt))
    best = lambda lines: max(a for _, a in lines[-5:])
    print("best test accuracy of the last 5 epochs: TDSL %.4f, PyTorch %.4f"
          % (best(tdsl_lines), best(torch_lines)))
    if args.check:
        if len(tdsl_lines) != EPOCHS:
            sys.exit("TDSL printed %d epochs" % len(tdsl_lines))
        for e, ((l1, a1), (l2, a2)) in enumerate(zip(tdsl_lines, torch_lines)):
            if abs(l1 - l2) > 1e-3 * max(abs(l1), abs(l2)) or abs(a1 - a2) > 1.5 / 359:
                sys.exit("epoch %d differs: TDSL %g %g, PyTorch %g %g"
                         % (e + 1, l1, a1, l2, a2))
        print("TDSL and PyTorch agree on every epoch")


if __name__ == "__main__":
    main()
