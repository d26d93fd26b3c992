"""The reference interpreter: static types and values of a program tree.

It checks a program as the front end does (tdtypes: broadcasting, index
ranges, exact types of carried names, call unification) and runs it with
the semantics of `sem`, so it knows the shape, value and error bound of
every expression. The generator calls it on each new piece of program; the
reducer calls it on every candidate. A rule broken raises `SemaError`, an
operation that must not run raises `sem.UB`; both mean "not this program".

Index notation is evaluated vectorized: each index variable owns an axis of
an index space (output indices first, then one axis per reduction index),
subscripts are numpy fancy indexing, and a reduction reduces its axes. An
element or row update (`A[k, j] = e`) is index notation with positions:
e is computed from the old value, and written into a copy of it.
`parallel for` bodies run once per iteration, with scalar values.
"""
import itertools

import numpy as np

from . import dtypes as D
from . import rand
from .rng import Rng
from .sem import UB, Val
from .tdtypes import Dim, SemaError, Type, broadcast, matmul_type
from .tree import Call, Dec, Do, For, IDef, If, Index, Let, Lit, Red, SizeLit, Str, TypeArg, Update, Var

MAX_AXES = 8
STEP_LIMIT = 400000

# --------------------------------------------------------------- literal data

DOMAINS = ('small', 'wide', 'k8', 'unit', 'bool', 'any', 'dec')


def draw_values(rng, dtype, domain, n):
    """n values of `dtype` from a value domain (Python numbers)."""
    s = D.sc(dtype)
    out = []
    for _ in range(n):
        if s.is_bool:
            out.append(rng.chance(0.5))
        elif s.is_int:
            if domain == 'wide' and rng.chance(0.5):
                big = rng.choice([s.hi, s.hi - 1, s.lo + 1, s.lo, 2 ** 30, 3 ** 19])
                out.append(min(max(big, s.lo), s.hi))
            else:
                lo = 0 if dtype == 'u64' else -9
                out.append(rng.int(lo, 9))
        else:
            if domain == 'unit':
                out.append(rng.int(16, 128) / 64.0)
            elif domain == 'k8':
                out.append(rng.int(-32, 32) / 8.0)
            elif domain == 'any':
                out.append(rng.int(-256, 256) / 64.0)
            elif domain == 'dec':            # short decimals: 0.1, -2.7
                out.append(rng.int(-40, 40) / 10.0)
            else:
                out.append(float(rng.int(-6, 6)))
    return out


def literal_data(node, sizes, raw=False):
    """The contents of a TLit or Load node for the current size table
    (`raw`: the numbers drawn, not yet rounded to the type)."""
    shape = tuple(sizes[s] for s in node.sids)
    n = int(np.prod(shape)) if shape else 1
    vals = draw_values(Rng(node.seed), node.dtype, node.domain, n)
    if raw:
        return np.array(vals, dtype=object).reshape(shape)
    return values_array(node.dtype, vals, shape)


def values_array(dtype, vals, shape):
    """Python numbers -> a reference array of `dtype` (floats rounded to it,
    integers wrapped to its width)."""
    s = D.sc(dtype)
    if s.is_float:
        arr = D.round_to(dtype, np.array(vals, np.float64))
    elif s.is_bool:
        arr = np.array(vals, np.bool_)
    else:
        arr = np.array([v % (1 << s.bits) for v in vals], dtype=np.uint64).astype(s.storage)
    return arr.reshape(shape)


# ----------------------------------------------------------------- stdlib

def _sig(params, result):
    return ([(n, d, None if dims is None else dims.split(',')) for n, d, dims in params],
            None if result is None else (result[0], None if result[1] is None else result[1].split(',')))


STDLIB = {
    'math.dot': _sig([('a', 'f32', 'N'), ('b', 'f32', 'N')], ('f32', None)),
    'math.norm': _sig([('a', 'f32', 'N')], ('f32', None)),
    'math.square': _sig([('x', 'f32', None)], ('f32', None)),
    'math.clamp': _sig([('x', 'f32', None), ('lo', 'f32', None), ('hi', 'f32', None)], ('f32', None)),
    'math.clampi': _sig([('x', 'i64', None), ('lo', 'i64', None), ('hi', 'i64', None)], ('i64', None)),
    'math.lerp': _sig([('a', 'f32', None), ('b', 'f32', None), ('t', 'f32', None)], ('f32', None)),
    'nn.relu_vec': _sig([('x', 'f32', 'N')], ('f32', 'N')),
    'nn.relu': _sig([('x', 'f32', 'M,N')], ('f32', 'M,N')),
    'nn.softmax_vec': _sig([('x', 'f32', 'N')], ('f32', 'N')),
    'nn.dense': _sig([('x', 'f32', 'B,I'), ('w', 'f32', 'I,O'), ('b', 'f32', 'O')], ('f32', 'B,O')),
    'nn.argmax': _sig([('x', 'f32', 'M,N')], ('i64', 'M')),
}


# ------------------------------------------------------------- environment

class Binding:
    """A name's value, kind (var | loop | index | dim), the parallel-for depth
    it was declared at, and what the generator knows of it (gen.Meta)."""
    __slots__ = ('val', 'kind', 'pdepth', 'meta')

    def __init__(self, val, kind, pdepth, meta=None):
        self.val, self.kind, self.pdepth, self.meta = val, kind, pdepth, meta


