"""Numeric semantics of TDSL operations, with an error bound for each value.

Every value is a `Val`: a numpy array in the storage of its type (see
dtypes), the static type, and `e`, a per-element bound on how far any
correct implementation may be from the reference value (0: every
configuration must produce exactly this value).

Integer operations are exact and wrap; division truncates and `%` is C's
remainder. A float operation is exact (e = 0) when the reference can prove
that no rounding happens (the float64 result is exact and representable in
the type, and for sums and products every order of evaluation is exact);
otherwise it adds half an ulp and propagates the operands' bounds to first
order, plus a few ulp per transcendental function (CPU math and libdevice
are not correctly rounded). Bounds are for |implementation - exact value|;
the oracle allows twice that (reference and implementation both deviate)
times a safety factor.

An operation that would be undefined or an error (integer division by zero,
INT_MIN / -1, which tdslc reports at run time, while INT_MIN % -1 is 0; a
float-to-int conversion out of range, log of a negative number), that
leaves the safe range (overflow, subnormals, NaN), whose result depends on
a rounding the bound cannot decide (floor, a comparison or a conversion to
int of a value too close to a step), or that rounds in exact mode raises
`UB`: the generator then rewrites or drops the expression.
"""
import warnings

import numpy as np

from . import dtypes as D

warnings.filterwarnings('ignore', category=RuntimeWarning)

# Extra ulps allowed for a transcendental function (CPU math, libdevice and
# numpy differ by a few ulp), and the safety factor of every bound.
TRANSCENDENTAL_ULPS = 8
SAFETY = 2.0


class UB(Exception):
    """This operation must not be emitted with these operands."""


class Val:
    """A value: `a` (storage array), `e` (float64 error bounds or None when
    exact), `dtype` (scalar type name) and `t` (static types.Type or None)."""
    __slots__ = ('a', 'e', 'dtype', 't')

    def __init__(self, a, dtype, e=None, t=None):
        self.a = np.asarray(a)
        self.dtype = dtype
        self.e = None if e is None or not np.any(e) else np.broadcast_to(
            np.asarray(e, np.float64), self.a.shape).copy()
        self.t = t

    @property
    def err(self):
        return np.zeros(self.a.shape) if self.e is None else self.e

    @property
    def exact(self):
        return self.e is None

    def with_type(self, t):
        return Val(self.a, self.dtype, self.e, t)

    def __repr__(self):
        return 'Val(%s %r%s)' % (self.dtype, self.a.tolist(), '' if self.e is None else ' +-%r' % self.e.tolist())


