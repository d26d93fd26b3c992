"""Checks the .npy files of Inputs/gpu_kernels.tdsl against numpy.

usage: check_gpu_kernels.py prepare DIR   (writes DIR/x.npy, the dynamic input)
       check_gpu_kernels.py check DIR...  (checks each DIR's results)

The references re-implement what the program's comments say; none reads
tdslc output. Tolerances: the matmuls, convolution, stencil, row sums and
row maxima have integer-valued (or tenths-valued) f32 inputs whose exact
results are below 2^24 (row sums: tenths, below 2^24 / 10), so they must be
exact up to the order of summation: rtol 1e-6. Softmax uses exp: rtol 1e-5,
atol 1e-7. The i64 matmul and the reductions over a few iterations
(tiny_reduce) are exact, and so are the element-wise results (small
integers) and the booleans; exp: rtol 1e-6.
"""
import os
import sys

import numpy as np


def x_input():
    return (np.arange(45 * 70).reshape(45, 70) % 9 - 4).astype(np.float32)


def references():
    i, k = np.meshgrid(np.arange(37), np.arange(53), indexing="ij")
    A = ((i + 2 * k) % 7 - 3.0).astype(np.float64)
    k, j = np.meshgrid(np.arange(53), np.arange(29), indexing="ij")
    B = ((3 * k + j) % 5).astype(np.float64)
    p, i, k = np.meshgrid(np.arange(3), np.arange(17), np.arange(40), indexing="ij")
    P = ((p + i * k) % 9 - 4.0)
    p, k, j = np.meshgrid(np.arange(3), np.arange(40), np.arange(19), indexing="ij")
    Q = ((2 * p + k + 3 * j) % 6).astype(np.float64)
    i, k = np.meshgrid(np.arange(150), np.arange(140), indexing="ij")
    BG = ((3 * i + k) % 13 - 6.0)
    k, j = np.meshgrid(np.arange(140), np.arange(133), indexing="ij")
    BH = ((k * j + 1) % 7 - 3.0)
    i, k = np.meshgrid(np.arange(8), np.arange(300), indexing="ij")
    L = ((i * k) % 11 - 5.0)
    k, j = np.meshgrid(np.arange(300), np.arange(8), indexing="ij")
    R = ((k + j) % 3).astype(np.float64)
    i, k = np.meshgrid(np.arange(21), np.arange(18), indexing="ij")
    IA = (i * 3 + k) % 13 - 6
    k, j = np.meshgrid(np.arange(18), np.arange(23), indexing="ij")
    IB = (k * k + j) % 7
    k, j = np.meshgrid(np.arange(70), np.arange(13), indexing="ij")
    W = ((k + 4 * j) % 5 - 2.0)
    y, x = np.meshgrid(np.arange(35), np.arange(41), indexing="ij")
    img = ((x * x + 3 * y) % 17).astype(np.float64)
    kern = np.array([[1.0, 2.0, 0.0], [-1.0, 4.0, 1.0], [0.0, 3.0, -2.0]])
    conv = np.zeros((33, 39))
    for dy in range(3):
        for dx in range(3):
            conv += kern[dy, dx] * img[dy:dy + 33, dx:dx + 39]
    H, W_ = img.shape
    stencil = np.zeros_like(img)
    for d in range(3):
        yy = np.clip(np.arange(H) + d - 1, 0, H - 1)
        xx = np.clip(np.arange(W_) + d - 1, 0, W_ - 1)
        stencil += img[yy, :] + 2.0 * img[:, xx]
    i, j = np.meshgrid(np.arange(5), np.arange(1000), indexing="ij")
    rows = ((i * 7 + j * 13) % 101) / 10.0
    i, j = np.meshgrid(np.arange(7), np.arange(33), indexing="ij")
    short = ((i + 5 * j) % 23).astype(np.float64)
    s = short / 10.0
    e = np.exp(s - s.max(axis=1, keepdims=True))
    X = x_input().astype(np.float64)
    line = ((np.arange(1003) * 37) % 11 - 5.0).astype(np.float32)
    return {
        "matmul": (A @ B, 1e-6, 0),
        "at_matmul": (A @ B, 1e-6, 0),
        "bmm": (np.einsum("pik,pkj->pij", P, Q), 1e-6, 0),
        "longk": (L @ R, 1e-6, 0),
        "big": (BG @ BH, 1e-6, 0),
        "imatmul": (IA @ IB, 0, 0),
        "dynamic": (x_input().astype(np.float64) @ W, 1e-6, 0),
        "conv": (conv, 1e-6, 0),
        "stencil": (stencil, 1e-6, 0),
        "rowsum": (rows.sum(axis=1), 1e-6, 0),
        "rowmax": (short.max(axis=1), 0, 0),
        "softmax": (e / e.sum(axis=1, keepdims=True), 1e-5, 1e-7),
        "tiny_reduce": (np.array([0.25, -5.0, 0.5, -10.0]), 0, 0),
        "elementwise": (X * 2.0 + X[:, :1] - X[:1, :], 0, 0),
        "flags": ((np.arange(1024) * 37) % 11 - 5 != 0, 0, 0),
        "line": (np.exp(line / 4.0), 1e-6, 0),
    }


def main():
    if sys.argv[1] == "prepare":
        np.save(os.path.join(sys.argv[2], "x.npy"), x_input())
        return 0
    failures = 0
    for d in sys.argv[2:]:
        for name, (ref, rtol, atol) in references().items():
            got = np.load(os.path.join(d, name + ".npy"))
            if got.shape != ref.shape:
                print(f"{d}/{name}: shape {got.shape}, expected {ref.shape}")
                failures += 1
            elif ref.dtype == bool and not np.array_equal(got, ref):
                print(f"{d}/{name}: {np.count_nonzero(got != ref)} booleans differ")
                failures += 1
            elif ref.dtype != bool and not np.allclose(got, ref, rtol=rtol, atol=atol):
                err = np.max(np.abs(got - ref))
                print(f"{d}/{name}: max |error| {err:g} (rtol {rtol}, atol {atol})")
                failures += 1
            else:
                print(f"{os.path.basename(d)}/{name}: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
