"""Checks the outputs of gather_direct.tdsl in DIR against PyTorch in f64
(relative 1e-5 of each gradient's largest element)."""
import sys

import numpy as np
import torch

from compare_npy import compare

d = sys.argv[1]
L = lambda n: torch.tensor(np.load("%s/%s.npy" % (d, n)), dtype=torch.float64,
                           requires_grad=True)
x, w = L("x"), L("w")
((torch.flatten(x, 1) @ w) ** 3).sum().backward()
a, r = L("a"), L("r")
cols = a.shape[1]
perm = torch.tensor([(3 * j) % cols for j in range(cols)])
(a[:, perm] * a * r).sum().backward()
compare(d, [("flat-dyn", x.grad.numpy()), ("flat", x.grad.numpy()),
            ("permuted", a.grad.numpy())])