class Env:
    """A chain of block scopes (each a dict name -> Binding)."""

    def __init__(self, scopes=None, pdepth=0, space=None):
        self.scopes = scopes if scopes is not None else [{}]
        self.pdepth = pdepth
        self.space = space      # the IndexSpace inside index notation

    def push(self, pdepth=None):
        return Env(self.scopes + [{}], self.pdepth if pdepth is None else pdepth, self.space)

    def copy(self):
        return Env([dict(s) for s in self.scopes], self.pdepth, self.space)

    def find(self, name):
        for i in range(len(self.scopes) - 1, -1, -1):
            if name in self.scopes[i]:
                return i, self.scopes[i][name]
        return None, None

    def lookup(self, name):
        _, b = self.find(name)
        if b is None:
            raise SemaError("use of undeclared name '%s'" % name)
        return b

    def declare(self, name, val, kind='var'):
        self.scopes[-1][name] = Binding(val, kind, self.pdepth)

    def assign(self, name, val):
        """A binding statement: the front end's rules for rebinding."""
        i, b = self.find(name)
        if b is None:
            return self.declare(name, val)
        if b.kind != 'var':
            raise SemaError("cannot assign to '%s': it is a %s" % (name, b.kind))
        if b.pdepth < self.pdepth:
            raise SemaError("cannot assign to '%s', declared outside the parallel loop" % name)
        if i == len(self.scopes) - 1:
            self.scopes[i][name] = Binding(val, 'var', b.pdepth, b.meta)
            return
        if join_types(b.val.t, val.t) is None:
            raise SemaError("'%s' has type %r but is assigned %r inside a loop or branch"
                            % (name, b.val.t, val.t))
        self.scopes[i][name] = Binding(val, 'var', b.pdepth, b.meta)

    def names(self):
        seen = {}
        for s in self.scopes:
            seen.update(s)
        return seen


def join_types(a, b):
    """The least type of both (sizes that differ become ?), or None."""
    if a.dtype != b.dtype or a.is_tensor != b.is_tensor or a.rank != b.rank:
        return None
    if not a.is_tensor:
        return a
    return Type(a.dtype, [x if x == y else Dim.dyn() for x, y in zip(a.dims, b.dims)])


def rebound(after, before):
    """(name, type before, type after) of the names of `before` that were
    rebound in `after` (a copy of it run further)."""
    for i, scope in enumerate(before.scopes):
        for name, b in scope.items():
            nb = after.scopes[i].get(name)
            if nb is not None and nb is not b:
                yield name, b.val.t, nb.val.t


def retype(env, types):
    for name, t in types.items():
        i, b = env.find(name)
        if b is not None and b.val.t != t:
            env.scopes[i][name] = Binding(b.val.with_type(t), b.kind, b.pdepth, b.meta)


class IndexSpace:
    """Axes of the index variables of one index-notation definition."""

    def __init__(self):
        self.next_axis = 0

    def take(self):
        if self.next_axis >= MAX_AXES:
            raise UB('too many index axes')
        self.next_axis += 1
        return self.next_axis - 1


def accesses(x, names):
    """(Index node with a named base, index names in scope there) in x."""
    if isinstance(x, Index) and isinstance(x.base, Var):
        yield x, names
    if isinstance(x, Red):
        names = names | set(x.idxs)
    for c in x.children():
        yield from accesses(c, names)


def pad_axes(a):
    """An index-space array (or a 0-d scalar) with all MAX_AXES axes."""
    return a.reshape(a.shape + (1,) * (MAX_AXES - a.ndim))


def axis_array(axis, n):
    shape = [1] * MAX_AXES
    shape[axis] = n
    return np.arange(n, dtype=np.int64).reshape(shape)


# -------------------------------------------------------------- interpreter

