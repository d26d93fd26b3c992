"""Writes the inputs of run_time_tiles.tdsl (`gen FOLDER`) or compares its
outputs with a numpy convolution in f64 and the gradient of its sum of
squares with respect to the kernel (`check FOLDER`): one line per
output, then `wrong: N`."""
import sys

import numpy as np

CONVS = [  # name, N, C, H, W, K, R, S, padding
    ("a", 2, 3, 9, 56, 64, 3, 3, 1),     # 56 columns: 32 + 16 + 8
    ("b", 1, 2, 5, 3, 8, 3, 3, 1),       # 3 columns: below a quarter vector
    ("c", 2, 3, 6, 28, 11, 3, 3, 1),     # 28 = 16 + 8 + 4; 11 channels
    ("d", 1, 1, 4, 100, 70, 2, 5, 2),    # 100 = 3 * 32 + 4; 70 = 64 + 6
    ("e", 2, 4, 3, 7, 3, 1, 1, 0),       # 1 x 1 kernel, 3 channels
    ("f", 1, 3, 5, 300, 16, 3, 3, 0),    # past a parallel tile of 256
    ("g", 1, 2, 7, 33, 9, 3, 2, 1),      # 33 + 2 - 2 + 1 = 34 = 32 + 2
    ("h", 1, 3, 4, 64, 128, 3, 3, 1),    # whole tiles only
]


def gen(folder):
    r = np.random.default_rng(7)
    f = lambda *s: (r.random(s) - 0.5).astype(np.float32)
    for n, N, C, H, W, K, R, S, _ in CONVS:
        np.save("%s/%sx.npy" % (folder, n), f(N, C, H, W))
        np.save("%s/%sw.npy" % (folder, n), f(K, C, R, S))
        np.save("%s/%sb.npy" % (folder, n), f(K))


def conv2d(x, w, b, p):
    N, C, H, W = x.shape
    K, _, R, S = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    ho, wo = H + 2 * p - R + 1, W + 2 * p - S + 1
    y = np.zeros((N, K, ho, wo)) + b[None, :, None, None]
    for di in range(R):
        for dj in range(S):
            y += np.einsum("kc,ncij->nkij", w[:, :, di, dj],
                           xp[:, :, di:di + ho, dj:dj + wo])
    return y


def sq_grad_w(x, w, b, p):
    """The gradient of sum(conv2d(x, w, b, p)^2) with respect to w."""
    y = conv2d(x, w, b, p)
    _, _, R, S = w.shape
    ho, wo = y.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    g = np.zeros(w.shape)
    for di in range(R):
        for dj in range(S):
            g[:, :, di, dj] = np.einsum("nkij,ncij->kc", 2 * y,
                                        xp[:, :, di:di + ho, dj:dj + wo])
    return g


def check(folder):
    load = lambda n: np.load("%s/%s.npy" % (folder, n)).astype(np.float64)
    refs = [(n + "y", conv2d(load(n + "x"), load(n + "w"), load(n + "b"), p))
            for n, _, _, _, _, _, _, _, p in CONVS]
    refs += [(n + "dy_w", sq_grad_w(load(n + "x"), load(n + "w"), load(n + "b"), 1))
             for n in "ac"]
    sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Grad/Inputs")
    from compare_npy import compare
    compare(folder, refs)


if __name__ == "__main__":
    {"gen": gen, "check": check}[sys.argv[1]](sys.argv[2])
