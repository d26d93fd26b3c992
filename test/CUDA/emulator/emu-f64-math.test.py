"""Checks the f64 results of Inputs/f64_math.tdsl against numpy."""
import sys
import numpy as np

gpu, cpu = sys.argv[1], sys.argv[2]
x = np.load(gpu + "/x.npy")
want = {
    "exp": np.exp(np.minimum(x, 40.0) * 0.01),
    "log": np.log(np.abs(x) + 0.5),
    "tanh": np.tanh(x * 0.1),
    "sin": np.sin(x),
    "cos": np.cos(x),
    "sigmoid": 1 / (1 + np.exp(-x * 0.1)),
    "pow": (np.abs(x) + 0.5) ** 1.7,
    "sqrt": np.sqrt(np.abs(x)),
}
for name, ref in want.items():
    got = np.load(gpu + "/" + name + ".npy")
    assert got.dtype == np.float64, name
    err = np.abs(got - ref) / np.maximum(np.abs(ref), 1e-300)
    # sin and cos near their zeros: absolute errors (the values are <= 1).
    if name in ("sin", "cos"):
        err = np.abs(got - ref)
    worst = int(np.argmax(err))
    status = "ok" if err[worst] <= 1e-14 else "FAIL"
    print(f"{name} {status} (largest error {err[worst]:.2e} at x = {x[worst]!r})")
g, c = np.load(gpu + "/normal.npy"), np.load(cpu + "/normal.npy")
print("normal: bitwise equal to the CPU" if np.array_equal(g.view(np.uint64), c.view(np.uint64))
      else f"normal: FAIL, {int(np.sum(g != c))} of {g.size} differ")