class Interp:
    def __init__(self, prog, sem, features=()):
        self.prog = prog
        self.S = sem
        self.features = set(features)
        self.outputs = {}     # path -> Val (saved tensors, in order)
        self.inputs = {}      # path -> numpy array written before the run
        self.steps = 0

    # -- program
    def run(self):
        env = Env()
        self.exec_block(self.prog.main, env)
        return self.outputs

    def exec_block(self, stmts, env):
        for s in stmts:
            self.exec_stmt(s, env)

    def exec_stmt(self, s, env):
        if isinstance(s, Let):
            v = self.eval(s.x, env)
            if v.t.dtype in ('void',):
                raise SemaError('binding to no value')
            if s.ann is not None:
                v = self.annotated(s, v, env)
            env.assign(s.name, v)
        elif isinstance(s, IDef):
            env.assign(s.name, self.index_stmt(s.name, [Var(n) for n in s.idxs], s.x, env))
        elif isinstance(s, Update):
            env.assign(s.name, self.index_stmt(s.name, s.subs, s.x, env))
        elif isinstance(s, Do):
            self.eval(s.x, env)
        elif isinstance(s, For):
            self.exec_for(s, env)
        elif isinstance(s, If):
            self.exec_if(s, env)
        else:
            raise TypeError(s)

    def exec_for(self, s, env):
        """Runs a loop. As the front end does, the types of the names the
        body rebinds are a fixed point: where an iteration gives a name
        another size, the name has `?` there throughout the loop."""
        lo, hi = self.int_scalar(s.lo, env), self.int_scalar(s.hi, env)
        if hi - lo > 64:
            raise UB('long loop')
        if hi <= lo:
            raise UB('a loop without iterations is not type-checked here')
        widened = {}
        for _ in range(9):
            trial = env.copy()
            retype(trial, widened)
            self.iteration(s, trial, lo)
            again = False
            for name, start, end in rebound(trial, env):
                start = widened.get(name, start)
                joined = join_types(start, end) or start
                if joined != start:
                    widened[name] = joined
                    again = True
            if not again:
                break
        for it in range(int(lo), int(hi)):
            retype(env, widened)
            self.iteration(s, env, it)
        retype(env, widened)

    def iteration(self, s, env, it):
        inner = env.push()
        inner.declare(s.var, self.S.finish(np.int64(it), 'i64').with_type(Type('i64')), 'loop')
        self.exec_block(s.body, inner)

    def exec_if(self, s, env):
        """Runs the branch taken; the other one is only type-checked (on a
        copy of the environment). A name either branch rebinds gets the
        join of its types at the end of both."""
        c = self.eval(s.c, env)
        if c.t != Type('i1'):
            raise SemaError('condition must be an i1 scalar, not %r' % c.t)
        if c.a.size != 1:
            raise UB('a branch on a value of index notation')
        taken, other = (s.then, s.els) if bool(c.a) else (s.els, s.then)
        before = env.copy()
        shadow = env.copy()
        if other:
            try:
                self.exec_block(other, shadow.push())
            except UB:
                pass
        if taken:
            self.exec_block(taken, env.push())
        ends = {name: end for name, _, end in rebound(shadow, before)}
        joined = {}
        for name, start, end in rebound(env, before):
            joined[name] = join_types(end, ends.pop(name, start)) or start
        for name, end in ends.items():
            start = before.lookup(name).val.t
            joined[name] = join_types(start, end) or start
        retype(env, joined)

    def annotated(self, s, v, env):
        """`x: T = e`: e's type must be compatible with T, which becomes x's
        type (`g: f32[?] = zeros(f32[1])` lets g change its size later)."""
        want, shape = self.type_arg(s.ann, env, allow_dyn=True)
        if v.t.dtype != want.dtype or v.t.is_tensor != want.is_tensor or v.t.rank != want.rank:
            raise SemaError("'%s' is declared as %r but its value has type %r" % (s.name, want, v.t))
        for d, (have, dim) in enumerate(zip(v.t.dims or (), want.dims or ())):
            if not have.compatible(dim):
                raise SemaError("'%s' is declared as %r but its value has type %r" % (s.name, want, v.t))
            if shape[d] is not None and shape[d] != v.a.shape[d]:
                raise UB('a size that differs from the annotation at run time')
        return v.with_type(want)

    def int_scalar(self, e, env):
        v = self.eval(e, env)
        if v.t.is_tensor or not D.sc(v.t.dtype).is_int:
            raise SemaError('an integer scalar is needed, not %r' % v.t)
        if v.a.size != 1:
            raise UB('a bound from index notation')
        return int(v.a)

    # -- expressions
    def eval(self, e, env):
        self.steps += 1
        if self.steps > STEP_LIMIT:
            raise UB('program too slow to interpret')
        m = getattr(self, 'x_' + type(e).__name__, None)
        if m is None:
            raise SemaError('%s is not a value' % type(e).__name__)
        v = m(e, env)
        assert v.t is not None, e
        return v

    def x_Lit(self, e, env):
        if isinstance(e, Dec):               # the nearest number of its type
            return self.S.finish(D.round_to(e.dtype, e.value), e.dtype).with_type(Type(e.dtype))
        return self.S.const(e.dtype, e.value).with_type(Type(e.dtype))

    x_Dec = x_Lit

    def x_SizeLit(self, e, env):
        return self.S.const('i64', self.prog.sizes[e.sid] + e.delta).with_type(Type('i64'))

    def x_Var(self, e, env):
        return env.lookup(e.name).val

    def x_Str(self, e, env):
        raise SemaError('a string as a value')

    def x_Un(self, e, env):
        x = self.eval(e.x, env)
        if e.op == '!':
            if x.t.dtype != 'i1':
                raise SemaError("'!' needs i1")
            return self.S.neg(x).with_type(x.t)
        if x.t.dtype in ('i1', 'u64'):
            raise SemaError("cannot negate %r" % x.t)
        return self.S.neg(x).with_type(x.t)

    def x_Bin(self, e, env):
        a, b = self.eval(e.a, env), self.eval(e.b, env)
        if a.t.dtype != b.t.dtype:
            raise SemaError('element types differ in %r: %r and %r' % (e.op, a.t, b.t))
        dt = a.t.dtype
        if e.op in ('&&', '||'):
            if dt != 'i1':
                raise SemaError("'%s' needs i1" % e.op)
            t = broadcast(a.t, b.t, 'i1')
        elif e.op in ('==', '!=', '<', '<=', '>', '>='):
            if dt == 'i1' and e.op not in ('==', '!='):
                raise SemaError('cannot order i1 values')
            t = broadcast(a.t, b.t, 'i1')
        elif e.op == '@':
            if dt == 'i1':
                raise SemaError("'@' needs numbers")
            t = matmul_type(a.t, b.t)
            if a.a.shape[-1] != b.a.shape[0]:
                raise UB('run-time inner dimension mismatch')
            return self.S.matmul(a, b).with_type(t)
        else:
            if dt == 'i1':
                raise SemaError('arithmetic on i1')
            t = broadcast(a.t, b.t, dt)
        self.check_runtime_broadcast(a, b)
        return self.S.binary(e.op, a, b).with_type(t)

    @staticmethod
    def check_runtime_broadcast(*vals):
        """Tensor dims that are not a static 1 must agree at run time (index
        space arrays of index notation broadcast freely)."""
        tensors = [v for v in vals if v.t.is_tensor]
        if len(tensors) < 2:
            return
        rank = max(v.t.rank for v in tensors)
        for i in range(1, rank + 1):
            sizes = set()
            for v in tensors:
                if v.t.rank >= i and not v.t.dims[-i].is_one():
                    sizes.add(v.a.shape[-i])
            if len(sizes) > 1:
                raise UB('run-time shape mismatch')

    def x_Sel(self, e, env):
        c, a, b = self.eval(e.c, env), self.eval(e.a, env), self.eval(e.b, env)
        if c.t.dtype != 'i1':
            raise SemaError('condition of ?: must be i1')
        if a.t.dtype != b.t.dtype:
            raise SemaError('?: branches differ')
        t = broadcast(c.t, broadcast(a.t, b.t, a.t.dtype), a.t.dtype)
        self.check_runtime_broadcast(c, a, b)
        return self.S.select(c, a, b).with_type(t)

    def x_Cast(self, e, env):
        x = self.eval(e.x, env)
        return self.S.cast(e.dtype, x).with_type(x.t.with_dtype(e.dtype))

    def x_Index(self, e, env):
        base = self.eval(e.base, env)
        if not base.t.is_tensor:
            raise SemaError('subscript of a scalar')
        if len(e.subs) != base.t.rank:
            raise SemaError('wrong number of subscripts')
        subs = []
        for d, s in enumerate(e.subs):
            v = self.eval(s, env)
            if v.t.is_tensor or not D.sc(v.t.dtype).is_int:
                raise SemaError('a subscript must be an integer scalar')
            if isinstance(s, (Lit, SizeLit)):
                dim = base.t.dims[d]
                if dim.kind == 'static' and int(v.a) >= dim.size:
                    raise SemaError('constant subscript out of range')
            idx = v.a.astype(np.int64) if v.t.dtype != 'u64' else v.a
            n = base.a.shape[d]
            if np.any((idx < 0) | (idx >= n)):
                raise UB('subscript out of range')
            subs.append(idx.astype(np.int64))
        a = base.a[tuple(subs)]
        err = None if base.e is None else base.e[tuple(subs)]
        return Val(a, base.dtype, err, Type(base.dtype))

    def x_TLit(self, e, env):
        data = literal_data(e, self.prog.sizes)
        t = Type(e.dtype, [Dim.static(self.prog.sizes[s]) for s in e.sids])
        return self.S.finish(data, e.dtype).with_type(t)

    def x_Load(self, e, env):
        data = literal_data(e, self.prog.sizes)
        path = 'in%d.npy' % e.k
        self.inputs[path] = D.to_npy(e.dtype, data)
        if e.dtype == 'bf16':
            raise SemaError('bf16 cannot be loaded')
        dims = [Dim.dyn() if dyn else Dim.static(self.prog.sizes[s]) for s, dyn in zip(e.sids, e.dyn)]
        return self.S.finish(data, e.dtype).with_type(Type(e.dtype, dims))

    def x_PFor(self, e, env):
        los, his, dims = [], [], []
        for r in e.ranges:
            lo, hi = self.int_scalar(r.lo, env), self.int_scalar(r.hi, env)
            if hi < lo:
                raise UB('negative extent')
            los.append(lo)
            his.append(hi)
            dims.append(self.range_extent(r, lo, hi, env))
        shape = tuple(h - l for l, h in zip(los, his))
        if int(np.prod(shape)) > 4096:
            raise UB('parallel for too large')
        vals, errs, ytype = [], [], None
        for point in itertools.product(*[range(l, h) for l, h in zip(los, his)]):
            inner = env.push(env.pdepth + 1)
            for r, p in zip(e.ranges, point):
                inner.declare(r.var, self.S.finish(np.int64(p), 'i64').with_type(Type('i64')), 'loop')
            self.exec_block(e.body, inner)
            y = self.eval(e.y, inner)
            if y.t.is_tensor:
                raise SemaError('yield of a tensor')
            if ytype is None:
                ytype = y.t
            vals.append(y.a)
            errs.append(y.err)
        if ytype is None:
            # Never ran: the type of the yield is still needed.
            raise UB('parallel for without iterations')
        dt = ytype.dtype
        arr = np.array(vals, dtype=D.sc(dt).storage).reshape(shape)
        err = np.array(errs, np.float64).reshape(shape)
        v = Val(arr, dt, err if np.any(err) else None)
        if e.reduce is None:
            return self.S.finish(v.a, dt, v.e).with_type(Type(dt, dims))
        if dt == 'i1':
            raise SemaError('reduce of i1')
        kind = {'+': 'sum', '*': 'prod', 'max': 'max', 'min': 'min'}[e.reduce]
        return self.S.reduce(kind, v).with_type(Type(dt))

    def range_extent(self, r, lo, hi, env):
        """Checker::rangeExtent: static for two literals, the dimension of
        `0..N` (a dimension name) or `0..dim(t, k)`, else ?."""
        lits = (Lit, SizeLit)
        if isinstance(r.lo, lits) and isinstance(r.hi, lits) and hi > lo:
            return Dim.static(hi - lo)
        if not (isinstance(r.lo, Lit) and r.lo.value == 0):
            return Dim.dyn()
        if isinstance(r.hi, Var) and env.lookup(r.hi.name).kind == 'dim':
            return Dim.sym(r.hi.name)
        if isinstance(r.hi, Call) and r.hi.fn == 'dim' and len(r.hi.args) == 2 and \
                isinstance(r.hi.args[1], Lit):
            t = self.eval(r.hi.args[0], env).t
            k = int(r.hi.args[1].value)
            if t.is_tensor and k < t.rank:
                return t.dims[k]
        return Dim.dyn()

    def x_Call(self, e, env):
        if e.fn in STDLIB:
            return self.call_stdlib(e, env)
        fn = self.prog.fn(e.fn)
        if fn is not None:
            return self.call_user(fn, e, env)
        m = getattr(self, 'b_' + e.fn, None)
        if m is None:
            raise SemaError('unknown function %s' % e.fn)
        return m(e, env)

    # -- index notation
    def index_stmt(self, name, subs, x, env):
        """`name[s0, s1, ...] = x` as Checker::checkIndexDef decides it: a
        subscript that is a name not bound here is a new index, any other a
        position. Without positions this defines (or rebinds) name by index
        notation, each index ranging over what it subscripts directly in x;
        an index x does not range takes the existing tensor's extent, which
        makes the statement an update of every element. With positions it
        updates the existing tensor: the elements at those positions (all of
        them along index dimensions) get x, computed from the old value."""
        idxs, dim_of = [], {}
        for d, sub in enumerate(subs):
            if isinstance(sub, Var) and env.find(sub.name)[1] is None:
                if sub.name in dim_of:
                    raise SemaError("index variable '%s' appears twice" % sub.name)
                idxs.append(sub.name)
                dim_of[sub.name] = d
        positions = {d: sub for d, sub in enumerate(subs) if d not in dim_of.values()}
        _, target = env.find(name)
        tval = target.val if target is not None else None
        is_update = bool(positions)
        if is_update and (tval is None or not tval.t.is_tensor or tval.t.rank != len(subs)):
            raise SemaError("'%s' cannot be updated with %d subscripts" % (name, len(subs)))
        pos = {d: self.position(sub, tval, d, env) for d, sub in positions.items()}
        known = {}
        if is_update:                 # an update's index ranges over x's extent
            known = {n: (tval.a.shape[d], tval.t.dims[d]) for n, d in dim_of.items()}
        extents = self.index_ranges(idxs, x, env, known=known, partial=True)
        missing = [n for n in idxs if n not in extents]
        if missing:
            if tval is None or not tval.t.is_tensor or tval.t.rank != len(subs):
                raise SemaError("cannot infer the range of index '%s'" % missing[0])
            is_update = True
            for n in idxs:
                d = dim_of[n]
                if n not in missing and (extents[n][0] != tval.a.shape[d] or
                                         not extents[n][1].compatible(tval.t.dims[d])):
                    # tdslc gives the definition x's type: keep the extents equal
                    raise UB('an index ranged by the right-hand side and by the target differ')
                extents[n] = (tval.a.shape[d], tval.t.dims[d])
        inner = env.push()
        inner.space = IndexSpace()
        for n in idxs:
            ax = inner.space.take()
            inner.declare(n, Val(axis_array(ax, extents[n][0]), 'i64', None, Type('i64')), 'index')
        v = self.eval(x, inner)
        if v.t.is_tensor or v.t.dtype == 'void':
            raise SemaError('the right-hand side of an index definition must be a scalar')
        shape = [extents[n][0] for n in idxs]
        full = shape + [1] * (MAX_AXES - len(shape))
        a = np.broadcast_to(pad_axes(v.a), full).reshape(shape)
        err = None if v.e is None else np.broadcast_to(pad_axes(v.e), full).reshape(shape)
        if not is_update:
            dims = [extents[n][1] for n in idxs]
            return self.S.finish(a.copy(), v.dtype, None if err is None else err.copy()) \
                .with_type(Type(v.dtype, dims))
        if v.dtype != tval.dtype:
            raise SemaError("elements of '%s' (%r) cannot be set to a %s" % (name, tval.t, v.dtype))
        where = tuple(pos[d] if d in pos else slice(None) for d in range(len(subs)))
        new = np.array(tval.a, copy=True)
        new[where] = a
        new_err = None
        if err is not None or tval.e is not None:
            new_err = np.array(tval.err, copy=True)
            new_err[where] = 0.0 if err is None else err
        return self.S.finish(new, tval.dtype, new_err).with_type(tval.t)

    def position(self, sub, tval, d, env):
        """A position of an update: an integer scalar computed before the
        update, checked at run time (a literal against a static size)."""
        v = self.eval(sub, env)
        if v.t.is_tensor or not D.sc(v.t.dtype).is_int:
            raise SemaError('a position must be an integer scalar')
        if v.a.size != 1:
            raise UB('a position from index notation')
        k = int(v.a)
        dim = tval.t.dims[d]
        if isinstance(sub, (Lit, SizeLit)) and dim.kind == 'static' and k >= dim.size:
            raise SemaError('constant position out of range')
        if not 0 <= k < tval.a.shape[d]:
            raise UB('position out of range')
        return k

    def index_ranges(self, idxs, x, env, extra_idx=(), known=None, partial=False):
        """Extent (run time, static Dim) of each index from its direct
        accesses in x, as Checker::checkIndex infers them, starting from
        `known` (an update's indices); `partial`: leave out the indices x
        does not range instead of failing."""
        per_sub = True          # any subscript that is exactly the index
        known = dict(known or {})
        for node, idx_names in accesses(x, set(idxs) | set(extra_idx)):
            direct = all((isinstance(s, Var) and s.name in idx_names) or isinstance(s, Lit)
                         for s in node.subs)
            if not direct and not per_sub:
                continue
            b = env.lookup(node.base.name)
            base = b.val
            if not base.t.is_tensor or base.t.rank != len(node.subs):
                continue
            for d, sub in enumerate(node.subs):
                if not (isinstance(sub, Var) and sub.name in idxs):
                    continue
                n, dim = base.a.shape[d], base.t.dims[d]
                if sub.name not in known:
                    known[sub.name] = (n, dim)
                    continue
                n0, dim0 = known[sub.name]
                if not dim0.compatible(dim):
                    raise SemaError("index '%s' ranges over %r and %r" % (sub.name, dim0, dim))
                if n0 != n:
                    raise UB('index ranges differ at run time')
                if dim0.kind == 'dyn' and dim.kind != 'dyn':
                    known[sub.name] = (n, dim)
        for name in idxs:
            if name not in known and not partial:
                raise SemaError("cannot infer the range of index '%s'" % name)
        return known

    def x_Red(self, e, env):
        space = env.space
        if space is None:
            raise SemaError('a reduction outside index notation')
        outer = [n for n, b in env.names().items() if b.kind == 'index']
        extents = self.index_ranges(e.idxs, e.body, env, extra_idx=outer)
        inner = env.push()
        axes = []
        for name in e.idxs:
            if name in outer:
                raise SemaError("index variable '%s' is already in use" % name)
            ax = space.take()
            axes.append(ax)
            inner.declare(name, Val(axis_array(ax, extents[name][0]), 'i64', None, Type('i64')), 'index')
        v = self.eval(e.body, inner)
        if v.t.is_tensor or v.t.dtype == 'i1':
            raise SemaError('a reduction reduces numeric scalars')
        a = pad_axes(v.a)
        full = list(a.shape)
        for name, ax in zip(e.idxs, axes):
            full[ax] = extents[name][0]
        a = np.broadcast_to(a, full)
        err = None if v.e is None else np.broadcast_to(pad_axes(v.e), full)
        r = self.S.reduce(e.kind, Val(a, v.dtype, err), axis=tuple(axes), keepdims=True)
        return r.with_type(Type(v.dtype))

    # -- calls
    def bind_call(self, name, params, result, args):
        """Checker's call rules: returns (callee types of params, bound
        symbols -> (run-time size, Dim), result type at the call site)."""
        if len(args) != len(params):
            raise SemaError('wrong number of arguments to %s' % name)
        bound = {}
        for (pname, pdt, pdims), a in zip(params, args):
            if a.t.dtype != pdt or a.t.is_tensor != (pdims is not None) or a.t.rank != len(pdims or ()):
                raise SemaError('argument %s of %s must have type %s%s, not %r'
                                % (pname, name, pdt, pdims, a.t))
            for d, pd in enumerate(pdims or ()):
                ad, n = a.t.dims[d], a.a.shape[d]
                if pd.isdigit():
                    if not Dim.static(int(pd)).compatible(ad):
                        raise SemaError('static dimension mismatch in call to %s' % name)
                    if n != int(pd):
                        raise UB('run-time size differs from the signature')
                    continue
                if pd == '?':
                    continue
                if pd not in bound:
                    bound[pd] = (n, ad)
                    continue
                n0, d0 = bound[pd]
                if not d0.compatible(ad):
                    raise SemaError("dimension '%s' of '%s' differs" % (pd, name))
                if n0 != n:
                    raise UB("shape mismatch in call to '%s'" % name)
                if d0.kind == 'dyn' and ad.kind != 'dyn':
                    bound[pd] = (n0, ad)
        rt = None
        if result is not None:
            rdt, rdims = result
            if rdims is None:
                rt = Type(rdt)
            else:
                dims = []
                for pd in rdims:
                    if pd.isdigit():
                        dims.append(Dim.static(int(pd)))
                    elif pd in bound:
                        dims.append(bound[pd][1])
                    else:
                        dims.append(Dim.dyn())
                rt = Type(rdt, dims)
        return bound, rt

    @staticmethod
    def param_type(dtype, dims):
        if dims is None:
            return Type(dtype)
        return Type(dtype, [Dim.static(int(d)) if d.isdigit() else Dim.dyn() if d == '?' else Dim.sym(d)
                            for d in dims])

    def call_user(self, fn, e, env):
        args = [self.eval(a, env) for a in e.args]
        bound, rt = self.bind_call(fn.name, fn.params, fn.result, args)
        body_env = Env()
        for (pname, pdt, pdims), a in zip(fn.params, args):
            body_env.declare(pname, a.with_type(self.param_type(pdt, pdims)))
        for sym, (n, _) in bound.items():
            body_env.declare(sym, self.S.finish(np.int64(n), 'i64').with_type(Type('i64')), 'dim')
        self.exec_block(fn.body, body_env)
        if fn.result is None:
            return Val(np.zeros(()), 'i1', None, Type('void'))
        r = self.eval(fn.ret, body_env)
        want = self.param_type(*fn.result)
        if r.t.dtype != want.dtype or r.t.rank != want.rank or \
                not all(a.compatible(b) for a, b in zip(r.t.dims or (), want.dims or ())):
            raise SemaError('return type %r of %s, declared %r' % (r.t, fn.name, want))
        return r.with_type(rt)

    def call_stdlib(self, e, env):
        params, result = STDLIB[e.fn]
        args = [self.eval(a, env) for a in e.args]
        _, rt = self.bind_call(e.fn, params, result, args)
        if e.fn.startswith('math.') and e.fn.split('.')[0] not in self.prog.imports:
            raise SemaError('module math is not imported')
        if e.fn.startswith('nn.') and 'nn' not in self.prog.imports:
            raise SemaError('module nn is not imported')
        S = self.S
        f32 = lambda v: S.const('f32', v)    # noqa: E731
        name = e.fn.split('.')[1]
        if name == 'dot':
            r = S.reduce('sum', S.arith('*', args[0], args[1]))
        elif name == 'norm':
            r = S.math1('sqrt', S.reduce('sum', S.arith('*', args[0], args[0])))
        elif name == 'square':
            r = S.arith('*', args[0], args[0])
        elif name in ('clamp', 'clampi'):
            r = S.maxmin('min', S.maxmin('max', args[0], args[1]), args[2])
        elif name == 'lerp':
            r = S.arith('+', args[0], S.arith('*', S.arith('-', args[1], args[0]), args[2]))
        elif name in ('relu', 'relu_vec'):
            r = S.maxmin('max', args[0], f32(0.0))
        elif name == 'softmax_vec':
            ex = S.math1('exp', S.arith('-', args[0], S.reduce('max', args[0])))
            r = S.arith('/', ex, S.reduce('sum', ex))
        elif name == 'dense':
            r = S.arith('+', S.matmul(args[0], args[1]), args[2])
        elif name == 'argmax':
            r = self.argmax(args[0])
        else:
            raise SemaError('no model of %s' % e.fn)
        return r.with_type(rt)

    def argmax(self, x):
        v, err = np.asarray(x.a, np.float64), x.err
        best = np.argmax(v, axis=1)
        top = np.max(v, axis=1, keepdims=True)
        close = (top - v <= 2 * self.S.margin(v, err + np.max(err, axis=1, keepdims=True))) & \
            (np.arange(v.shape[1])[None, :] != best[:, None])
        if x.e is not None and np.any(close):
            raise UB('argmax of a near tie')
        return self.S.finish(best.astype(np.int64), 'i64')

    # -- built-ins
    def args(self, e, env, n):
        if len(e.args) != n:
            raise SemaError('%s takes %d arguments' % (e.fn, n))
        return [self.eval(a, env) for a in e.args]

    def math_fn(self, e, env):
        (x,) = self.args(e, env, 1)
        if e.fn == 'abs':
            if x.t.dtype == 'i1':
                raise SemaError('abs of i1')
        elif not D.sc(x.t.dtype).is_float:
            raise SemaError('%s needs a float' % e.fn)
        return self.S.math1(e.fn, x).with_type(x.t)

    b_exp = b_log = b_sqrt = b_tanh = b_sin = b_cos = b_floor = b_ceil = b_sigmoid = b_abs = math_fn

    def b_pow(self, e, env):
        a, b = self.args(e, env, 2)
        if a.t.dtype != b.t.dtype or not D.sc(a.t.dtype).is_float:
            raise SemaError('pow needs floats of one type')
        t = broadcast(a.t, b.t, a.t.dtype)
        self.check_runtime_broadcast(a, b)
        return self.S.pow(a, b).with_type(t)

    def b_max(self, e, env):
        if len(e.args) == 1:
            return self.whole(e, env)
        a, b = self.args(e, env, 2)
        if a.t.dtype != b.t.dtype or a.t.dtype == 'i1':
            raise SemaError('%s needs numbers of one type' % e.fn)
        t = broadcast(a.t, b.t, a.t.dtype)
        self.check_runtime_broadcast(a, b)
        return self.S.maxmin(e.fn, a, b).with_type(t)

    b_min = b_max

    def b_sum(self, e, env):
        return self.whole(e, env)

    def whole(self, e, env):
        (x,) = self.args(e, env, 1)
        if not x.t.is_tensor or x.t.dtype == 'i1':
            raise SemaError('%s(t) needs a numeric tensor' % e.fn)
        return self.S.reduce(e.fn, x).with_type(Type(x.t.dtype))

    def b_dim(self, e, env):
        if len(e.args) != 2 or not isinstance(e.args[1], Lit):
            raise SemaError('dim(t, k) needs a literal k')
        x = self.eval(e.args[0], env)
        k = int(e.args[1].value)
        if not x.t.is_tensor or k >= x.t.rank:
            raise SemaError('dim out of rank')
        return self.S.finish(np.int64(x.a.shape[k]), 'i64').with_type(Type('i64'))

    def type_arg(self, ta, env, allow_dyn=False):
        """A TypeArg: (static Type, run-time shape); with `allow_dyn` (an
        annotation) a dimension may be `?`, whose size is None."""
        if not isinstance(ta, TypeArg):
            raise SemaError('a type argument is needed')
        dims, shape = [], []
        for d in ta.dims:
            if d == '?' and allow_dyn:
                dims.append(Dim.dyn())
                shape.append(None)
            elif isinstance(d, SizeLit):
                n = self.prog.sizes[d.sid] + d.delta
                if n <= 0:
                    raise SemaError('tensor dimension must be a positive integer')
                dims.append(Dim.static(n))
                shape.append(n)
            elif isinstance(d, Var):
                b = env.lookup(d.name)
                if b.kind == 'index':
                    raise SemaError('an index variable as a size')
                if b.val.t.is_tensor or not D.sc(b.val.t.dtype).is_int:
                    raise SemaError('a size must be an integer scalar')
                if b.val.a.size != 1:
                    raise UB('a size from index notation')
                n = int(b.val.a)
                if n < 0:
                    raise UB('negative size')
                dims.append(Dim.sym(d.name) if b.kind == 'dim' else Dim.dyn())
                shape.append(n)
            else:
                raise SemaError('bad dimension in a type argument')
        return Type(ta.dtype, dims if ta.dims else None), tuple(shape)

    def b_zeros(self, e, env):
        t, shape = self.type_arg(e.args[0], env)
        if e.fn == 'ones' and t.dtype == 'i1':
            raise SemaError('ones of i1')
        one = 1 if e.fn == 'ones' else 0
        fill = np.full(shape, one, dtype=np.float64 if D.sc(t.dtype).is_float else D.sc(t.dtype).storage)
        return self.S.finish(fill, t.dtype).with_type(t)

    b_ones = b_zeros

    def b_full(self, e, env):
        if len(e.args) != 2:
            raise SemaError('full(T, v)')
        t, shape = self.type_arg(e.args[0], env)
        v = self.eval(e.args[1], env)
        if v.t != Type(t.dtype):
            raise SemaError('full value must be a %s scalar' % t.dtype)
        a = np.broadcast_to(v.a, shape).copy()
        err = None if v.e is None else np.broadcast_to(v.e, shape).copy()
        return self.S.finish(a, t.dtype, err).with_type(t)

    def b_arange(self, e, env):
        (arg,) = e.args
        if isinstance(arg, TypeArg):
            t, shape = self.type_arg(arg, env)
            if t.rank != 1 or t.dtype == 'i1':
                raise SemaError('arange(T[n])')
            n = shape[0]
            dt, dims = t.dtype, t.dims
        else:
            v = self.eval(arg, env)
            if v.t != Type('i64'):
                raise SemaError('arange(n) needs i64')
            n, dt = int(v.a), 'i64'
            dims = [Dim.static(n) if isinstance(arg, (Lit, SizeLit)) else Dim.dyn()]
        a = np.arange(n, dtype=np.float64 if D.sc(dt).is_float else np.int64)
        if D.sc(dt).is_float:
            return self.S.cast(dt, self.S.finish(a, 'f64')).with_type(Type(dt, dims))
        return self.S.finish(a.astype(D.sc(dt).storage), dt).with_type(Type(dt, dims))

    def b_uniform(self, e, env):
        return self.random(e, env, rand.uniform, 'uniform')

    def b_normal(self, e, env):
        return self.random(e, env, rand.normal, 'normal')

    def random(self, e, env, fn, kind):
        args = list(e.args)
        if args and isinstance(args[0], TypeArg) and args[0].dims:
            t, shape = self.type_arg(args[0], env)
            if t.dtype not in ('f32', 'f64') or len(args) != 2:
                raise SemaError('%s(F[dims], seed)' % kind)
            seed = self.int_scalar(args[1], env)
            ctr = np.arange(int(np.prod(shape)), dtype=np.uint64).reshape(shape)
            dt = t.dtype
        else:
            dt = 'f32'
            if args and isinstance(args[0], TypeArg):
                dt = args[0].dtype
                args = args[1:]
            if dt not in ('f32', 'f64') or len(args) != 2:
                raise SemaError('%s(seed, counter)' % kind)
            seed = self.int_scalar(args[0], env)
            ctr = np.uint64(self.int_scalar(args[1], env) & 0xFFFFFFFFFFFFFFFF)
            t = Type(dt)
        vals = fn(dt, seed, ctr)
        err = rand.normal_tolerance(dt, vals) if kind == 'normal' else None
        if kind == 'normal' and self.S.exact_mode:
            raise UB('normal in exact mode')
        return self.S.finish(vals, dt, err).with_type(t)

    def b_save(self, e, env):
        if len(e.args) != 2 or not isinstance(e.args[0], Str):
            raise SemaError('save("path", t)')
        v = self.eval(e.args[1], env)
        if not v.t.is_tensor:
            raise SemaError('save of a scalar')
        if v.t.dtype == 'bf16':
            raise SemaError('bf16 cannot be saved')
        self.outputs[e.args[0].s] = v
        return Val(np.zeros(()), 'i1', None, Type('void'))


def interpret(prog, exact, features=()):
    """Runs a whole program: (outputs, inputs) or raises SemaError / UB."""
    from .sem import Semantics
    it = Interp(prog, Semantics(exact), features)
    it.run()
    return it.outputs, it.inputs
