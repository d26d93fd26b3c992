"""The program generator: random, well-typed TDSL programs, evaluated while
they are built.

Every candidate piece of program (an expression, a statement) is run by the
reference interpreter in the environment where it will stand; a candidate
that breaks a rule of the front end, or would do something undefined,
inexact (exact mode) or too close to call (approx mode), is rewritten
(a divisor guarded with `?:`, an operator swapped) or replaced, YARPGen
style. So a finished program is valid by construction and its expected
outputs are known.

Shapes are built from a table of sizes drawn first. Each tensor dimension
carries a *key*: the size-table entry it comes from, or a fresh key for a
size computed at run time; element-wise operands and subscripts are chosen
by key, so that shrinking one entry of the size table keeps the program
consistent. A size is written as a literal (static dim), an integer
variable (`n = 4; zeros(f32[n])`, a `?` dim), `dim(t, k)`, a `?` of a
loaded input or a dimension name of a helper's signature.

The builders of element and row updates, the loop kernels made of them,
annotations and names resized in `if` branches are in updates.py, a mixin
of Gen.
"""
import contextlib

import numpy as np

from . import dtypes as D
from .interp import (MAX_AXES, STDLIB, Env, IndexSpace, Interp, axis_array, draw_values,
                     values_array)
from .meta import Ectx, Meta
from .rng import Rng
from .sem import UB, Semantics, Val
from .tdtypes import SemaError, Type
from .tree import (Bin, Call, Cast, Dec, Do, Fn, For, IDef, If, Index, Let, Lit, Load, PFor,
                   Program, Range, Red, Sel, SizeLit, Str, TLit, TypeArg, Un, Var, walk)
from .updates import UpdateBuilders

REJECT = (SemaError, UB)
KEYWORDS = set(D.ALL) | {'fn', 'return', 'for', 'in', 'parallel', 'reduce', 'yield', 'if', 'else',
                         'import', 'true', 'false'}

# Features: constructs that can be switched off (--no-feature) or on
# (--feature). Those off by default trigger known bugs whose fix is pending.
FEATURES = {
    'resize-loop': True,         # carried tensors whose size changes (bug 1)
    'call-in-pfor': True,        # helper calls on tensors built in a parallel for body (bug 3)
    'normal': True,              # normal() values
    'f64-math': True,            # f64 transcendentals (bug 4 in the emulator)
    'mixed-subscripts': True,    # a[r, j] as the only direct use of j (bug 2)
    'helpers': True,
    'stdlib': True,
    'load': True,
    'updates': True,             # x[k] = e, A[k, j] = e, A[i, 2] = e, v[i] = f(i) (section 5.4)
    'update-in-pfor': True,      # updates of a tensor local to a parallel-for body or a loop
    'pfor-local-copy': True,     # ... that is a copy of an outer tensor (bug 5: updated in place)
    'pfor-row-update': True,     # row and column updates in a parallel-for body (bug 6: cuda)
    'kernels': True,             # LU, triangular solves, Gauss-Seidel, ... made of updates
    'annotations': True,         # g: f32[?] = ..., h: f16 = 0.1 (section 5.1)
    'resize-if': True,           # a name that gets another size in an if branch
    'decimals': True,            # decimal literals, f64(0.1), f64([0.1, 0.2]) (approx mode)
}


