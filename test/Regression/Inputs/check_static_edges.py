"""Checks the outputs of static_edge_tiles.tdsl in DIR against numpy in f64."""
import sys

import numpy as np

d = sys.argv[1]
L = lambda n: np.load("%s/%s.npy" % (d, n)).astype(np.float64)
refs = {
    "corners": np.maximum(L("A") @ L("B") + L("b"), 0.0),
    "logits": L("H") @ L("W") + L("c"),
    "matvec": L("M") @ L("x"),
    "transposed": L("P").T @ L("Q"),
}
wrong = 0
for name, ref in refs.items():
    got = L(name)
    ok = got.shape == ref.shape and (
        np.abs(got - ref).max() / max(np.abs(ref).max(), 1.0) < 1e-5)
    wrong += not ok
    print(name, got.shape, "ok" if ok else "WRONG")
print("wrong:", wrong)
