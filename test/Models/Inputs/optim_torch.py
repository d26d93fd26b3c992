"""Repeats Inputs/optim_steps.tdsl with torch.optim (SGD with momentum,
Adam) from the same starting values and gradients, and compares: f64 to
1e-13 relative (the largest difference over a tensor, over its largest
element), f32 to 2e-6.

usage: optim_torch.py FOLDER (where optim_steps.tdsl saved its files)
"""
import os
import sys

import numpy as np
import torch

folder = sys.argv[1]


def load(name):
    return torch.from_numpy(np.load(os.path.join(folder, name + ".npy")))


differ = 0
for bits, tol in (("64", 1e-13), ("32", 2e-6)):
    w0, b0, gw, gb = (load(n + bits) for n in ("w", "b", "gw", "gb"))
    for name in ("sgd", "adam"):
        w = w0.clone().requires_grad_()
        b = b0.clone().requires_grad_()
        if name == "sgd":
            opt = torch.optim.SGD([w, b], lr=0.05, momentum=0.9)
            steps = [(gw * (s + 1), gb * (s + 1)) for s in range(5)]
        else:
            opt = torch.optim.Adam([w, b], lr=0.01, betas=(0.9, 0.999), eps=1e-8)
            steps = [(gw * t - 1.0, gb * t - 1.0) for t in range(1, 6)]
        for sw, sb in steps:
            w.grad, b.grad = sw.clone(), sb.clone()
            opt.step()
        for field, ref in (("w", w), ("b", b)):
            got = load(name + "_" + field + bits)
            ref = ref.detach()
            err = ((got - ref).abs().max() / ref.abs().max()).item()
            ok = err <= tol
            differ += not ok
            print(name, "f" + bits, field, "%.1e" % err, "" if ok else "DIFFERS")
print(8 - differ, "tensors agree,", differ, "differ")
