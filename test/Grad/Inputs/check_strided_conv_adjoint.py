"""Checks the outputs of strided_conv_adjoint.tdsl in DIR against PyTorch
in f64 (relative 1e-5 of each gradient's largest element)."""
import sys

import numpy as np
import torch

from compare_npy import compare

d = sys.argv[1]
L = lambda n: torch.tensor(np.load("%s/%s.npy" % (d, n)), dtype=torch.float64,
                           requires_grad=True)


def conv_grads(x, w, b, t, stride):
    y = torch.nn.functional.conv2d(x, w, b, stride=stride, padding=1)
    ((y - t) ** 3).sum().backward()
    return x.grad, w.grad, b.grad


gx, gw, gb = conv_grads(L("x"), L("w"), L("b"), L("t"), 2)
gx3, _, _ = conv_grads(L("x3"), L("w3"), L("b3"), L("t3"), 3)
v, r = L("v"), L("r")
n = (v.shape[0] - 1) // 3
(v[1:3 * n + 1:3] ** 2 * r).sum().backward()
compare(d, [(name, ref.numpy()) for name, ref in [
    ("s2-x", gx), ("s2-w", gw), ("s2-b", gb), ("s2-x-dyn", gx), ("s2-w-dyn", gw),
    ("s3-x", gx3), ("s1-v", v.grad)]])
