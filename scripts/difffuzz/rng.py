"""splitmix64: the fuzzer's deterministic PRNG.

Python's `random` may change between versions; splitmix64 is a few lines of
integer arithmetic, so `--seed N` makes the same program on every Python.
"""

MASK64 = (1 << 64) - 1


def splitmix64(state):
    """One step: returns (new_state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


class Rng:
    """A splitmix64 stream with the helpers the generator needs."""

    def __init__(self, seed):
        # Mix the seed once so that nearby seeds give unrelated streams.
        self.state, _ = splitmix64(seed & MASK64)

    def next64(self):
        self.state, out = splitmix64(self.state)
        return out

    def below(self, n):
        """Uniform integer in [0, n) (n > 0); the modulo bias is negligible."""
        return self.next64() % n

    def int(self, lo, hi):
        """Uniform integer in [lo, hi] (inclusive)."""
        return lo + self.below(hi - lo + 1)

    def chance(self, p):
        """True with probability p."""
        return self.next64() < p * (1 << 64)

    def choice(self, seq):
        seq = list(seq)
        return seq[self.below(len(seq))]

    def weighted(self, pairs):
        """pairs: [(weight, value)]; picks a value by weight."""
        pairs = [(w, v) for w, v in pairs if w > 0]
        total = sum(w for w, _ in pairs)
        x = self.next64() / float(1 << 64) * total
        for w, v in pairs:
            if x < w:
                return v
            x -= w
        return pairs[-1][1]

    def shuffle(self, seq):
        seq = list(seq)
        for i in range(len(seq) - 1, 0, -1):
            j = self.below(i + 1)
            seq[i], seq[j] = seq[j], seq[i]
        return seq

    def fork(self):
        """An independent stream (for parts that must not shift the rest)."""
        return Rng(self.next64())
