"""Checks the outputs of pool_adjoint.tdsl in DIR against PyTorch (f64)."""
import sys

import numpy as np
import torch
import torch.nn.functional as F

d = sys.argv[1]
L = lambda n: torch.tensor(np.load("%s/%s.npy" % (d, n)), dtype=torch.float64)
x, rp, w, rc, v, rv = L("x"), L("rp"), L("w"), L("rc"), L("v"), L("rv")


def grad_of(loss, t):
    t = t.clone().requires_grad_(True)
    loss(t).backward()
    return t.grad.numpy()


def window3(t):
    n = t.shape[0] // 3
    win = t[:3 * n].reshape(n, 3)
    z = (win * torch.arange(1, 4, dtype=t.dtype)).sum(1)
    return (win.max(1).values * z * rv).sum()


refs = {
    "maxpool": grad_of(lambda t: (F.max_pool2d(t, 2) ** 2 * rp).sum(), x),
    "avgpool": grad_of(lambda t: (F.avg_pool2d(t, 2) * rp).sum(), x),
    "window3": grad_of(window3, v),
    "patches": grad_of(lambda t: (F.conv2d(t, w, stride=2) * rc).sum(), x),
    "patches_w": grad_of(lambda t: (F.conv2d(x, t, stride=2) * rc).sum(), w),
}
wrong = 0
for name in ["maxpool", "maxpool-dyn", "avgpool", "avgpool-dyn", "window3",
             "patches", "patches-dyn", "patches_w"]:
    ref = refs[name.replace("-dyn", "")]
    got = np.load("%s/%s.npy" % (d, name)).astype(np.float64)
    ok = got.shape == ref.shape and (
        np.abs(got - ref).max() / max(np.abs(ref).max(), 1.0) < 1e-5)
    wrong += not ok
    print(name, got.shape, "ok" if ok else "WRONG")
print("wrong:", wrong)
