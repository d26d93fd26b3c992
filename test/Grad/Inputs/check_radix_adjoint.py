"""Writes the inputs of radix_adjoint.tdsl (`gen FOLDER`) or compares its
gradients with PyTorch's in f64 (`check FOLDER`)."""
import sys

import numpy as np

SHAPES = [("x", (3, 4, 5, 6)), ("w", (120, 7)), ("x3", (2, 5, 7)), ("s", (35,)),
          ("p", (2, 3, 4)), ("r", (10,)), ("v", (3, 4)), ("q", (3, 4)), ("r12", (12,)),
          ("u", (2, 3, 4, 5)), ("ut", (2, 3, 8, 10)), ("u3", (4, 5)), ("u3t", (11, 5)),
          ("bx", (2, 3)), ("br", (24,))]


def gen(folder):
    r = np.random.default_rng(11)
    for n, s in SHAPES:
        np.save("%s/%s.npy" % (folder, n), (r.random(s) - 0.5).astype(np.float32))


def check(folder):
    import torch
    t = {n: torch.from_numpy(np.load("%s/%s.npy" % (folder, n)).astype(np.float64))
         for n, _ in SHAPES}

    def grad(fn, x, *rest):
        x = x.clone().requires_grad_()
        fn(x, *rest).backward()
        return x.grad.numpy()

    refs = [
        ("flat", grad(lambda x, w: ((x.flatten(1) @ w) ** 3).sum(), t["x"], t["w"])),
        ("flat3", grad(lambda x, s: ((x.flatten(1) * s) ** 2).sum(), t["x3"], t["s"])),
        ("partial", grad(lambda x, r: (x.flatten()[:10] ** 2 * r).sum(), t["p"], t["r"])),
        ("empty", np.zeros((3, 4))),
        ("up2", grad(lambda x, t: (x.repeat_interleave(2, 2).repeat_interleave(2, 3) ** 2
                                   * t).sum(), t["u"], t["ut"])),
        ("up3", grad(lambda x, t: (x.repeat_interleave(3, 0)[:11] ** 2 * t).sum(),
                     t["u3"], t["u3t"])),
        ("blocks", grad(lambda x, r: (x.flatten().repeat_interleave(4) ** 2 * r).sum(),
                        t["bx"], t["br"])),
        ("nochain", grad(lambda x, r: (x[np.arange(12) // 4, np.arange(12) % 3] ** 2 * r).sum(),
                         t["q"], t["r12"])),
    ]
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from compare_npy import compare
    compare(folder, refs)


if __name__ == "__main__":
    {"gen": gen, "check": check}[sys.argv[1]](sys.argv[2])
