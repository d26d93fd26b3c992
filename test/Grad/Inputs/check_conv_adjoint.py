"""Checks the outputs of conv_adjoint.tdsl in DIR against numpy in f64."""
import sys

import numpy as np

d = sys.argv[1]
L = lambda n: np.load("%s/%s.npy" % (d, n)).astype(np.float64)
x, w, r1, r2 = L("x"), L("w"), L("r1"), L("r2")
K, C, R, S = w.shape


def transposed(r, pad, row_offset):
    """The gradient of sum(conv(x) * r) for a window read at
    (i + di + row_offset - pad, j + dj - pad)."""
    g = np.zeros((x.shape[0], C, x.shape[2] + 2 * pad, x.shape[3] + 2 * pad))
    ho, wo = r.shape[2], r.shape[3]
    for di in range(R):
        for dj in range(S):
            g[:, :, di + row_offset:di + row_offset + ho, dj:dj + wo] += np.einsum(
                "kc,nkij->ncij", w[:, :, di, dj], r)
    return g[:, :, pad:pad + x.shape[2], pad:pad + x.shape[3]]


refs = {"padded": transposed(r1, 2, 0), "offset": transposed(r2, 0, 1)}
xd, vd, rd = L("xd"), L("vd"), L("rd")
diagonal = np.zeros_like(xd)
for di in range(xd.shape[0]):
    diagonal[di, di:di + len(rd)] += vd[di] * rd
wrong = 0
for name, ref in refs.items():
    for tag in ("", "-dyn"):
        got = L(name + tag)
        ok = got.shape == ref.shape and (
            np.abs(got - ref).max() / max(np.abs(ref).max(), 1.0) < 1e-5)
        wrong += not ok
        print(name + tag, got.shape, "ok" if ok else "WRONG")
got = L("diagonal")
ok = got.shape == diagonal.shape and np.abs(got - diagonal).max() < 1e-5
wrong += not ok
print("diagonal", got.shape, "ok" if ok else "WRONG")
print("wrong:", wrong)
