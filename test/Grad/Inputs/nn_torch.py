"""Compares the gradients nn_layers.tdsl saved with PyTorch's autograd of
the same functions on the same inputs (f32; relative tolerance 1e-5 of the
largest element, absolute 1e-6). Prints one line per layer and a summary;
exits 1 on any difference.

usage: nn_torch.py FOLDER"""
import os
import sys

import numpy as np
import torch

folder = sys.argv[1]
x = torch.from_numpy(np.load(os.path.join(folder, "x.npy")))
w34 = torch.tensor([[0.5, -1.0, 2.0, 0.25], [1.5, 0.75, -0.5, 1.0],
                    [-2.0, 0.3, 0.6, 0.9]])
w = torch.tensor([[0.5, -1.0], [0.25, 2.0], [1.5, 0.75], [-0.5, 1.0]])
b = torch.tensor([0.1, -0.3])
F = torch.nn.functional

def dense(x, w, b):
    return torch.tanh(x @ w + b).sum()

layers = {
    "relu": (lambda x: (torch.relu(x) * w34).sum(), [x]),
    "gelu": (lambda x: (F.gelu(x, approximate="tanh") * w34).sum(), [x]),
    "sigmoid": (lambda x: (torch.sigmoid(x) * w34).sum(), [x]),
    "softmax": (lambda x: (torch.softmax(x, 1) * w34).sum(), [x]),
    "log_softmax": (lambda x: (torch.log_softmax(x, 1) * w34).sum(), [x]),
    "logsumexp": (lambda x: (torch.logsumexp(x, 1)
                             * torch.tensor([1.0, -2.0, 0.5])).sum(), [x]),
    "dense_x": (lambda x: dense(x, w, b), [x]),
    "dense_w": (lambda w_: dense(x, w_, b), [w]),
    "dense_b": (lambda b_: dense(x, w, b_), [b]),
    "mse": (lambda x: F.mse_loss(x, w34), [x]),
    "cross_entropy": (lambda x: F.cross_entropy(x, torch.tensor([2, 0, 3])), [x]),
}
bad = 0
for name, (fn, (arg,)) in layers.items():
    a = arg.clone().requires_grad_()
    (expected,) = torch.autograd.grad(fn(a), [a])
    got = torch.from_numpy(np.load(os.path.join(folder, name + ".npy")))
    err = (got - expected).abs().max().item()
    tol = 1e-5 * expected.abs().max().item() + 1e-6
    ok = err <= tol
    bad += not ok
    print("%s %s (max error %.2e)" % (name, "agrees" if ok else "DIFFERS", err))
print("%d layers, %d differ" % (len(layers), bad))
sys.exit(1 if bad else 0)
