"""Compares the gradients cnn_layers.tdsl saved (with respect to each
weight of its model and to its input) with PyTorch's autograd of the same
network on the same weights and input (f32; relative tolerance 1e-4 of the
largest element, absolute 1e-6). Prints one line per gradient and a
summary; exits 1 on any difference.

usage: cnn_torch.py FOLDER"""
import os
import sys

import numpy as np
import torch

F = torch.nn.functional
folder = sys.argv[1]
load = lambda name: torch.from_numpy(np.load(os.path.join(folder, name)))
names = ["k1", "b1", "k2", "b2", "k3", "b3", "w", "b"]
params = [load("m-%s.npy" % n).requires_grad_() for n in names]
x = load("x.npy").requires_grad_()
labels = torch.tensor([2, 0])


def loss(k1, b1, k2, b2, k3, b3, w, b, x):
    h = F.max_pool2d(torch.relu(F.conv2d(x, k1, b1, padding=1)), 2)
    g = F.avg_pool2d(F.conv2d(h, k2, b2), 2)
    z = torch.flatten(g, 1) @ w + b
    s = F.conv2d(x, k3, b3, stride=2, padding=1)
    return F.cross_entropy(z, labels) + 0.01 * (s * s).sum()


expected = torch.autograd.grad(loss(*params, x), params + [x])
bad = 0
for name, e in zip(names + ["x"], expected):
    got = load("gx.npy" if name == "x" else "g-%s.npy" % name)
    err = (got - e).abs().max().item()
    tol = 1e-4 * e.abs().max().item() + 1e-6
    ok = err <= tol
    bad += not ok
    print("%s %s (max error %.2e)" % (name, "agrees" if ok else "DIFFERS", err))
print("%d gradients, %d differ" % (len(expected), bad))
sys.exit(1 if bad else 0)
