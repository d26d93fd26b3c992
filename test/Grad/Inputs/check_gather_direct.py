"""Checks the outputs of gather_direct.tdsl in DIR against PyTorch in f64
(relative 1e-5 of each gradient's largest element)."""
import sys

import numpy as np
import torch

d = sys.argv[1]
L = lambda n: torch.tensor(np.load("%s/%s.npy" % (d, n)), dtype=torch.float64,
                           requires_grad=True)
x, w = L("x"), L("w")
((torch.flatten(x, 1) @ w) ** 3).sum().backward()
a, r = L("a"), L("r")
cols = a.shape[1]
perm = torch.tensor([(3 * j) % cols for j in range(cols)])
(a[:, perm] * a * r).sum().backward()
wrong = 0
for name, ref in [("flat-dyn", x.grad), ("flat", x.grad), ("permuted", a.grad)]:
    ref = ref.numpy()
    got = np.load("%s/%s.npy" % (d, name)).astype(np.float64)
    ok = got.shape == ref.shape and np.allclose(
        got, ref, rtol=0, atol=1e-5 * max(1.0, np.abs(ref).max()))
    wrong += not ok
    print(name, got.shape, "ok" if ok else "WRONG")
print("wrong:", wrong)
