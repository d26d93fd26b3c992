"""Philox4x32-10 (Salmon et al., SC'11) in numpy, written from the spec in
runtime/include/tdsl/Runtime.h, independent of the runtime's C++ code.

The 32 x 32 -> 64-bit products are done in uint64 (exact: both factors are
below 2^32), vectorized over any number of counters.

  key     = (lo32(seed), hi32(seed))
  counter = (lo32(ctr), hi32(ctr), 0, 0)
  uniform_f32(seed, ctr) = (out[0] >> 8) * 2^-24
  normal_f32(seed, ctr)  = sqrtf(-2 logf(1 - u32f(out[0]))) * cosf(6.2831853f * u32f(out[1]))

Run as a script, it checks Random123's known-answer vectors.
"""
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


def uniform_f32(seed, ctr):
    return u32f(philox_seed_ctr(seed, ctr)[0])


def normal_f32(seed, ctr):
    """Box-Muller in float32 (numpy's float32 log/cos/sqrt: may differ from
    the C library's by a few ulp, so compare with a tolerance)."""
    r = philox_seed_ctr(seed, ctr)
    u1 = np.float32(1.0) - u32f(r[0])
    u2 = u32f(r[1])
    return (np.sqrt(np.float32(-2.0) * np.log(u1)) *
            np.cos(np.float32(6.2831853) * u2)).astype(np.float32)


# Random123's kat_vectors for philox4x32_10: (ctr, key, expected out).
KAT = [
    ((0, 0, 0, 0), (0, 0),
     (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    ((0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff),
     (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
     (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
]


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