class Gen(UpdateBuilders):
    def __init__(self, seed, features=None, mode=None):
        self.rng = Rng(seed)
        self.features = dict(FEATURES)
        self.features.update(features or {})
        r = self.rng
        self.mode = mode or ('exact' if r.chance(0.6) else 'approx')
        self.exact = self.mode == 'exact'
        self.S = Semantics(self.exact)
        n_sizes = r.int(2, 4)
        sizes = [r.choice([1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9]) for _ in range(n_sizes)]
        sizes.append(1)                        # a static 1 for stretching
        self.one_sid = len(sizes) - 1
        self.prog = Program(sizes, [], [], mode=self.mode)
        self.interp = Interp(self.prog, self.S, [f for f, on in self.features.items() if on])
        self.key_size = {sid: n for sid, n in enumerate(sizes)}
        self.next_key = 1000
        self.names = 0
        self.n_inputs = 0
        self.stats = {}
        self.env = Env()
        self.block = self.prog.main
        self.in_fn = False

    # ------------------------------------------------------------ helpers

    def note(self, what):
        self.stats[what] = self.stats.get(what, 0) + 1

    def fresh(self, prefix='v'):
        while True:
            self.names += 1
            name = '%s%d' % (prefix, self.names)
            if name not in KEYWORDS:
                return name

    def fresh_key(self, size):
        self.next_key += 1
        self.key_size[self.next_key] = size
        return self.next_key

    def on(self, feature):
        return self.features.get(feature, False)

    def ev(self, node, env=None):
        return self.interp.eval(node, env or self.env)

    def try_eval(self, node, env=None):
        try:
            return self.ev(node, env)
        except REJECT as ex:
            self.note('reject: %s' % str(ex).split(':')[0][:40])
            return None

    def visible(self, env=None):
        """name -> Binding of every visible variable (innermost wins)."""
        return (env or self.env).names()

    def meta(self, b):
        return getattr(b, 'meta', None) or Meta()

    def tensors(self, env=None, dtype=None, rank=None):
        out = []
        for name, b in self.visible(env).items():
            t = b.val.t
            keys = self.meta(b).keys
            # A name whose keys no longer match its value (seeds 21893,
            # 51819: rebound with another rank) is not read as a tensor.
            if not t.is_tensor or b.kind != 'var' or keys is None or \
                    len(keys) != t.rank or len(keys) > b.val.a.ndim:
                continue
            if dtype and t.dtype != dtype or rank and t.rank != rank:
                continue
            out.append((name, b))
        return out

    def size_expr(self, key, env=None):
        """An i64 expression equal to the size of `key`: a literal (outside
        helpers), a variable holding it, or dim(t, k)."""
        opts, names = [], []
        if key in range(len(self.prog.sizes)) and not self.in_fn:
            opts.append(SizeLit(key))
        for name, b in self.visible(env).items():
            if self.meta(b).size_key == key and b.kind in ('var', 'dim') and b.val.a.ndim == 0:
                opts.append(Var(name))
                if b.kind == 'dim':
                    names.append(Var(name))
            keys = self.meta(b).keys
            if keys and key in keys and b.kind == 'var':
                opts.append(Call('dim', [Var(name), Lit(keys.index(key), 'i64')]))
        if names and self.rng.chance(0.5):
            return self.rng.choice(names)     # `0..N` has N's dimension
        if not opts:
            return None
        return self.rng.choice(opts)

    def dims_exprs(self, keys, env=None):
        """Size expressions for a type argument (`zeros(f32[4, n])`): half
        the time a literal where one can be, else a variable."""
        out = []
        for k in keys:
            e = None
            if self.rng.chance(0.5) and k < len(self.prog.sizes) and not self.in_fn:
                e = SizeLit(k)
            if e is None:
                e = self.size_expr(k, env)
                if isinstance(e, Call):          # no dim() in a type argument
                    e = None
            if e is None:
                return None
            out.append(e)
        return out

    def pick_dtype(self, numeric=False):
        pairs = [(30, 'f32'), (14, 'i64'), (14, 'i32'), (10, 'f64'), (10, 'f16'), (8, 'bf16'),
                 (7, 'u64')]
        if not numeric:
            pairs.append((5, 'i1'))
        return self.rng.weighted(pairs)

    def lit(self, dtype, positive=False, small=False):
        r = self.rng
        s = D.sc(dtype)
        if s.is_bool:
            return Lit(r.chance(0.5), dtype)
        if s.is_int:
            if not small and r.chance(0.08):
                v = r.choice([s.hi, s.hi - 1, 2 ** 31 - 1, 2 ** 16, 3 ** 13])
                v = min(v, s.hi)
            else:
                v = r.int(1 if positive else (0 if dtype == 'u64' else -9), 9)
            return Lit(v, dtype)
        if not self.exact and self.on('decimals') and r.chance(0.1):
            # the number of its type nearest a short decimal (0.1, -2.35)
            v = r.int(1 if positive else -400, 400) / r.choice([10.0, 100.0])
            return Dec(v if v else 0.5, dtype)
        if self.exact or r.chance(0.5):
            v = r.int(1 if positive else -24, 24) / 8.0
        else:
            v = r.int(1 if positive else -256, 256) / 64.0
        if positive and v <= 0:
            v = 0.5
        return Lit(float(D.round_to(dtype, v)), dtype)

    # ---------------------------------------------------------- commit

    def commit(self, stmt, metas, env=None, block=None):
        """Runs `stmt` on a copy of the environment; on success keeps it."""
        env = env or self.env
        trial = env.copy()
        try:
            self.interp.exec_stmt(stmt, trial)
        except REJECT as ex:
            self.note('stmt reject: %s' % str(ex).split(':')[0][:40])
            return False
        for name, m in metas.items():
            _, b = trial.find(name)
            if b is not None:
                b.meta = m
        env.scopes[:] = trial.scopes
        (block if block is not None else self.block).append(stmt)
        return True

    # ------------------------------------------------------------ program

    def program(self, n_stmts=None):
        r = self.rng
        for _ in range(r.int(2, 4)):
            self.stmt_input()
        n = n_stmts or r.int(4, 10)
        for _ in range(n):
            self.statement()
        self.outputs()
        self.drop_unused_helpers()
        return self.prog

    def drop_unused_helpers(self):
        while True:
            dead = [f for f in self.prog.fns if not self.called(f.name)]
            if not dead:
                return
            for f in dead:
                self.prog.fns.remove(f)

    def statement(self):
        r = self.rng
        kinds = [(20, self.stmt_let), (8, self.stmt_input), (14, self.stmt_idef),
                 (14, self.stmt_pfor), (6, self.stmt_matmul), (6, self.stmt_if),
                 (8, self.stmt_for)]
        if self.on('resize-loop'):
            kinds.append((6, self.stmt_resize_loop))
        if self.on('helpers'):
            kinds.append((8, self.stmt_helper_call))
        if self.on('stdlib'):
            kinds.append((5, self.stmt_stdlib))
        if self.on('updates'):
            kinds += [(8, self.stmt_elem_update), (3, self.stmt_fill_update)]
        if self.on('kernels'):
            kinds.append((6, self.stmt_kernel))
        if self.on('resize-if'):
            kinds.append((3, self.stmt_resize_if))
        if self.on('annotations'):
            kinds.append((3, self.stmt_annotated))
        for _ in range(3):
            if r.weighted(kinds)():
                return True
        return False

    # ------------------------------------------------------------ inputs

    def stmt_input(self):
        r = self.rng
        dt = self.pick_dtype()
        rank = r.weighted([(2, 0), (5, 1), (3, 2)])
        sids = [self.pick_sid() for _ in range(rank)]
        if rank == 2 and r.chance(0.25):
            sids[r.below(2)] = self.one_sid
        name = self.fresh('x')
        domain = self.domain(dt)
        how = r.weighted([(5, 'lit'), (2, 'arange'), (3, 'full'), (2, 'zeros'), (3, 'rand'),
                          (3 if self.on('load') else 0, 'load'), (3, 'sizevar')])
        if rank == 0:
            how = r.choice(['lit', 'rand', 'sizevar'])
        node, keys = None, tuple(sids)
        if how == 'sizevar':
            sid = self.pick_sid()
            n = self.fresh('n')
            return self.commit(Let(n, SizeLit(sid)), {n: Meta(size_key=sid)})
        if how == 'lit':
            node = TLit(dt, sids, r.next64(), domain) if rank else self.lit(dt)
        elif how == 'arange':
            if dt == 'i1':
                return False
            keys = (sids[0],)
            d = self.dims_exprs(keys)
            if d is None:
                return False
            node = Call('arange', [d[0]] if dt == 'i64' and r.chance(0.5) else [TypeArg(dt, d)])
        elif how in ('full', 'zeros'):
            d = self.dims_exprs(keys)
            if d is None:
                return False
            if how == 'zeros':
                fn = 'ones' if dt != 'i1' and r.chance(0.5) else 'zeros'
                node = Call(fn, [TypeArg(dt, d)])
            else:
                node = Call('full', [TypeArg(dt, d), self.lit(dt)])
        elif how == 'rand':
            fdt = r.choice(['f32', 'f32', 'f64'])
            kind = 'normal' if self.on('normal') and not self.exact and r.chance(0.4) else 'uniform'
            if kind == 'normal' and fdt == 'f64' and not self.on('f64-math'):
                fdt = 'f32'
            seed = Lit(r.int(0, 100000), 'i64')
            if rank:
                d = self.dims_exprs(keys)
                if d is None:
                    return False
                node = Call(kind, [TypeArg(fdt, d), seed])
            else:
                args = [seed, Lit(r.int(0, 1000), 'i64')]
                node = Call(kind, ([TypeArg(fdt, [])] if fdt == 'f64' else []) + args)
        elif how == 'load':
            if dt == 'bf16' or rank == 0:
                return False
            dyn = [r.chance(0.7) for _ in sids]
            node = Load(self.n_inputs, dt, sids, dyn, r.next64(), domain)
            self.n_inputs += 1
        ok = self.commit(Let(name, node), {name: Meta(keys=keys if rank else None)})
        return ok

    def pick_sid(self):
        return self.rng.below(len(self.prog.sizes) - 1) if self.rng.chance(0.92) else self.one_sid

    def domain(self, dt):
        if dt == 'i1':
            return 'bool'
        if D.sc(dt).is_int:
            return 'wide' if self.rng.chance(0.2) else 'small'
        if self.exact:
            return self.rng.choice(['small', 'k8'])
        if self.on('decimals') and self.rng.chance(0.15):
            return 'dec'
        return self.rng.choice(['any', 'unit', 'k8'])

    # ------------------------------------------------------- expressions

    def minor_keys(self, keys):
        """A shape that broadcasts against `keys` without widening it."""
        r = self.rng
        opts = [()]
        for i in range(1, len(keys)):
            opts.append(keys[i:])
        opts.append(keys)
        if keys:
            k = list(keys)
            k[r.below(len(k))] = self.one_sid
            opts.append(tuple(k))
        return r.choice(opts)

    def expr(self, dtype, keys, depth, ectx=None, env=None):
        """(node, value) of type dtype with dims `keys`, or None."""
        env = env or self.env
        keys = tuple(keys)
        if keys:
            ectx = None              # element contexts only build scalars
        builders = self.builders(dtype, keys, ectx)
        for _ in range(4):
            if depth <= 0 or self.rng.chance(0.2):
                res = self.leaf(dtype, keys, ectx, env)
            else:
                res = self.rng.weighted(builders)(dtype, keys, depth - 1, ectx, env)
            if res is not None:
                return res
        return self.leaf(dtype, keys, ectx, env, fallback=True)

    def builders(self, dtype, keys, ectx):
        s = D.sc(dtype)
        if s.is_bool:
            return [(5, self.b_compare), (2, self.b_logic), (1, self.b_not), (1, self.b_cast),
                    (2, self.b_select)]
        out = [(10, self.b_arith), (2, self.b_neg), (3, self.b_maxmin), (1, self.b_abs),
               (3, self.b_select), (3, self.b_cast)]
        if s.is_float:
            out += [(1, self.b_floor)]
            if not self.exact and (dtype != 'f64' or self.on('f64-math')):
                out += [(4, self.b_math), (1, self.b_pow)]
        if not keys:
            out.append((2, self.b_whole))
            if ectx is not None and ectx.kind == 'index':
                out.append((8, self.b_reduce))
        if len(keys) in (1, 2):
            out.append((2, self.b_matmul))
        if self.prog.fns and self.on('helpers'):
            out.append((2, self.b_helper))
        return out

    def finish_node(self, node, env):
        v = self.try_eval(node, env)
        return None if v is None else (node, v)

    def leaf(self, dtype, keys, ectx, env, fallback=False):
        r = self.rng
        cands = []
        for name, b in self.visible(env).items():
            t = b.val.t
            if b.kind == 'index' or (b.kind == 'loop' and b.val.a.ndim > 0 and ectx is None):
                continue
            # other types are converted, i1 rarely
            weight = 4 if t.dtype == dtype else 0.3 if 'i1' in (dtype, t.dtype) else 1
            if keys:
                if t.is_tensor and self.meta(b).keys == keys:
                    cands.append((weight, name, t.dtype))
            elif not t.is_tensor and t.dtype != 'void':
                if b.val.a.ndim > 0 and ectx is None:
                    continue
                cands.append((weight, name, t.dtype))
        choices = []
        if cands:
            choices.append((6, 'var'))
        if not keys:
            choices.append((3, 'lit'))
            if ectx is not None:
                choices += [(8, 'access')] + ([(2, 'ivar')] if ectx.vars else [])
            elif self.tensors(env):
                choices.append((1, 'element'))
        if keys and fallback:
            choices.append((1, 'full'))
        for _ in range(3):
            if not choices:
                return None
            what = r.weighted(choices)
            node = None
            if what == 'var':
                _, name, dt = r.weighted([(w, (w, n, d)) for w, n, d in cands])
                node = Var(name)
                if dt != dtype and dtype == 'u64' and D.sc(dt).is_float:
                    node = Call('abs', [node])        # stay in range of u64
                node = node if dt == dtype else Cast(dtype, node)
            elif what == 'lit':
                node = self.lit(dtype)
            elif what == 'access':
                node = self.access(dtype, ectx, env)
            elif what == 'ivar':
                v = r.choice(ectx.vars)
                node = Var(v[0]) if dtype == 'i64' else Cast(dtype, Var(v[0]))
            elif what == 'element':
                node = self.const_element(dtype, env)
            elif what == 'full':
                d = self.dims_exprs(keys, env=env)
                if d is not None:
                    node = Call('full', [TypeArg(dtype, d), self.lit(dtype)])
            if node is not None:
                res = self.finish_node(node, env)
                if res is not None:
                    return res
        return None

    def const_element(self, dtype, env):
        """t[2, 0]: a tensor element at constant subscripts."""
        ts = self.tensors(env)
        if not ts:
            return None
        name, b = self.rng.choice(ts)
        subs = [self.subscript(n, k, env) for n, k in zip(b.val.a.shape, self.meta(b).keys)]
        node = Index(Var(name), subs)
        return node if b.val.t.dtype == dtype else Cast(dtype, node)

    def access(self, dtype, ectx, env, tensor=None, direct=None):
        """An element of a tensor, subscripted by the context's variables
        (directly where a variable has the dimension's key), constants or
        computed subscripts `(i + c) % n`, which are in range by construction."""
        r = self.rng
        if tensor is None:
            ts = self.tensors(env)
            if not ts:
                return None
            same = [t for t in ts if t[1].val.t.dtype == dtype]
            tensor = r.choice(same if same and r.chance(0.7) else ts)
        name, b = tensor
        keys = self.meta(b).keys
        if keys is None or len(keys) > b.val.a.ndim:
            return None  # see tensors()
        subs = []
        for d, k in enumerate(keys):
            n = b.val.a.shape[d]
            match = [v for v in ectx.vars if v[1] == k]
            if match and (direct or r.chance(0.8)):
                v = r.choice(match)
                sub = Var(v[0]) if not v[2] else Bin('-', Var(v[0]), Lit(v[2], 'i64'))
            elif direct or r.chance(0.5) or not ectx.vars:
                sub = self.subscript(n, k, env)
            else:
                v = r.choice(ectx.vars)
                size = self.size_expr(k, env)
                if size is None:
                    sub = Lit(r.below(n), 'i64')
                else:
                    sub = Bin('%', Bin('+', Var(v[0]), Lit(r.int(0, 3), 'i64')), size)
            subs.append(sub)
        node = Index(Var(name), subs)
        return node if b.val.t.dtype == dtype else Cast(dtype, node)

    def subscript(self, n, key, env):
        """A subscript that uses no index: a constant, or with mixed
        subscripts sometimes a variable in range (`a[r, j]`, `x[t]`)."""
        if self.on('mixed-subscripts') and self.rng.chance(0.35):
            return self.position(n, key, env)
        return Lit(self.rng.below(n), 'i64')

    def anchor(self, dtype, tensor, fixed, ectx, env):
        """A direct access: dims in `fixed` (dim -> index name) use that
        index, the others an index of the same key or a constant."""
        name, b = tensor
        subs = []
        for d, key in enumerate(self.meta(b).keys):
            if d in fixed:
                subs.append(Var(fixed[d]))
                continue
            match = [v for v in ectx.vars if v[1] == key]
            subs.append(Var(self.rng.choice(match)[0]) if match else
                        self.subscript(b.val.a.shape[d], key, env))
        node = Index(Var(name), subs)
        return node if b.val.t.dtype == dtype else Cast(dtype, node)

    def operands(self, dtype, keys, depth, ectx, env):
        """A full-shape and a broadcast operand, in random order."""
        a = self.expr(dtype, keys, depth, ectx, env)
        b = self.expr(dtype, self.minor_keys(keys), depth, ectx, env)
        if a is None or b is None:
            return None
        return (a, b) if self.rng.chance(0.5) else (b, a)

    def b_arith(self, dtype, keys, depth, ectx, env):
        ops = self.operands(dtype, keys, depth, ectx, env)
        if ops is None:
            return None
        (a, _), (b, bv) = ops
        op = self.rng.weighted([(4, '+'), (3, '-'), (4, '*'), (2, '/'), (1, '%')])
        if op == '%' and dtype in ('i32', 'i64') and self.rng.chance(0.15):
            b = Lit(-1, dtype)               # INT_MIN % -1 is 0, not a trap
        res = self.finish_node(Bin(op, a, b), env)
        if res is not None or op not in ('/', '%'):
            return res
        # Rewrite a division that would be undefined (YARPGen style): guard
        # the divisor, else fall back to another operator.
        if D.sc(dtype).is_int:
            bad = Bin('==', b, Lit(0, dtype))
            if D.sc(dtype).is_signed and op == '/':      # INT_MIN % -1 is 0
                bad = Bin('||', bad, Bin('==', b, Lit(-1, dtype)))
            res = self.finish_node(Bin(op, a, Sel(bad, Lit(1, dtype), b)), env)
            if res is not None:
                return res
        return self.finish_node(Bin(self.rng.choice(['+', '-', '*']), a, b), env)

    def b_neg(self, dtype, keys, depth, ectx, env):
        if dtype == 'u64':
            return None
        x = self.expr(dtype, keys, depth, ectx, env)
        return x and self.finish_node(Un('-', x[0]), env)

    def b_not(self, dtype, keys, depth, ectx, env):
        x = self.expr('i1', keys, depth, ectx, env)
        return x and self.finish_node(Un('!', x[0]), env)

    def b_maxmin(self, dtype, keys, depth, ectx, env):
        ops = self.operands(dtype, keys, depth, ectx, env)
        if ops is None:
            return None
        return self.finish_node(Call(self.rng.choice(['max', 'min']), [ops[0][0], ops[1][0]]), env)

    def b_abs(self, dtype, keys, depth, ectx, env):
        x = self.expr(dtype, keys, depth, ectx, env)
        return x and self.finish_node(Call('abs', [x[0]]), env)

    def b_floor(self, dtype, keys, depth, ectx, env):
        x = self.expr(dtype, keys, depth, ectx, env)
        return x and self.finish_node(Call(self.rng.choice(['floor', 'ceil']), [x[0]]), env)

    def b_math(self, dtype, keys, depth, ectx, env):
        fn = self.rng.choice(['exp', 'log', 'sqrt', 'tanh', 'sin', 'cos', 'sigmoid'])
        x = self.expr(dtype, keys, depth, ectx, env)
        if x is None:
            return None
        res = self.finish_node(Call(fn, [x[0]]), env)
        if res is None and fn in ('log', 'sqrt'):
            # keep the argument in the domain: log(abs(x) + 1)
            arg = Bin('+', Call('abs', [x[0]]), Lit(1.0, dtype))
            res = self.finish_node(Call(fn, [arg]), env)
        if res is None and fn == 'exp':
            res = self.finish_node(Call(fn, [Call('tanh', [x[0]])]), env)
        return res

    def b_pow(self, dtype, keys, depth, ectx, env):
        ops = self.operands(dtype, keys, depth, ectx, env)
        if ops is None:
            return None
        (a, _), (b, _) = ops
        base = Bin('+', Call('abs', [a]), Lit(0.5, dtype))
        expo = Call('sin', [b]) if self.rng.chance(0.5) else self.lit(dtype, small=True)
        return self.finish_node(Call('pow', [base, expo]), env)

    def b_select(self, dtype, keys, depth, ectx, env):
        ops = self.operands(dtype, keys, depth, ectx, env)
        if ops is None:
            return None
        c = self.expr('i1', self.minor_keys(keys), max(depth - 1, 0), ectx, env)
        if c is None:
            return None
        return self.finish_node(Sel(c[0], ops[0][0], ops[1][0]), env)

    def b_cast(self, dtype, keys, depth, ectx, env):
        other = self.pick_dtype(numeric=self.rng.chance(0.8))
        if other == dtype:
            return None
        x = self.expr(other, keys, depth, ectx, env)
        if x is None:
            return None
        arg = x[0]
        if dtype == 'u64' and D.sc(other).is_signed and self.rng.chance(0.7):
            arg = Call('abs', [arg])             # stay in range of u64
        res = self.finish_node(Cast(dtype, arg), env)
        if res is None and D.sc(other).is_float and not D.sc(dtype).is_float:
            # an out-of-range conversion: convert something in range instead
            res = self.finish_node(Cast(dtype, Call('floor', [Call('sin', [x[0]])]))
                                   if not self.exact else Cast(dtype, Call('min', [
                                       Call('max', [x[0], Lit(0.0, other)]), Lit(100.0, other)])), env)
        return res

    def b_compare(self, dtype, keys, depth, ectx, env):
        dt = self.pick_dtype(numeric=True)
        ops = self.operands(dt, keys, depth, ectx, env)
        if ops is None:
            return None
        op = self.rng.choice(['==', '!=', '<', '<=', '>', '>='])
        return self.finish_node(Bin(op, ops[0][0], ops[1][0]), env)

    def b_logic(self, dtype, keys, depth, ectx, env):
        ops = self.operands('i1', keys, depth, ectx, env)
        if ops is None:
            return None
        return self.finish_node(Bin(self.rng.choice(['&&', '||']), ops[0][0], ops[1][0]), env)

    def b_whole(self, dtype, keys, depth, ectx, env):
        if dtype == 'i1':
            return None
        ts = self.tensors(env)
        if not ts:
            return None
        _, b = self.rng.choice(ts)
        x = self.expr(dtype, self.meta(b).keys, depth, None, env)
        if x is None:
            return None
        return self.finish_node(Call(self.rng.choice(['sum', 'sum', 'max', 'min']), [x[0]]), env)

    def b_matmul(self, dtype, keys, depth, ectx, env):
        r = self.rng
        ts = self.tensors(env)
        if not ts or dtype == 'i1':
            return None
        inner = self.meta(r.choice(ts)[1]).keys
        k = r.choice(inner)
        if len(keys) == 2:
            ka, kb = (keys[0], k), (k, keys[1])
        elif r.chance(0.5):
            ka, kb = (keys[0], k), (k,)
        else:
            ka, kb = (k,), (k, keys[0])
        a = self.expr(dtype, ka, depth - 1, None, env)
        b = self.expr(dtype, kb, depth - 1, None, env)
        if a is None or b is None:
            return None
        return self.finish_node(Bin('@', a[0], b[0]), env)

    def b_reduce(self, dtype, keys, depth, ectx, env):
        """sum(k) / max(k) / min(k) over a new index, anchored on a direct
        access so that the front end can infer its range."""
        r = self.rng
        ts = [t for t in self.tensors(env) if t[1].val.t.rank <= 2]
        if not ts or dtype == 'i1' or len(ectx.vars) >= 4:
            return None
        name, b = r.choice(ts)
        keys_t = self.meta(b).keys
        d = r.below(len(keys_t))
        k = self.fresh('k')
        n = b.val.a.shape[d]
        inner_ctx = ectx.plus([(k, keys_t[d], 0)])
        inner = env.push()
        space = env.space
        saved = space.next_axis
        if saved >= MAX_AXES:
            return None
        try:
            inner.declare(k, Val(axis_array(space.take(), n), 'i64', None, Type('i64')), 'index')
            anchor = self.anchor(dtype, (name, b), {d: k}, ectx, inner)
            rest = self.expr(dtype, (), depth - 1, inner_ctx, inner) if r.chance(0.7) else None
        finally:
            space.next_axis = saved
        body = anchor if rest is None else Bin(r.choice(['+', '*', '-']), anchor, rest[0])
        kind = r.choice(['sum', 'sum', 'max', 'min'])
        return self.finish_node(Red(kind, [k], body), env)

    def b_helper(self, dtype, keys, depth, ectx, env):
        """A call of an existing helper whose result has this type."""
        for f in self.rng.shuffle(self.prog.fns):
            if f.result is None or f.result[0] != dtype or (f.result[1] is None) != (not keys):
                continue
            if keys and len(f.result[1]) != len(keys):
                continue
            call = self.helper_args(f, env, want=keys, ectx=ectx)
            if call is not None:
                res = self.finish_node(call[0], env)
                if res is not None:
                    return res
        return None

    # -------------------------------------------------------- statements

    @contextlib.contextmanager
    def nested(self, env, block, in_fn=None):
        """Generates into another block (a loop body, a branch, a helper)."""
        saved = (self.env, self.block, self.in_fn)
        self.env, self.block = env, block
        if in_fn is not None:
            self.in_fn = in_fn
        try:
            yield
        finally:
            self.env, self.block, self.in_fn = saved

    def target_keys(self, scalar_chance=0.25):
        ts = self.tensors()
        if not ts or self.rng.chance(scalar_chance):
            return ()
        return self.meta(self.rng.choice(ts)[1]).keys

    def stmt_let(self):
        r = self.rng
        keys = self.target_keys()
        dt = self.pick_dtype()
        x = self.expr(dt, keys, r.int(1, 3))
        if x is None:
            return False
        name = self.fresh('v')
        return self.commit(Let(name, x[0]), {name: Meta(keys=keys or None)})

    def stmt_update(self, name):
        """name = f(name, ...) keeping its type (a carried or branch value)."""
        r = self.rng
        _, b = self.env.find(name)
        keys = self.meta(b).keys or ()
        dt = b.val.t.dtype
        if len(keys) in (1, 2) and self.on('updates') and r.chance(0.35):
            if self.stmt_elem_update(name):      # x[t] = ...: x becomes carried
                return True
        for _ in range(3):
            if r.chance(0.65):
                y = self.expr(dt, self.minor_keys(keys), r.int(0, 2))
                if y is None:
                    continue
                if dt == 'i1':
                    node = Bin(r.choice(['&&', '||']), Var(name), y[0])
                else:
                    node = Bin(r.choice(['+', '-', '*', '+']), Var(name), y[0])
                    if r.chance(0.3):
                        node = Call(r.choice(['max', 'min']), [Var(name), y[0]])
            elif keys and r.chance(0.3):
                node = self.rebuild(dt, keys)
                if node is None:
                    continue
            else:
                y = self.expr(dt, keys, r.int(1, 2))
                if y is None:
                    continue
                node = y[0]
            if self.commit(Let(name, node), {name: b.meta}):
                return True
        return False

    def rebuild(self, dt, keys):
        """A parallel for with the shape of `keys` (as a new value of a
        carried tensor: `x = parallel for j in 0..N {...}`)."""
        rr = self.pfor_ranges(keys)
        if rr is None:
            return None
        ranges, vars_ = rr
        y = self.expr(dt, (), self.rng.int(1, 2), Ectx('loop', vars_), self.loop_env(vars_))
        return None if y is None else PFor(ranges, None, [], y[0])

    def updatable(self):
        return [n for n, b in self.visible().items()
                if b.kind == 'var' and b.val.t.dtype != 'void' and b.val.a.ndim == len(b.val.t.dims or ())
                and self.meta(b).size_key is None and self.meta(b).span is None
                and (not b.val.t.is_tensor or self.meta(b).keys)]

    def stmt_if(self):
        r = self.rng
        names = self.updatable()
        if not names:
            return False
        name = r.choice(names)
        c = self.expr('i1', (), 2)
        if c is None:
            return False
        then, els = [], []
        with self.nested(self.env.push(), then):
            self.stmt_update(name)
            if r.chance(0.3):
                self.stmt_let()
        if r.chance(0.6):
            with self.nested(self.env.push(), els):
                self.stmt_update(name)
        if not then:
            return False
        return self.commit(If(c[0], then, els or None), {})

    def stmt_for(self):
        r = self.rng
        names = self.updatable()
        if not names:
            return False
        it = self.fresh('t')
        trips = r.int(1, 4)
        inner = self.env.push()
        self.declare_loop(inner, it, 0, (0, trips - 1))
        body = []
        with self.nested(inner, body):
            for name in r.shuffle(names)[:r.int(1, 2)]:
                self.stmt_update(name)
            if r.chance(0.3):
                self.stmt_let()
            if r.chance(0.2) and names:
                self.stmt_if()
            if r.chance(0.2) and self.on('update-in-pfor'):
                self.carried_local_sum(names)
        if not body:
            return False
        return self.commit(For(it, Lit(0, 'i64'), Lit(trips, 'i64'), body), {})

    # ----------------------------------------------------- index notation

    def index_env(self, idxs):
        """A sample environment with index variables on their own axes."""
        inner = self.env.push()
        inner.space = IndexSpace()
        for name, key, _ in idxs:
            inner.declare(name, Val(axis_array(inner.space.take(), self.key_size[key]), 'i64', None,
                                    Type('i64')), 'index')
        return inner

    def stmt_idef(self):
        r = self.rng
        ts = [t for t in self.tensors() if t[1].val.t.rank in (1, 2)]
        if not ts:
            return False
        tname, b = r.choice(ts)
        keys_t = self.meta(b).keys
        i, j = self.fresh('i'), self.fresh('j')
        form = r.weighted([(5, 'perm'), (2, 'slice'), (2, 'outer')])
        second = None
        if len(keys_t) == 1 or form == 'perm':
            if len(keys_t) == 2 and r.chance(0.4):          # transpose
                out, fixed = [(i, keys_t[1], 0), (j, keys_t[0], 0)], {0: j, 1: i}
            else:
                names = [i, j][:len(keys_t)]
                out, fixed = [(n, k, 0) for n, k in zip(names, keys_t)], dict(enumerate(names))
            if form == 'outer' and len(keys_t) == 1:
                vs = [t for t in self.tensors() if t[1].val.t.rank == 1]
                second = r.choice(vs)
                out.append((j, self.meta(second[1]).keys[0], 0))
        else:
            d = r.below(2)
            out, fixed = [(i, keys_t[d], 0)], {d: i}
        ectx = Ectx('index', out)
        env = self.index_env(out)
        dt = b.val.t.dtype if r.chance(0.6) else self.pick_dtype(numeric=True)
        if dt == 'i1':
            dt = 'i32'
        anchor = self.anchor(dt, (tname, b), fixed, ectx, env)
        if form == 'slice' and len(keys_t) == 2 and self.on('mixed-subscripts') and r.chance(0.5):
            # the other subscript computed: not a direct access any more
            other = 1 - list(fixed)[0]
            size = self.size_expr(keys_t[other])
            if size is not None:
                anchor_base = anchor.x if isinstance(anchor, Cast) else anchor
                anchor_base.subs[other] = Bin('%', Bin('+', Var(i), Lit(1, 'i64')), size)
        if second is not None:
            anchor = Bin('*', anchor, self.anchor(dt, second, {0: j}, ectx, env))
        rhs = anchor
        if r.chance(0.85):
            rest = self.expr(dt, (), r.int(1, 3), ectx, env)
            if rest is not None:
                op = r.weighted([(4, '+'), (2, '-'), (3, '*'), (1, 'max'), (1, 'sel')])
                if op == 'max':
                    rhs = Call(r.choice(['max', 'min']), [anchor, rest[0]])
                elif op == 'sel':
                    c = self.expr('i1', (), 1, ectx, env)
                    rhs = Sel(c[0], anchor, rest[0]) if c else anchor
                else:
                    rhs = Bin(op, anchor, rest[0]) if r.chance(0.5) else Bin(op, rest[0], anchor)
        name = self.fresh('d')
        return self.commit(IDef(name, [o[0] for o in out], rhs),
                           {name: Meta(keys=tuple(o[1] for o in out))})

    # -------------------------------------------------------- parallel for

    def pfor_ranges(self, keys):
        """Ranges over the sizes of `keys`: (Range nodes, ectx vars)."""
        r = self.rng
        ranges, vars_ = [], []
        for k in keys:
            size = self.size_expr(k)
            if size is None:
                return None
            off = 0 if r.chance(0.8) else r.int(1, 2)
            var = self.fresh('p')
            if off == 0:
                hi = size
            elif isinstance(size, SizeLit):
                hi = SizeLit(size.sid, off)
            else:
                hi = Bin('+', size, Lit(off, 'i64'))
            ranges.append(Range(var, Lit(off, 'i64'), hi))
            vars_.append((var, k, off))
        return ranges, vars_

    def loop_env(self, vars_, point=None):
        """Sample environment of a parallel-for body: the loop variables as
        index-space arrays (all iterations at once) or at one point."""
        inner = self.env.push(self.env.pdepth + 1)
        for ax, (var, k, off) in enumerate(vars_):
            n = self.key_size[k]
            if point is None:
                a = axis_array(ax, n) + off
            else:
                a = point[ax] + off
            self.declare_loop(inner, var, a, (off, n - 1 + off))
        return inner

    def stmt_pfor(self):
        r = self.rng
        keys = self.target_keys(scalar_chance=0.0)
        if not keys:
            keys = (self.pick_sid(),)
        if len(keys) == 2 and r.chance(0.3):
            keys = keys[1:]
        rr = self.pfor_ranges(keys)
        if rr is None:
            return False
        ranges, vars_ = rr
        ectx = Ectx('loop', vars_)
        dt = self.pick_dtype()
        reduce = None
        if dt != 'i1' and r.chance(0.35):
            reduce = r.weighted([(4, '+'), (2, 'max'), (2, 'min'), (1, '*')])
        plan = 'vector'
        if r.chance(0.3):
            plan = r.weighted([(2, 'if'), (3 if self.on('call-in-pfor') else 0, 'nested'),
                               (1, 'for'), (3 if self.on('update-in-pfor') else 0, 'local')])
        point = None if plan == 'vector' else [r.below(self.key_size[k]) for k in keys]
        env = self.loop_env(vars_, point)
        body = []
        y = None
        with self.nested(env, body):
            for _ in range(r.int(0, 2)):
                self.body_let(ectx)
            if plan == 'if':
                self.body_if(ectx)
            elif plan == 'for':
                self.body_for(ectx)
            elif plan == 'nested':
                y = self.body_nested(ectx, dt)
            elif plan == 'local':
                y = self.body_local_update(dt)
        if y is None:
            y = self.expr(dt, (), r.int(1, 3), ectx, env)
        if y is None:
            return False
        if reduce == '*':
            # products only of small exact values
            y = (Sel(Bin('<', Call('abs', [y[0]]), Lit(3, dt)), y[0], Lit(1, dt)), None) \
                if dt != 'u64' else (Bin('%', y[0], Lit(3, dt)), None)
        name = self.fresh('q')
        return self.commit(Let(name, PFor(ranges, reduce, body, y[0])),
                           {name: Meta(keys=None if reduce else tuple(keys))})

    def body_let(self, ectx):
        dt = self.pick_dtype()
        x = self.expr(dt, (), self.rng.int(1, 2), ectx)
        if x is None:
            return False
        name = self.fresh('s')
        return self.commit(Let(name, x[0]), {})

    def body_if(self, ectx):
        r = self.rng
        dt = self.pick_dtype(numeric=True)
        name = self.fresh('s')
        if not self.commit(Let(name, self.lit(dt)), {}):
            return False
        c = self.expr('i1', (), 2, ectx)
        then, els = [], []
        for block in (then, els):
            x = self.expr(dt, (), r.int(1, 2), ectx)
            if x is None or c is None:
                return False
            block.append(Let(name, x[0]))
        return self.commit(If(c[0], then, els), {})

    def body_for(self, ectx):
        r = self.rng
        dt = self.pick_dtype(numeric=True)
        acc = self.fresh('s')
        if not self.commit(Let(acc, self.lit(dt)), {}):
            return False
        it = self.fresh('t')
        trips = r.int(1, 3)
        inner = self.env.push()
        self.declare_loop(inner, it, 0, (0, trips - 1))
        x = self.expr(dt, (), r.int(1, 2), ectx.plus([(it, None, 0)]), inner)
        if x is None:
            return False
        body = [Let(acc, Bin(r.choice(['+', '-']), Var(acc), x[0]))]
        return self.commit(For(it, Lit(0, 'i64'), Lit(trips, 'i64'), body), {})

    def body_nested(self, ectx, dt):
        """A tensor built in the body and passed to a function: the GPU's
        weak spot (a call on tensors sized at run time inside a kernel)."""
        r = self.rng
        vecs = [t for t in self.tensors() if t[1].val.t.rank == 1 and t[1].val.t.dtype == 'f32']
        if not vecs:
            return None
        xname, xb = r.choice(vecs)
        key = self.meta(xb).keys[0]
        size = self.size_expr(key)
        if size is None:
            return None
        j = self.fresh('p')
        inner = self.loop_env_from(self.env, [(j, key, 0)])
        x = self.expr('f32', (), r.int(1, 2), ectx.plus([(j, key, 0)]), inner)
        if x is None:
            return None
        rname = self.fresh('r')
        if not self.commit(Let(rname, PFor([Range(j, Lit(0, 'i64'), size)], None, [], x[0])),
                           {rname: Meta(keys=(key,))}):
            return None
        how = r.choice(['dot', 'helper', 'sum'] if self.on('stdlib') else ['helper', 'sum'])
        if how == 'dot':
            if 'math' not in self.prog.imports:
                self.prog.imports.append('math')
            call = Call('math.dot', [Var(rname), Var(xname)] if r.chance(0.5) else [Var(xname), Var(rname)])
        elif how == 'helper':
            f = self.scalar_helper('f32')
            if f is None:
                return None
            call = self.helper_args(f, self.env, ectx=ectx)
            if call is None:
                return None
            call = call[0]
        else:
            call = Call('sum', [Var(rname)])
        y = call if dt == 'f32' else Cast(dt, call)
        return self.finish_node(y, self.env)

    def loop_env_from(self, env, vars_):
        inner = env.push(env.pdepth + 1)
        for ax, (var, k, off) in enumerate(vars_):
            n = self.key_size[k]
            self.declare_loop(inner, var, axis_array(ax, n) + off, (off, n - 1 + off))
        return inner

    # --------------------------------------------------------- other lets

    def stmt_matmul(self):
        r = self.rng
        mats = [t for t in self.tensors() if t[1].val.t.rank == 2]
        if not mats:
            return False
        aname, ab = r.choice(mats)
        ka = self.meta(ab).keys
        dt = ab.val.t.dtype if ab.val.t.dtype != 'i1' else 'i64'
        form = r.choice(['mm', 'mv', 'vm'])
        if form == 'mm':
            keys = (ka[0], self.meta(r.choice(self.tensors())[1]).keys[-1])
        elif form == 'mv':
            keys = (ka[0],)
        else:
            keys = (ka[1],)
        x = self.b_matmul(dt, keys, 2, None, self.env)
        if x is None:
            return False
        name = self.fresh('m')
        return self.commit(Let(name, x[0]), {name: Meta(keys=keys)})

    def stmt_resize_loop(self):
        """g = zeros(T[n]); for { g = parallel for i in 0..dim(g, 0) + 1 {..} }:
        a carried tensor whose size changes every iteration."""
        r = self.rng
        n = self.fresh('n')
        sid = self.pick_sid()
        if not self.commit(Let(n, SizeLit(sid)), {n: Meta(size_key=sid)}):
            return False
        dt = r.choice(['f32', 'f32', 'i64', 'i32', 'f64', 'f16'])
        g = self.fresh('g')
        how = r.weighted([(4, 'var'), (2, 'static'), (1, 'literal'), (2, 'pfor')])
        if how == 'var':          # a run-time size the compiler can fold
            init = Call('zeros', [TypeArg(dt, [Var(n)])])
        elif how == 'static':
            init = Call('zeros', [TypeArg(dt, [SizeLit(sid)])])
        elif how == 'literal':
            init = TLit(dt, [sid], r.next64(), self.domain(dt))
        else:
            p = self.fresh('p')
            init = PFor([Range(p, Lit(0, 'i64'), Var(n))], None, [],
                        Cast(dt, Var(p)) if dt != 'i64' else Var(p))
        # annotated, g is f32[?] from the start (no widening of the loop)
        ann = TypeArg(dt, ['?']) if self.on('annotations') and r.chance(0.35) else None
        if not self.commit(Let(g, init, ann), {g: Meta(keys=(self.fresh_key(self.key_size[sid]),))}):
            return False
        it, i = self.fresh('t'), self.fresh('p')
        dim_g = Call('dim', [Var(g), Lit(0, 'i64')])
        grow = r.chance(0.7)
        hi = Bin('+', dim_g, Lit(r.int(1, 2), 'i64')) if grow else \
            Call('max', [Bin('-', dim_g, Lit(1, 'i64')), Lit(1, 'i64')])
        old = Index(Var(g), [Bin('%', Var(i), dim_g)])
        conv = (lambda e: e) if dt == 'i64' else (lambda e: Cast(dt, e))
        y = r.choice([Bin('+', old, conv(Var(i))), Bin('+', conv(Var(it)), old),
                      Bin('-', Bin('*', old, Lit(2, dt)), conv(Var(i))), conv(Var(i))])
        loop = For(it, Lit(0, 'i64'), Lit(r.int(1, 4), 'i64'),
                   [Let(g, PFor([Range(i, Lit(0, 'i64'), hi)], None, [], y))])
        if not self.commit(loop, {}):
            return False
        _, b = self.env.find(g)
        b.meta = Meta(keys=(self.fresh_key(b.val.a.shape[0]),), interest=True)
        return True

    # ------------------------------------------------------------ helpers

    def scalar_helper(self, dt):
        """A helper f(a: T[N], b: T[N]) -> T (made if there is none)."""
        for f in self.prog.fns:
            if f.result == (dt, None) and [p[2] for p in f.params] == [['N'], ['N']]:
                return f
        return self.make_helper(dt, 'vec', result_scalar=True)

    def make_helper(self, dt=None, shape=None, result_scalar=None):
        r = self.rng
        dt = dt or r.weighted([(6, 'f32'), (2, 'i64'), (1, 'i32'), (1, 'f64'), (1, 'f16')])
        shape = shape or r.choice(['vec', 'vec', 'mat'])
        if result_scalar is None:
            result_scalar = r.chance(0.4)
        fname = self.fresh('h')
        sizes = {'M': r.int(1, 5), 'N': r.int(1, 6)}
        if shape == 'vec':
            params = [('a', dt, ['N']), ('b', dt, ['N'])]
            if r.chance(0.4):
                params.append(('c', dt, None))
            result = (dt, None if result_scalar else ['N'])
        else:
            params = [('a', dt, ['M', 'N']), ('b', dt, ['N'])]
            result = (dt, None if result_scalar else r.choice([['M'], ['M', 'N']]))
        env = Env()
        keys = {s: self.fresh_key(n) for s, n in sizes.items()}
        used = sorted({d for _, _, dims in params for d in (dims or ())})
        for s in used:
            env.declare(s, self.S.finish(sizes[s], 'i64').with_type(Type('i64')), 'dim')
            env.scopes[-1][s].meta = Meta(size_key=keys[s])
        for pname, pdt, pdims in params:
            shape_ = [sizes[d] for d in pdims or ()]
            vals = draw_values(self.rng, pdt, self.domain(pdt), max(1, int(np.prod(shape_))))
            v = self.S.finish(values_array(pdt, vals[:int(np.prod(shape_))], shape_), pdt)
            env.declare(pname, v.with_type(Interp.param_type(pdt, pdims)))
            env.scopes[-1][pname].meta = Meta(keys=tuple(keys[d] for d in pdims) if pdims else None)
        body = []
        with self.nested(env, body, in_fn=True):
            for _ in range(r.int(0, 3)):
                r.weighted([(4, self.stmt_let), (2, self.stmt_idef), (3, self.stmt_pfor),
                            (1, self.stmt_for),
                            (2 if self.on('updates') else 0, self.stmt_elem_update),
                            (1 if self.on('annotations') else 0, self.stmt_annotated)])()
            rkeys = tuple(keys[d] for d in result[1]) if result[1] else ()
            ret = self.expr(dt, rkeys, r.int(1, 3))
        if ret is None:
            return None
        f = Fn(fname, params, result, body, ret[0])
        self.prog.fns.append(f)
        return f

    def helper_args(self, f, env, want=None, ectx=None):
        """Arguments for a call of f found in env: (Call, symbol -> key)."""
        r = self.rng
        sym = {}
        if want and f.result[1]:
            for d, k in zip(f.result[1], want):
                sym[d] = k
        args = []
        for pname, pdt, pdims in f.params:
            if pdims is None:
                x = self.expr(pdt, (), 1, ectx, env)
            else:
                if any(d not in sym for d in pdims):
                    cands = [t for t in self.tensors(env) if t[1].val.t.rank == len(pdims) and
                             all(sym.get(d, k) == k for d, k in zip(pdims, self.meta(t[1]).keys))]
                    if not cands:
                        return None
                    for d, k in zip(pdims, self.meta(r.choice(cands)[1]).keys):
                        sym.setdefault(d, k)
                x = self.expr(pdt, tuple(sym[d] for d in pdims), 1, None, env)
            if x is None:
                return None
            args.append(x[0])
        return Call(f.name, args), sym

    def stmt_helper_call(self):
        r = self.rng
        fns = [f for f in self.prog.fns]
        f = None
        if fns and r.chance(0.6):
            f = r.choice(fns)
        else:
            f = self.make_helper()
        if f is None:
            return False
        for _ in range(3):
            res = self.helper_args(f, self.env)
            if res is None:
                continue
            call, sym = res
            name = self.fresh('c')
            keys = tuple(sym[d] for d in f.result[1]) if f.result[1] else None
            if self.commit(Let(name, call), {name: Meta(keys=keys, interest=True)}):
                return True
        if not self.called(f.name):
            self.prog.fns.remove(f)
        return False

    def called(self, fname):
        return any(isinstance(n, Call) and n.fn == fname for n in walk(self.prog))

    def stmt_stdlib(self):
        r = self.rng
        name = r.choice(sorted(STDLIB))
        if self.exact and name in ('math.norm', 'nn.softmax_vec'):
            return False
        params, result = STDLIB[name]
        res = self.helper_args(Fn(name, params, result, [], None), self.env)
        if res is None:
            return False
        call, sym = res
        module = name.split('.')[0]
        added = module not in self.prog.imports
        if added:
            self.prog.imports.append(module)
        v = self.fresh('l')
        keys = tuple(sym[d] for d in result[1]) if result[1] else None
        if self.commit(Let(v, call), {v: Meta(keys=keys)}):
            return True
        if added:
            self.prog.imports.remove(module)
        return False

    # ------------------------------------------------------------ outputs

    def outputs(self):
        """Saves a few values: tensors as they are (bf16 as f32), scalars as
        1-element tensors."""
        r = self.rng
        names = [n for n, b in self.visible().items()
                 if b.kind == 'var' and b.val.t.dtype != 'void']
        names = sorted(names, key=lambda n: -int(''.join(c for c in n if c.isdigit()) or 0))
        keen = [n for n in names if self.meta(self.env.find(n)[1]).interest]
        rest = [n for n in names if n not in keen]
        picked = keen[:4] + rest[:r.int(2, 4)] + r.shuffle(rest[4:])[:2]
        for k, name in enumerate(picked):
            _, b = self.env.find(name)
            x = Var(name) if b.val.t.dtype != 'bf16' else Cast('f32', Var(name))
            if not b.val.t.is_tensor:
                w = self.fresh('o')
                if not self.commit(Let(w, PFor([Range(self.fresh('w'), Lit(0, 'i64'), Lit(1, 'i64'))],
                                                  None, [], x)), {}):
                    continue
                x = Var(w)
            self.commit(Do(Call('save', [Str('out%d.npy' % k), x])), {})


def generate(seed, features=None, mode=None):
    """A program for `seed`: (Program, generator stats)."""
    g = Gen(seed, features, mode)
    prog = g.program()
    return prog, g.stats
