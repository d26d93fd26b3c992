"""Philox4x32-10 (Salmon et al., SC'11) in numpy, written from the spec in
runtime/include/tdsl/Runtime.h, independent of the runtime's C++ code.

The 32 x 32 -> 64-bit products are done in uint64 (exact: both factors are
below 2^32), vectorized over any number of counters.

  key     = (lo32(seed), hi32(seed))
  counter = (lo32(blk), hi32(blk), 0, 0)
  value k of a stream takes W words (1: uniform f32; 2: uniform f64, normal
  f32; 4: normal f64), G = 4 / W values per block: with c = k // 16G and
  p = k % 16G, w = out[(p // 16) * W : (p // 16) * W + W] of block
  blk = 16 c + p % 16
  uniform_f32(seed, k) = (w[0] >> 8) * 2^-24
  uniform_f64(seed, k) = ((w[0] << 32 | w[1]) >> 11) * 2^-53
  normal_f32/f64: Box-Muller by the steps of Runtime.h, with basic IEEE
  operations in numpy float32/float64 (each rounds like the C or GPU op),
  from constants derived here with exact rational arithmetic.

Run as a script, it checks Random123's known-answer vectors.
"""
import math
from fractions import Fraction

import numpy as np

M0 = np.uint64(0xD2511F53)
M1 = np.uint64(0xCD9E8D57)
W0 = 0x9E3779B9
W1 = 0xBB67AE85
MASK32 = np.uint64(0xFFFFFFFF)
SHIFT32 = np.uint64(32)


def philox4x32_10(ctr, key):
    """ctr: 4 arrays (or scalars) of uint32 words; key: 2 ints.
    Returns 4 uint32 arrays (out[0..3])."""
    x0, x1, x2, x3 = (np.asarray(c, dtype=np.uint64) & MASK32 for c in ctr)
    k0, k1 = int(key[0]) & 0xFFFFFFFF, int(key[1]) & 0xFFFFFFFF
    for rnd in range(10):
        if rnd:
            k0 = (k0 + W0) & 0xFFFFFFFF
            k1 = (k1 + W1) & 0xFFFFFFFF
        p0 = M0 * x0  # exact 64-bit products
        p1 = M1 * x2
        y0 = (p1 >> SHIFT32) ^ x1 ^ np.uint64(k0)
        y2 = (p0 >> SHIFT32) ^ x3 ^ np.uint64(k1)
        x1 = p1 & MASK32
        x3 = p0 & MASK32
        x0, x2 = y0, y2
    return tuple(v.astype(np.uint32) for v in (x0, x1, x2, x3))


def philox_seed_ctr(seed, ctr):
    """The runtime's 64-bit (seed, counter) form; ctr is an int array."""
    ctr = np.asarray(ctr, dtype=np.uint64)
    zero = np.zeros_like(ctr)
    seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    return philox4x32_10((ctr & MASK32, ctr >> SHIFT32, zero, zero),
                         (seed & 0xFFFFFFFF, seed >> 32))


def u32f(x):
    # (x >> 8) has 24 bits: exact in float32, and so is the scaling by 2^-24.
    return (np.asarray(x, np.uint32) >> np.uint32(8)).astype(np.float32) * np.float32(2.0 ** -24)


