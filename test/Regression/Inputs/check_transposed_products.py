"""Checks the outputs of transposed_products.tdsl in DIR against numpy in f64."""
import sys

import numpy as np

d = sys.argv[1]
L = lambda n: np.load("%s/%s.npy" % (d, n)).astype(np.float64)
A, Bt, B, S, H, W, X, Y = (L(n) for n in "A Bt B S H W X Y".split())
refs = {
    "abt": A @ Bt.T,
    "btfirst": A @ Bt.T,
    "tresult": (A @ B).T,
    "atb": H.T @ S,
    "window": np.einsum("no,cijo->ncij", S, W),
    "batched": np.einsum("bik,bjk->bij", X, Y),
}
wrong = 0
for name, ref in refs.items():
    for tag in ("0", "1"):
        got = L(name + "-" + tag)
        ok = got.shape == ref.shape and (
            np.abs(got - ref).max() / max(np.abs(ref).max(), 1.0) < 1e-5)
        wrong += not ok
        print(name, tag, got.shape, "ok" if ok else "WRONG")
print("wrong:", wrong)