class Semantics:
    """The operations; `exact` mode refuses any value with a nonzero bound."""

    def __init__(self, exact):
        self.exact_mode = exact

    # ---------------------------------------------------------------- checks

    def finish(self, a, dtype, e=None):
        """Builds the result Val after checking the safe range of floats."""
        a = np.asarray(a)
        if D.sc(dtype).is_float:
            a = np.asarray(a, np.float64)
            if not np.all(np.isfinite(a)):
                raise UB('not finite')
            mag = np.abs(a)
            if np.any(mag > D.FLOAT_LIMIT[dtype]):
                raise UB('too large')
            if np.any((mag > 0) & (mag < D.FLOAT_TINY[dtype])):
                raise UB('too small')
            if e is not None:
                e = np.broadcast_to(np.asarray(e, np.float64), a.shape)
                if not np.all(np.isfinite(e)) or np.any(e > 2.0 ** -6 * np.maximum(mag, 1.0)):
                    raise UB('too imprecise')
                if self.exact_mode and np.any(e > 0):
                    raise UB('inexact')
        else:
            e = None
            a = a.astype(D.sc(dtype).storage)
        return Val(a, dtype, e)

    def rounded(self, dtype, r64, exact64=True):
        """Rounds float64 results to `dtype`; returns (values, rounding bound):
        0 where the float64 result was exact and is representable."""
        r = D.round_to(dtype, r64)
        ok = np.asarray(exact64) & (r == r64)
        return r, np.where(ok, 0.0, D.sc(dtype).u * np.abs(r))

    @staticmethod
    def margin(x, e):
        """How far a decision on x must be from its step for bound e."""
        return 2 * SAFETY * e

    # ------------------------------------------------------------ literals

    def const(self, dtype, value):
        """A literal (a number or nested lists); ints wrap to their width."""
        s = D.sc(dtype)
        if s.is_float:
            v = np.asarray(value, np.float64)
            r = D.round_to(dtype, v)
            if np.any(r != v):
                raise UB('literal not representable')
            return self.finish(r, dtype)
        if s.is_bool:
            return Val(np.asarray(value, np.bool_), dtype)
        wrap = np.vectorize(lambda x: int(x) % (1 << s.bits), otypes=[object])
        bits = np.asarray(wrap(np.asarray(value, dtype=object)), dtype=object)
        return Val(bits.astype(np.uint64).astype(s.storage), dtype)

    # --------------------------------------------------------- arithmetic

    def binary(self, op, x, y):
        if op in ('+', '-', '*', '/', '%'):
            return self.arith(op, x, y)
        if op in ('==', '!=', '<', '<=', '>', '>='):
            return self.compare(op, x, y)
        if op in ('&&', '||'):
            f = np.logical_and if op == '&&' else np.logical_or
            return Val(f(x.a, y.a), 'i1')
        raise ValueError(op)

    def arith(self, op, x, y):
        dt = x.dtype
        s = D.sc(dt)
        if s.is_float:
            return self.float_arith(op, x, y)
        a, b = x.a, y.a
        if op == '+':
            return self.finish(a + b, dt)
        if op == '-':
            return self.finish(a - b, dt)
        if op == '*':
            return self.finish(a * b, dt)
        if np.any(b == 0):
            raise UB('integer division by zero')
        if s.is_signed:
            wraps = (a == s.lo) & (b == -1)
            if op == '/' and np.any(wraps):
                raise UB('INT_MIN / -1')          # a run-time error in tdslc
            if op == '%' and np.any(wraps):       # INT_MIN % -1 is 0
                r = self.arith('%', Val(np.where(wraps, 0, a).astype(s.storage), dt),
                               Val(np.broadcast_to(b, np.broadcast(a, b).shape), dt))
                return self.finish(np.where(wraps, 0, r.a), dt)
            q = a // b
            r = a - q * b
            q = np.where((r != 0) & ((a < 0) != (b < 0)), q + 1, q)
            if op == '/':
                return self.finish(q, dt)
            return self.finish(a - q * b, dt)
        return self.finish(a // b if op == '/' else a % b, dt)

    def float_arith(self, op, x, y):
        dt = x.dtype
        a, b = np.asarray(x.a, np.float64), np.asarray(y.a, np.float64)
        ea, eb = x.err, y.err
        if op in ('+', '-'):
            bb = b if op == '+' else -b
            r64 = a + bb
            # TwoSum: the float64 sum is exact iff its error term is zero.
            z = r64 - a
            exact64 = ((a - (r64 - z)) + (bb - z)) == 0
            r, rnd = self.rounded(dt, r64, exact64)
            return self.finish(r, dt, ea + eb + rnd)
        if op == '*':
            r64 = a * b
            exact64 = D.sigbits(a) + D.sigbits(b) <= 53
            r, rnd = self.rounded(dt, r64, exact64)
            return self.finish(r, dt, np.abs(a) * eb + np.abs(b) * ea + ea * eb + rnd)
        if op == '/':
            if np.any(np.abs(b) <= self.margin(b, eb)) or np.any(b == 0):
                raise UB('division by (almost) zero')
            r64 = a / b
            exact64 = (D.sigbits(r64) + D.sigbits(b) <= 53) & (r64 * b == a)
            r, rnd = self.rounded(dt, r64, exact64)
            # a correctly rounded or 2-ulp division (div.approx on GPUs)
            rnd = np.where(rnd > 0, 2 * rnd, 0)
            prop = (ea + np.abs(r64) * eb) / (np.abs(b) - eb)
            return self.finish(r, dt, prop + rnd)
        if op == '%':
            if np.any(b == 0):
                raise UB('float remainder by zero')
            if x.e is not None or y.e is not None:
                raise UB('remainder of an approximate value')
            r = np.fmod(a, b)            # exact in IEEE arithmetic
            return self.finish(r, dt)
        raise ValueError(op)

    def compare(self, op, x, y):
        a, b = x.a, y.a
        if D.sc(x.dtype).is_float:
            e = x.err + y.err
            if np.any((e > 0) & (np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)) <= self.margin(a, e))):
                raise UB('comparison too close to call')
        f = {'==': np.equal, '!=': np.not_equal, '<': np.less, '<=': np.less_equal,
             '>': np.greater, '>=': np.greater_equal}[op]
        return Val(f(a, b), 'i1')

    def neg(self, x):
        if x.dtype == 'i1':
            return Val(np.logical_not(x.a), 'i1')
        if D.sc(x.dtype).is_float:
            return self.finish(-np.asarray(x.a, np.float64), x.dtype, x.e)
        return self.finish(np.negative(x.a), x.dtype)

    def select(self, c, x, y):
        a = np.where(c.a, x.a, y.a)
        e = None
        if x.e is not None or y.e is not None:
            e = np.where(c.a, x.err, y.err)
        return self.finish(a, x.dtype, e)

    # --------------------------------------------------------- conversions

    def cast(self, to, x):
        frm = x.dtype
        if frm == to:
            return x
        sf, st = D.sc(frm), D.sc(to)
        if sf.is_bool:                       # false -> 0, true -> 1
            return self.finish(x.a.astype(np.float64 if st.is_float else st.storage), to)
        if sf.is_float:
            v, e = np.asarray(x.a, np.float64), x.err
            if st.is_float:
                r, rnd = self.rounded(to, v)
                return self.finish(r, to, e + rnd)
            if st.is_bool:
                if np.any((e > 0) & (np.abs(v) <= self.margin(v, e))):
                    raise UB('i1 of a value too close to 0')
                return Val(v != 0, 'i1')
            t = np.trunc(v)
            if to == 'u64':
                bad = (v < 0) | (t >= 2.0 ** 63)
            else:
                bad = (t < st.lo) | (t > st.hi) | (t >= 2.0 ** 63)
            if np.any(bad):
                raise UB('float to %s out of range' % to)
            frac = np.abs(v - np.round(v))
            if np.any((e > 0) & ((frac <= self.margin(v, e)) & (np.abs(v) >= 0.5))):
                raise UB('conversion to int too close to a step')
            return self.finish(t.astype(np.int64).astype(st.storage), to)
        # from an integer
        if st.is_bool:
            return Val(x.a != 0, 'i1')
        if st.is_int:
            return self.finish(x.a.astype(st.storage), to)
        # integer to float: exact when the value has few enough bits
        a = x.a
        v = a.astype(np.float64)
        small = (a.astype(np.float64) < 2.0 ** 62) & (a.astype(np.float64) > -2.0 ** 62)
        back = np.where(small, v, 0).astype(np.int64)
        exact64 = small & (back == np.where(small, a, 0).astype(np.int64))
        r, rnd = self.rounded(to, v, exact64)
        return self.finish(r, to, np.where(exact64, rnd, 2 * st.u * np.abs(r)))

    # ----------------------------------------------------------- built-ins

    def math1(self, fn, x):
        dt = x.dtype
        if fn == 'abs':
            if D.sc(dt).is_float:
                return self.finish(np.abs(np.asarray(x.a, np.float64)), dt, x.e)
            s = D.sc(dt)
            if s.is_signed and np.any(x.a == s.lo):
                raise UB('abs(INT_MIN)')
            return self.finish(np.abs(x.a) if s.is_signed else x.a, dt)
        v, e = np.asarray(x.a, np.float64), x.err
        if fn in ('floor', 'ceil'):
            if np.any((e > 0) & (np.abs(v - np.round(v)) <= self.margin(v, e))):
                raise UB('floor/ceil too close to an integer')
            return self.finish((np.floor if fn == 'floor' else np.ceil)(v), dt)
        if self.exact_mode:
            raise UB('transcendental in exact mode')
        u = D.sc(dt).u
        k = TRANSCENDENTAL_ULPS * u
        if fn == 'exp':
            if np.any(v > 12):
                raise UB('exp overflow')
            r = np.exp(v)
            prop, slack = r * np.expm1(e), k * r
        elif fn == 'log':
            if np.any(v <= 4 * e) or np.any(v < 2.0 ** -8):
                raise UB('log of a small value')
            r = np.log(v)
            prop, slack = e / (v - e), k * (np.abs(r) + 1)
        elif fn == 'sqrt':
            if np.any(v < 0) or np.any((e > 0) & (v <= 4 * e)):
                raise UB('sqrt of a negative value')
            r = np.sqrt(v)
            prop = np.where(e > 0, e / np.maximum(np.sqrt(np.maximum(v - e, 0)) + r, 1e-300), 0)
            slack = 2 * u * r
        elif fn == 'tanh':
            r = np.tanh(v)
            prop, slack = e, k * (np.abs(r) + 1)
        elif fn == 'sigmoid':
            r = 1.0 / (1.0 + np.exp(-v))
            prop, slack = e / 4, k * (np.abs(r) + 1)
        elif fn in ('sin', 'cos'):
            if np.any(np.abs(v) > 16):
                raise UB('sin/cos of a large argument')
            r = np.sin(v) if fn == 'sin' else np.cos(v)
            prop, slack = e, k * (np.abs(r) + np.abs(v) + 1)
        else:
            raise ValueError(fn)
        rr = D.round_to(dt, r)
        return self.finish(rr, dt, prop + slack + u * np.abs(rr))

    def pow(self, x, y):
        if self.exact_mode:
            raise UB('pow in exact mode')
        dt = x.dtype
        a, b = np.asarray(x.a, np.float64), np.asarray(y.a, np.float64)
        ea, eb = x.err, y.err
        if np.any(a < 2.0 ** -4) or np.any(a <= 4 * ea) or np.any(np.abs(b) > 4):
            raise UB('pow out of its safe domain')
        r = np.power(a, b)
        la = np.abs(np.log(a))
        prop = r * (np.abs(b) * ea / (a - ea) + la * eb) * 1.01
        u = D.sc(dt).u
        rr = D.round_to(dt, r)
        slack = TRANSCENDENTAL_ULPS * u * np.abs(r) * (1 + np.abs(b) * la) + u * np.abs(rr)
        return self.finish(rr, dt, prop + slack)

    def maxmin(self, fn, x, y):
        f = np.maximum if fn == 'max' else np.minimum
        e = None
        if x.e is not None or y.e is not None:
            e = np.maximum(x.err, y.err)
        return self.finish(f(x.a, y.a), x.dtype, e)

    # ---------------------------------------------------------- reductions

    def reduce(self, kind, x, axis=None, keepdims=False):
        """kind: 'sum' | 'prod' | 'max' | 'min' over `axis` (None: all)."""
        dt = x.dtype
        s = D.sc(dt)
        if x.a.size == 0:
            raise UB('reduction of an empty tensor')
        if not s.is_float:
            f = {'sum': np.sum, 'prod': np.prod, 'max': np.max, 'min': np.min}[kind]
            kw = {'dtype': s.storage} if kind in ('sum', 'prod') else {}
            return self.finish(f(x.a, axis=axis, keepdims=keepdims, **kw), dt)
        v, e = np.asarray(x.a, np.float64), x.err
        n = v.size if axis is None else np.prod([v.shape[a] for a in np.atleast_1d(axis)])
        if kind in ('max', 'min'):
            f = np.max if kind == 'max' else np.min
            return self.finish(f(v, axis=axis, keepdims=keepdims), dt,
                               np.max(e, axis=axis, keepdims=keepdims) if x.e is not None else None)
        if kind == 'sum':
            return self.float_sum(dt, v, e, axis, keepdims, n)
        # product: exact when every factor is an integer and every partial
        # product stays below 2^p (then any order is exact).
        r64 = np.prod(v, axis=axis, keepdims=keepdims)
        big = np.prod(np.maximum(np.abs(v), 1.0), axis=axis, keepdims=keepdims)
        ints = np.all((v == np.trunc(v)), axis=axis, keepdims=keepdims)
        exact = ints & (big < 2.0 ** s.bits) & np.all(e == 0, axis=axis, keepdims=keepdims)
        r = D.round_to(dt, r64)
        bound = np.prod(np.abs(v) + e, axis=axis, keepdims=keepdims) * (1 + 2 * s.u) ** n - np.abs(r64)
        return self.finish(r, dt, np.where(exact, 0.0, np.maximum(bound, s.u * np.abs(r))))

    def float_sum(self, dt, v, e, axis, keepdims, n):
        s = D.sc(dt)
        r64 = np.sum(v, axis=axis, keepdims=keepdims)
        mag = np.sum(np.abs(v), axis=axis, keepdims=keepdims)
        # Exact in any order when all terms are multiples of 2^low and the
        # sum of magnitudes is below 2^(p + low).
        low = np.where(v == 0, 10 ** 6, D.low_exponent(v))
        low = np.min(low, axis=axis, keepdims=keepdims)
        low = np.where(low == 10 ** 6, 0, low)
        exact = (mag < np.ldexp(1.0, np.minimum(s.bits, 52) + low)) & \
            np.all(e == 0, axis=axis, keepdims=keepdims)
        r = D.round_to(dt, r64)
        bound = np.sum(e, axis=axis, keepdims=keepdims) + (n + 1) * s.u * mag
        return self.finish(r, dt, np.where(exact, 0.0, bound))

    def matmul(self, x, y):
        """a @ b for 2-D @ 2-D, 2-D @ 1-D and 1-D @ 2-D."""
        a2 = x.a if x.a.ndim == 2 else x.a[None, :]
        b2 = y.a if y.a.ndim == 2 else y.a[:, None]
        ea = x.err if x.a.ndim == 2 else x.err[None, :]
        eb = y.err if y.a.ndim == 2 else y.err[:, None]
        prods = self.arith('*', Val(a2[:, :, None], x.dtype, ea[:, :, None]),
                           Val(b2[None, :, :], y.dtype, eb[None, :, :]))
        r = self.reduce('sum', prods, axis=1)
        a = r.a
        e = r.e
        if x.a.ndim == 1:
            a, e = a[0], None if e is None else e[0]
        if y.a.ndim == 1:
            a, e = a[..., 0], None if e is None else e[..., 0]
        return Val(a, x.dtype, e)