def value_words(seed, ctr, words):
    """The `words` words of each value ctr (an int array) of stream seed."""
    ctr = np.asarray(ctr, dtype=np.uint64)
    group = np.uint64(16 * (4 // words))
    c, p = ctr // group, ctr % group
    out = philox_seed_ctr(seed, np.uint64(16) * c + p % np.uint64(16))
    slot = (p // np.uint64(16)).astype(np.int64)
    stacked = np.stack([np.broadcast_to(o, slot.shape) for o in out])
    return [np.take_along_axis(stacked, (slot * words + i)[None, ...], 0)[0]
            for i in range(words)]


def uniform_f32(seed, ctr):
    return u32f(value_words(seed, ctr, 1)[0])


def uniform_f64(seed, ctr):
    r = value_words(seed, ctr, 2)
    return u64d(r[0], r[1])


def u53(hi, lo):
    return ((np.asarray(hi, np.uint64) << SHIFT32) | np.asarray(lo, np.uint64)) >> np.uint64(11)


def u64d(hi, lo):
    return u53(hi, lo).astype(np.float64) * np.float64(2.0 ** -53)


# The constants of the normal transform, from exact rationals (pi to 100
# digits): each is the double nearest the true value; f32 rounds that double.
_PI = Fraction("3.14159265358979323846264338327950288419716939937510582097494459"
               "23078164062862089986280348253421170679")
_LN2 = Fraction("0.693147180559945309417232121458176568075500134360255254120680009"
                "4933936219696947156058633269964186875")
LN2 = float(_LN2)
SQRT2 = math.sqrt(2.0)  # correctly rounded
LOG_COEFFS = [float(Fraction(2, 2 * k + 1)) for k in range(1, 12)]
COS_COEFFS = [float((-1) ** n * (_PI / 2) ** (2 * n) / math.factorial(2 * n)) for n in range(10)]
SIN_COEFFS = [float((-1) ** n * (_PI / 2) ** (2 * n + 1) / math.factorial(2 * n + 1))
              for n in range(10)]


def _horner(coeffs, w, T):
    acc = T(coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = acc * w + T(c)  # a product, then a sum: two roundings
    return acc


def _normal(u1, j, jbits, T, UT, IT, mant, bias, log_terms, trig_terms):
    """The steps of Runtime.h. u1 in (0, 1] of type T; j the angle's integer
    (jbits random bits: cos(2 pi j 2^-jbits))."""
    # ln u1 = e ln 2 + ln m, m in (sqrt(1/2), sqrt(2)].
    bits = u1.view(UT)
    e = (bits >> UT(mant)).astype(IT) - IT(bias)
    m = ((bits & UT((1 << mant) - 1)) | UT(bias << mant)).view(T)
    big = m > T(SQRT2)
    m = np.where(big, m * T(0.5), m)
    e = np.where(big, e + IT(1), e)
    f = m - T(1)
    s = f / (T(2) + f)
    z = s * s
    q = _horner(LOG_COEFFS[:log_terms], z, T)
    lnm = s * (T(2) + z * q)
    log_u1 = e.astype(T) * T(LN2) + lnm
    t2 = T(-2) * log_u1
    radius = np.sqrt(t2.astype(np.float64)).astype(T)
    # cos(2 pi u2) = cos(k pi/2 + pi t/2) with 4 u2 = k + t, t in [-1/2, 1/2).
    shift = jbits - 2
    k = (j + (UT(1) << UT(shift - 1))) >> UT(shift)
    t = (j.astype(IT) - (k << UT(shift)).astype(IT)).astype(T) * T(2.0 ** -shift)
    w = t * t
    c = _horner(COS_COEFFS[:trig_terms], w, T)
    sn = _horner(SIN_COEFFS[:trig_terms], w, T) * t
    quadrant = k & UT(3)
    v = np.where((quadrant & UT(1)) != 0, sn, c)
    v = np.where(((quadrant + UT(1)) & UT(2)) != 0, -v, v)
    return radius * v


def normal_f32(seed, ctr):
    """Bit for bit what the compiler and the runtime compute."""
    r = value_words(seed, ctr, 2)
    with np.errstate(over="ignore"):
        u1 = np.atleast_1d(np.float32(1.0) - u32f(r[0]))
        j = np.atleast_1d(np.asarray(r[1], np.uint32) >> np.uint32(8))
        return _normal(u1, j, 24, np.float32, np.uint32, np.int32, 23, 127, 5, 6)


def normal_f64(seed, ctr):
    r = value_words(seed, ctr, 4)
    u1 = np.atleast_1d(np.float64(1.0) - u64d(r[0], r[1]))
    j = np.atleast_1d(u53(r[2], r[3]))
    return _normal(u1, j, 53, np.float64, np.uint64, np.int64, 52, 1023, 11, 10)


# Random123's kat_vectors for philox4x32_10: (ctr, key, expected out).
KAT = [
    ((0, 0, 0, 0), (0, 0),
     (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    ((0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff),
     (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
     (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
]


def check_header_constants(path):
    """The constants the compiler and runtime use (tdsl/NormalTransform.h)
    are the ones derived here."""
    import re
    text = open(path).read()
    def table(name):
        body = re.search(name + r"\[\d+\] = \{(.*?)\};", text, re.S).group(1)
        return [float.fromhex(v) for v in re.findall(r"-?0x[0-9a-fA-Fp.+-]+", body)]
    assert table("tdsl_normal_log_coeffs") == LOG_COEFFS
    assert table("tdsl_normal_cos_coeffs") == COS_COEFFS
    assert table("tdsl_normal_sin_coeffs") == SIN_COEFFS
    assert float.fromhex(re.search(r"TDSL_NORMAL_LN2 (\S+)", text).group(1)) == LN2
    assert float.fromhex(re.search(r"TDSL_NORMAL_SQRT2 (\S+)", text).group(1)) == SQRT2


def self_check():
    for ctr, key, want in KAT:
        got = tuple(int(v) for v in philox4x32_10(ctr, key))
        assert got == want, "philox KAT failed: ctr=%s key=%s got %s want %s" % (
            [hex(c) for c in ctr], [hex(k) for k in key],
            [hex(g) for g in got], [hex(w) for w in want])
    # Vectorized evaluation agrees with one-at-a-time evaluation.
    ctrs = np.arange(5, dtype=np.uint64) + np.uint64(0xFFFFFFFE)  # crosses 2^32
    vec = philox_seed_ctr(0x123456789, ctrs)
    for i, c in enumerate(ctrs):
        one = philox_seed_ctr(0x123456789, np.array([c], np.uint64))
        assert all(int(vec[w][i]) == int(one[w][0]) for w in range(4))


if __name__ == "__main__":
    self_check()
    print("philox self-check: OK (%d known-answer vectors)" % len(KAT))
    if len(__import__("sys").argv) > 1:
        check_header_constants(__import__("sys").argv[1])
        print("normal transform constants: OK")
