"""uniform() and normal() of the reference, from the Philox port in
test/Examples/Inputs/philox.py (written from runtime/include/tdsl/Runtime.h).

Uniform values are bit-exact. normal() is defined by basic IEEE operations
in a fixed order (tdsl/NormalTransform.h), and philox.py reproduces it bit
for bit, so its values are compared exactly too; `normal_tolerance` is the
one place to loosen that comparison again should the definition change
(it was 1e-5 relative for f32 while normal() went through libm).
"""
import os
import sys

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, 'test', 'Examples', 'Inputs'))
import philox  # noqa: E402  (the repository's reference implementation)

sys.path.pop(0)


def _counters(ctr):
    return np.asarray(ctr, np.uint64)


def uniform(dtype, seed, ctr):
    """Values for counters `ctr` (any shape) as float64 arrays."""
    ctr = _counters(ctr)
    seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    f = philox.uniform_f32 if dtype == 'f32' else philox.uniform_f64
    return np.asarray(f(seed, ctr.reshape(-1)), np.float64).reshape(ctr.shape)


def normal(dtype, seed, ctr):
    ctr = _counters(ctr)
    seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    f = philox.normal_f32 if dtype == 'f32' else philox.normal_f64
    return np.asarray(f(seed, ctr.reshape(-1)), np.float64).reshape(ctr.shape)


def normal_tolerance(dtype, values):
    """Error bound of a normal() value: 0, normal() is bit-identical on every
    back end. (Loose bound while it was not: 1e-5 * |v| + 1e-6 for f32.)"""
    return np.zeros(np.shape(values))
