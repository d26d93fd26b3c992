"""The eight TDSL scalar types as the reference sees them.

Every float value is kept in float64 arrays that hold exactly the values of
its TDSL type (f16, bf16 and f32 values are rounded to their type after each
operation); integers live in numpy arrays of their own width (so `+ - *`
wrap as in TDSL), i1 in bool arrays. numpy 1.24 has no bfloat16: bf16
rounding is done here, to nearest even, on the float64 value.
"""
import numpy as np


class Scalar:
    def __init__(self, name, storage, bits, lo=None, hi=None):
        self.name = name
        self.storage = np.dtype(storage)    # numpy dtype of the reference arrays
        self.bits = bits                   # precision (floats) or width (ints)
        self.lo, self.hi = lo, hi           # integer range
        self.is_float = name in ('f16', 'bf16', 'f32', 'f64')
        self.is_int = name in ('i32', 'i64', 'u64')
        self.is_bool = name == 'i1'
        self.is_signed = name in ('i32', 'i64') or self.is_float

    @property
    def u(self):
        """Unit roundoff of a float type."""
        return 2.0 ** -self.bits

    def __repr__(self):
        return self.name


SCALARS = {
    'f16': Scalar('f16', np.float64, 11),
    'bf16': Scalar('bf16', np.float64, 8),
    'f32': Scalar('f32', np.float64, 24),
    'f64': Scalar('f64', np.float64, 53),
    'i1': Scalar('i1', np.bool_, 1),
    'i32': Scalar('i32', np.int32, 32, -2 ** 31, 2 ** 31 - 1),
    'i64': Scalar('i64', np.int64, 64, -2 ** 63, 2 ** 63 - 1),
    'u64': Scalar('u64', np.uint64, 64, 0, 2 ** 64 - 1),
}
FLOATS = ['f16', 'bf16', 'f32', 'f64']
INTS = ['i32', 'i64', 'u64']
NUMERIC = FLOATS + INTS
ALL = NUMERIC + ['i1']

# numpy dtype of a saved .npy file (bf16 cannot be saved: programs save f32(x)).
NPY = {'f16': np.float16, 'f32': np.float32, 'f64': np.float64, 'i1': np.bool_,
       'i32': np.int32, 'i64': np.int64, 'u64': np.uint64}

# Largest magnitude the generator lets a float value reach, and smallest
# nonzero one (no overflow, no subnormals: GPUs may flush them).
FLOAT_LIMIT = {'f16': 1000.0, 'bf16': 2.0 ** 40, 'f32': 2.0 ** 40, 'f64': 2.0 ** 64}
FLOAT_TINY = {'f16': 2.0 ** -10, 'bf16': 2.0 ** -60, 'f32': 2.0 ** -60, 'f64': 2.0 ** -200}


def sc(name):
    return SCALARS[name]


def round_bf16(x):
    """float64 -> the nearest bfloat16 (ties to even), as float64."""
    x = np.asarray(x, np.float64)
    m, e = np.frexp(x)                  # x = m * 2**e, 0.5 <= |m| < 1
    m = np.rint(m * 256.0) / 256.0      # 8 significant bits, ties to even
    return np.ldexp(m, e)


def round_to(name, x):
    """Rounds float64 values to the float type `name` (result: float64)."""
    x = np.asarray(x, np.float64)
    if name == 'f64':
        return x
    if name == 'f32':
        return x.astype(np.float32).astype(np.float64)
    if name == 'f16':
        with np.errstate(over='ignore'):
            return x.astype(np.float16).astype(np.float64)
    if name == 'bf16':
        return round_bf16(x)
    raise ValueError(name)


def sigbits(x):
    """Number of significant bits of each float64 value (0 for zero)."""
    x = np.asarray(x, np.float64)
    m, _ = np.frexp(np.abs(x))
    mi = (m * 2.0 ** 53).astype(np.int64)
    low = mi & -mi                       # lowest set bit
    with np.errstate(divide='ignore'):
        tz = np.where(mi == 0, 53, np.log2(np.where(low == 0, 1, low)).astype(np.int64))
    return np.where(mi == 0, 0, 53 - tz)


def low_exponent(x):
    """Exponent of the lowest set bit of each nonzero value (x = k * 2**e)."""
    x = np.asarray(x, np.float64)
    _, e = np.frexp(x)
    return e - sigbits(x)


def representable(name, x):
    """True where float64 values are exactly values of float type `name`."""
    x = np.asarray(x, np.float64)
    return round_to(name, x) == x


def to_storage(name, x):
    """Any numeric array -> the reference storage of type `name`."""
    return np.asarray(x).astype(SCALARS[name].storage)


def to_npy(name, arr):
    """Reference storage -> the array a saved .npy file holds."""
    if name == 'bf16':
        return np.asarray(arr, np.float64).astype(np.float32)
    return np.asarray(arr).astype(NPY[name])
