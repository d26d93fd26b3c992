"""Checks the outputs of transposed_products.tdsl in DIR against numpy in f64."""
import sys

import numpy as np

from static_and_dynamic import check

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
check(d, refs)
