"""Builders for element and row updates and the constructs around them
(language sections 5.1-5.4): a mixin of gen.Gen.

  - `x[k] = e`, `A[k, j] = e`, `A[i, 2] = e`: an element, a row or a
    column of an existing tensor; the right-hand side reads the old x, often
    at the same place, and may reduce over another index;
  - `v[i] = e` where e subscripts nothing with i: i ranges over the
    existing v, and is used only as a value (also inside reductions);
  - loop kernels made of updates, as PolyBench writes them: LU without
    pivoting, triangular solves, Gauss-Seidel sweeps, running sums,
    Floyd-Warshall, row normalization;
  - a tensor local to a parallel-for body, updated there (a private
    buffer per iteration on the GPU);
  - `g: f32[?] = ...` annotations and names that get another size in one
    branch of an `if`.

Positions are in range by construction, for every run of the statement and
not only the one the generator samples: a literal below the size, a
variable whose whole span fits (Meta.span: a loop variable), `n - 1`,
`n - 1 - t`, `(t + c) % n`. The reference interpreter still runs every
candidate, so anything that would go out of range is dropped, never emitted.
"""
import numpy as np

from . import dtypes as D
from .interp import IndexSpace, axis_array
from .meta import Ectx, Meta
from .sem import Val
from .tdtypes import Type
from .tree import (Bin, Call, Cast, For, IDef, If, Index, Let, Lit, PFor, Range, Red, Sel, SizeLit,
                   TLit, TypeArg, Un, Update, Var)


class UpdateBuilders:
    # ----------------------------------------------------------- helpers

    def num(self, dtype, v):
        """A literal of value v (floats as floats, for the renderer)."""
        return Lit(float(v) if D.sc(dtype).is_float else int(v), dtype)

    def declare_loop(self, env, name, value, span):
        """A loop variable with the span of all the values it takes."""
        env.declare(name, self.S.finish(np.asarray(value, np.int64), 'i64').with_type(Type('i64')), 'loop')
        env.scopes[-1][name].meta = Meta(span=span)

    def own_tensors(self, ranks=(1, 2), numeric=False):
        """Tensors this block may update: a parallel-for body can only
        update the ones declared in it."""
        return [(n, b) for n, b in self.tensors()
                if b.val.t.rank in ranks and b.pdepth >= self.env.pdepth and
                not (numeric and b.val.t.dtype == 'i1')]

    def index_env_sized(self, names_sizes):
        """An index-notation environment with these indices, in order."""
        inner = self.env.push()
        inner.space = IndexSpace()
        for name, n in names_sizes:
            inner.declare(name, Val(axis_array(inner.space.take(), n), 'i64', None, Type('i64')), 'index')
        return inner

    def position(self, n, key, env):
        """An integer expression (i64, sometimes i32 or u64) in [0, n)
        wherever it runs, for a dimension of size n (key `key`, None if
        unknown)."""
        r = self.rng
        spans = [(name, self.meta(b).span) for name, b in self.visible(env).items()
                 if self.meta(b).span is not None and b.kind in ('loop', 'var')]
        fit = [name for name, (lo, hi) in spans if 0 <= lo and hi < n]
        nonneg = [name for name, (lo, _) in spans if lo >= 0]
        size = self.size_expr(key, env) if key is not None else None
        opts = [(2, 'lit')]
        if fit:
            opts += [(6, 'var')]
        if nonneg and size is not None:
            opts += [(2, 'wrap')]
        if size is not None:
            opts += [(1, 'last')] + ([(2, 'rev')] if fit else [])
        pos = self.position_of(r.weighted(opts), n, size, fit, nonneg)
        # any integer type may subscript
        return Cast(r.choice(['i32', 'u64']), pos) if r.chance(0.08) else pos

    def position_of(self, what, n, size, fit, nonneg):
        """The position of kind `what` (see position)."""
        r = self.rng
        if what == 'var':
            return Var(r.choice(fit))
        if what == 'wrap':
            return Bin('%', Bin('+', Var(r.choice(nonneg)), Lit(r.int(0, 3), 'i64')), size)
        if what == 'last':
            return Bin('-', size, Lit(1, 'i64'))
        if what == 'rev':
            return Bin('-', Bin('-', size, Lit(1, 'i64')), Var(r.choice(fit)))
        return Lit(r.below(n), 'i64')

    def position_var(self, n):
        """`r = 2` before `A[r, j] = ...`: a position held in a variable
        (never rebound: its span is its value)."""
        c = self.rng.below(n)
        r = self.fresh('r')
        ok = self.commit(Let(r, Lit(c, 'i64')), {r: Meta(span=(c, c))})
        return Var(r) if ok else None

    # ---------------------------------------------------------- updates

    def stmt_elem_update(self, name=None):
        """x[pos] = e, A[pos, j] = e (a row), A[i, pos] = e (a column)."""
        r = self.rng
        cands = [t for t in self.own_tensors() if name is None or t[0] == name]
        if not cands:
            return False
        xname, b = r.choice(cands)
        keys, shape = self.meta(b).keys, b.val.a.shape
        rows = self.env.pdepth == 0 or self.on('pfor-row-update')
        form = 'elem' if len(keys) == 1 or not rows else \
            r.weighted([(3, 'elem'), (3, 'row'), (2, 'col')])
        subs, out, sizes = [], [], []
        for d in range(len(keys)):
            if (form, d) in (('row', 1), ('col', 0)):
                v = self.fresh('j' if d else 'i')
                subs.append(Var(v))
                out.append((v, keys[d], 0))
                sizes.append((v, shape[d]))
            elif self.rng.chance(0.2):
                subs.append(self.position_var(shape[d]))
            else:
                subs.append(self.position(shape[d], keys[d], self.env))
        if any(s is None for s in subs):
            return False
        ectx = Ectx('index', out)
        env = self.index_env_sized(sizes)
        old = Index(Var(xname), [s.clone() for s in subs])
        rhs = self.update_rhs(b.val.t.dtype, old, ectx, env)
        if rhs is None:
            return False
        self.note('update ' + form)
        return self.commit(Update(xname, subs, rhs), {})

    def update_rhs(self, dt, old, ectx, env):
        """The new value of an updated place: a function of the old one
        (`x[k] = x[k] * 2.0 + e`), a reduction, or any value of x's type."""
        r = self.rng
        how = r.weighted([(5, 'combine'), (2, 'reduce'), (1, 'new')])
        rest = None
        if how == 'reduce' and dt != 'i1':
            rest = self.b_reduce(dt, (), 2, ectx, env)
        if rest is None:
            rest = self.expr(dt, (), r.int(1, 3), ectx, env)
        if rest is None:
            return None
        if how == 'new':
            return rest[0]
        if dt == 'i1':
            return Bin(r.choice(['&&', '||']), old, rest[0])
        op = r.weighted([(4, '+'), (2, '-'), (3, '*'), (1, 'max'), (1, 'sel')])
        if op == 'max':
            return Call(r.choice(['max', 'min']), [old, rest[0]])
        if op == 'sel':
            c = self.expr('i1', (), 1, ectx, env)
            return Sel(c[0], old, rest[0]) if c else old
        return Bin(op, old, rest[0]) if r.chance(0.6) else Bin(op, rest[0], old)

    def stmt_fill_update(self):
        """v[i] = e over the existing v's extent, where e does not subscript
        anything with i (`v[i] = i * i`): i is used only as a value, also in
        reductions (`d[i, j] = min(k) x[k] - f32(j)`); sometimes one index
        is ranged by e as well (over an equal size)."""
        r = self.rng
        cands = self.own_tensors(numeric=True)
        if not cands:
            return False
        xname, b = r.choice(cands)
        keys, shape = self.meta(b).keys, b.val.a.shape
        out = []
        for d, k in enumerate(keys):
            ranged = len(keys) == 2 and not out and r.chance(0.4)
            out.append((self.fresh('j' if d else 'i'), k if ranged else None, 0))
        env = self.index_env_sized([(v, n) for (v, _, _), n in zip(out, shape)])
        x = self.expr(b.val.t.dtype, (), r.int(1, 3), Ectx('index', out), env)
        if x is None:
            return False
        self.note('update fill')
        return self.commit(IDef(xname, [o[0] for o in out], x[0]),
                           {xname: Meta(keys=keys, interest=True)})

    # ------------------------------------------------------ parallel for

    def body_local_update(self, dt):
        """A tensor local to a parallel-for or loop body (a new one or a
        copy of an outer one: every iteration has its own), updated there at
        positions from the loop variables and reduced to a value of type dt
        (the yielded value, a term of a carried sum)."""
        r = self.rng
        s = self.fresh('s')
        outer = [t for t in self.tensors() if t[1].val.t.rank in (1, 2) and
                 t[1].val.t.dtype != 'i1' and t[0] not in self.env.scopes[-1]]
        copy = self.env.pdepth == 0 or self.on('pfor-local-copy')
        if outer and copy and r.chance(0.5):
            src, sb = r.choice(outer)
            node, keys = Var(src), self.meta(sb).keys
        else:
            sid = self.pick_sid()
            sdt = self.pick_dtype(numeric=True)
            keys = (sid,)
            d = self.dims_exprs(keys)
            if d is None or r.chance(0.3):
                node = TLit(sdt, [sid], r.next64(), self.domain(sdt))
            else:
                node = Call('zeros', [TypeArg(sdt, d)]) if r.chance(0.5) else \
                    Call('full', [TypeArg(sdt, d), self.lit(sdt)])
        if not self.commit(Let(s, node), {s: Meta(keys=keys)}):
            return None
        for _ in range(r.int(1, 2)):
            if r.chance(0.35):
                self.local_loop(s)
            else:
                self.stmt_elem_update(s)
        _, b = self.env.find(s)
        if r.chance(0.6):
            y = Call(r.choice(['sum', 'sum', 'max', 'min']), [Var(s)])
        else:
            y = Index(Var(s), [self.position(n, k, self.env)
                               for n, k in zip(b.val.a.shape, self.meta(b).keys)])
        y = y if b.val.t.dtype == dt else Cast(dt, y)
        self.note('update local')
        return self.finish_node(y, self.env)

    def carried_local_sum(self, names):
        """acc = acc + f(s) in a loop body, s a tensor local to the body
        (a copy of an outer one, updated): each iteration starts afresh."""
        scalars = [n for n in names if not self.env.find(n)[1].val.t.is_tensor and
                   self.env.find(n)[1].val.t.dtype != 'i1']
        if not scalars:
            return False
        acc = self.rng.choice(scalars)
        _, b = self.env.find(acc)
        y = self.body_local_update(b.val.t.dtype)
        return y is not None and self.commit(Let(acc, Bin('+', Var(acc), y[0])), {acc: b.meta})

    def local_loop(self, name):
        """for t in 0..m { name[t] = ... }: a tensor carried by a loop and
        updated at its loop variable."""
        r = self.rng
        _, b = self.env.find(name)
        t = self.fresh('t')
        trips = r.int(1, min(4, max(b.val.a.shape)))
        inner = self.env.push()
        self.declare_loop(inner, t, 0, (0, trips - 1))
        body = []
        with self.nested(inner, body):
            self.stmt_elem_update(name)
        return bool(body) and self.commit(For(t, Lit(0, 'i64'), Lit(trips, 'i64'), body), {})

    # ------------------------------------------------------ sizes, types

    def stmt_resize_if(self):
        """A name that gets another size in a branch of an `if`: its type
        is `?` there afterwards (section 5.3), and it is used after it."""
        r = self.rng
        vecs = [t for t in self.own_tensors(ranks=(1,)) if t[0] in self.updatable()]
        if not vecs:
            return False
        g, b = r.choice(vecs)
        dt = b.val.t.dtype
        c = self.expr('i1', (), 2)
        if c is None:
            return False
        blocks = ([], []) if r.chance(0.6) else ([],)
        for block in blocks:
            with self.nested(self.env.push(), block):
                node = self.resized(g, dt)
                if node is None or not self.commit(Let(g, node), {}):
                    return False
        if not self.commit(If(c[0], blocks[0], blocks[1] if len(blocks) > 1 else None), {}):
            return False
        _, b = self.env.find(g)
        b.meta = Meta(keys=(self.fresh_key(b.val.a.shape[0]),), interest=True)
        self.note('resize if')
        return True

    def resized(self, g, dt):
        """A new value for vector g of another size: a parallel for over
        dim(g, 0) + c or another size of the table, a literal, zeros."""
        r = self.rng
        how = r.weighted([(4, 'pfor'), (1, 'lit'), (1, 'zeros')])
        sid = self.pick_sid()
        if how == 'lit':
            return TLit(dt, [sid], r.next64(), self.domain(dt))
        if how == 'zeros' and dt != 'i1':
            d = self.dims_exprs((sid,))
            return None if d is None else Call('zeros', [TypeArg(dt, d)])
        dim_g = Call('dim', [Var(g), Lit(0, 'i64')])
        hi = r.choice([Bin('+', dim_g, Lit(r.int(1, 2), 'i64')), SizeLit(sid),
                       Call('max', [Bin('-', dim_g, Lit(1, 'i64')), Lit(1, 'i64')])])
        p = self.fresh('p')
        old = Index(Var(g), [Bin('%', Var(p), dim_g)])
        if dt == 'i1':
            y = Un('!', old) if r.chance(0.5) else old
        else:
            conv = Var(p) if dt == 'i64' else Cast(dt, Var(p))
            y = r.choice([Bin('+', old, conv), old, Bin('*', old, self.num(dt, 2))])
        return PFor([Range(p, Lit(0, 'i64'), hi)], None, [], y)

    def stmt_annotated(self):
        """name: T = e (section 5.1): `?` dims let later values of name have
        other sizes, a static size or a size variable checks the value's,
        and a scalar annotation types a literal (`h: f16 = 0.1`)."""
        r = self.rng
        name = self.fresh('v')
        if r.chance(0.3):
            dt = self.pick_dtype(numeric=True)
            x = self.lit(dt)
            if r.chance(0.4):
                x = Bin(r.choice(['+', '-', '*']), x, self.lit(dt))
            self.note('annotation scalar')
            return self.commit(Let(name, x, TypeArg(dt, [])), {name: Meta()})
        keys = self.target_keys(scalar_chance=0.0)
        if not keys:
            return False
        dt = self.pick_dtype()
        x = self.expr(dt, keys, r.int(1, 2))
        if x is None:
            return False
        dims = []
        for k in keys:
            e = self.size_expr(k) if r.chance(0.5) else None
            dims.append('?' if e is None or isinstance(e, Call) else e)
        self.note('annotation')
        return self.commit(Let(name, x[0], TypeArg(dt, dims)), {name: Meta(keys=keys)})

    # ------------------------------------------------------------ kernels

    def stmt_kernel(self):
        """A PolyBench-style kernel made of updates in `for` loops."""
        r = self.rng
        kernels = [(3, self.kernel_lu), (3, self.kernel_trisolve), (3, self.kernel_seidel),
                   (3, self.kernel_scan), (2, self.kernel_floyd), (2, self.kernel_normalize)]
        kernel = r.weighted(kernels)
        ok = kernel()
        self.note('kernel %s %s' % (kernel.__name__[len('kernel_'):], 'ok' if ok else 'dropped'))
        return ok

    def commit_kernel(self, stmt, *names):
        """Commits a kernel; its results are worth saving."""
        if not self.commit(stmt, {}):
            return False
        for n in names:
            _, b = self.env.find(n)
            b.meta = Meta(keys=self.meta(b).keys, interest=True)
        return True

    def kernel_dtype(self, division=False):
        """Exact mode divides only integers (a float quotient would round)."""
        r = self.rng
        if self.exact:
            return r.choice(['i64', 'i32'] if division else ['i64', 'i32', 'f32', 'f64', 'u64'])
        return r.choice(['f32', 'f64', 'f64'] if division else ['f32', 'f64', 'i64', 'f16'])

    def kernel_matrix(self, dt, diag=None, min_n=2):
        """A square matrix of type dt for a kernel, from an existing square
        tensor or a literal, plus diag(n) on its diagonal (diagonally
        dominant: eliminations divide by pivots far from 0)."""
        r = self.rng
        square = [(n, b) for n, b in self.tensors() if b.val.t.rank == 2 and
                  self.meta(b).keys[0] == self.meta(b).keys[1] and b.val.a.shape[0] >= min_n]
        if square and r.chance(0.5):
            src, sb = r.choice(square)
            key, sdt = self.meta(sb).keys[0], sb.val.t.dtype
        else:
            sids = [s for s in range(len(self.prog.sizes) - 1) if self.prog.sizes[s] >= min_n]
            if not sids:
                return None
            key, sdt, src = r.choice(sids), dt, self.fresh('x')
            lit = TLit(dt, [key, key], r.next64(), self.domain(dt))
            if not self.commit(Let(src, lit), {src: Meta(keys=(key, key))}):
                return None
        i, j = self.fresh('i'), self.fresh('j')
        x = Index(Var(src), [Var(i), Var(j)])
        x = x if sdt == dt else Cast(dt, x)
        if diag is not None:
            n = self.key_size[key]
            x = Bin('+', x, Sel(Bin('==', Var(i), Var(j)), self.num(dt, diag(n)), self.num(dt, 0)))
        name = self.fresh('a')
        return name if self.commit(IDef(name, [i, j], x), {name: Meta(keys=(key, key))}) else None

    def matrix_size(self, name):
        """(key, size, size expression) of square matrix `name`."""
        _, b = self.env.find(name)
        key = self.meta(b).keys[0]
        return key, b.val.a.shape[0], self.size_expr(key)

    def kernel_lu(self):
        """A few steps of LU without pivoting, in place:
             for k in 0..K { for i in k + 1..N {
               A[i, k] = A[i, k] / A[k, k]
               A[i, j] = j > k ? A[i, j] - A[i, k] * A[k, j] : A[i, j] } }
        or its column form: a column update `A[i, k] = i > k ? ... : A[i, k]`
        and a new A by index notation."""
        r = self.rng
        dt = self.kernel_dtype(division=True)
        # integer pivots of 1 or 2 give quotients that are not all 0
        small = not D.sc(dt).is_float and r.chance(0.6)
        A = self.kernel_matrix(dt, (lambda n: r.choice([1, 2])) if small else (lambda n: 8 * n))
        if A is None:
            return False
        key, n, N = self.matrix_size(A)
        if N is None:
            return False
        steps = r.int(1, n - 1)
        K = Bin('-', N.clone(), Lit(1, 'i64')) if steps == n - 1 and r.chance(0.5) else Lit(steps, 'i64')
        k = self.fresh('t')
        a = lambda s, t: Index(Var(A), [s, t])            # noqa: E731
        V = Var
        if r.chance(0.5):
            i, j = self.fresh('t'), self.fresh('j')
            elim = Bin('-', a(V(i), V(j)), Bin('*', a(V(i), V(k)), a(V(k), V(j))))
            inner = [Update(A, [V(i), V(k)], Bin('/', a(V(i), V(k)), a(V(k), V(k)))),
                     Update(A, [V(i), V(j)], Sel(Bin('>', V(j), V(k)), elim, a(V(i), V(j))))]
            body = [For(i, Bin('+', V(k), Lit(1, 'i64')), N.clone(), inner)]
        else:
            i, j = self.fresh('i'), self.fresh('j')
            elim = Bin('-', a(V(i), V(j)), Bin('*', a(V(i), V(k)), a(V(k), V(j))))
            body = [Update(A, [V(i), V(k)], Sel(Bin('>', V(i), V(k)),
                                                Bin('/', a(V(i), V(k)), a(V(k), V(k))), a(V(i), V(k)))),
                    IDef(A, [i, j], Sel(Bin('&&', Bin('>', V(i), V(k)), Bin('>', V(j), V(k))),
                                        elim, a(V(i), V(j))))]
        return self.commit_kernel(For(k, Lit(0, 'i64'), K, body), A)

    def kernel_trisolve(self):
        """Forward substitution with a unit lower triangle,
             for i in 0..N { x[i] = b[i] - sum(j) (j < i ? L[i, j] * x[j] : 0) }
        or back substitution dividing by the diagonal, i = N - 1 - t."""
        r = self.rng
        back = not self.exact and r.chance(0.5)
        dt = self.kernel_dtype(division=back)
        T = self.kernel_matrix(dt, (lambda n: 8 * n) if back else None, min_n=1)
        if T is None:
            return False
        key, n, N = self.matrix_size(T)
        vecs = [(v, b) for v, b in self.tensors() if self.meta(b).keys == (key,)]
        if vecs and r.chance(0.6):
            bname, bb = r.choice(vecs)
        else:
            bname = self.fresh('x')
            if not self.commit(Let(bname, TLit(dt, [key], r.next64(), self.domain(dt))),
                               {bname: Meta(keys=(key,))}):
                return False
            _, bb = self.env.find(bname)
        if N is None:
            return False
        conv = (lambda e: e) if bb.val.t.dtype == dt else (lambda e: Cast(dt, e))
        x = self.fresh('x')
        if not self.commit(Let(x, conv(Var(bname))), {x: Meta(keys=(key,))}):
            return False
        i, j = self.fresh('t'), self.fresh('j')
        V = Var

        def tri(cmp):
            prod = Bin('*', Index(V(T), [V(i), V(j)]), Index(V(x), [V(j)]))
            return Red('sum', [j], Sel(Bin(cmp, V(j), V(i)), prod, self.num(dt, 0)))
        rhs = Bin('-', conv(Index(V(bname), [V(i)])), tri('>' if back else '<'))
        if not back:
            loop = For(i, Lit(0, 'i64'), N, [Update(x, [V(i)], rhs)])
        else:
            t = self.fresh('t')
            body = [Let(i, Bin('-', Bin('-', N, Lit(1, 'i64')), V(t))),
                    Update(x, [V(i)], Bin('/', rhs, Index(V(T), [V(i), V(i)])))]
            loop = For(t, Lit(0, 'i64'), N.clone(), body)
        return self.commit_kernel(loop, x)

    def kernel_seidel(self):
        """Gauss-Seidel sweeps on a 1-D system, each update reading the ones
        made before it in the sweep:
             for s in 0..S { for i in 1..N - 1 {
               u[i] = 0.5 * (u[i - 1] + u[i + 1] + f[i]) } }"""
        r = self.rng
        vecs = [(v, b) for v, b in self.tensors() if b.val.t.rank == 1 and
                b.val.a.shape[0] >= 3 and b.val.t.dtype != 'i1']
        sids = [s for s in range(len(self.prog.sizes) - 1) if self.prog.sizes[s] >= 3]
        if not vecs or r.chance(0.3):
            if not sids:
                return False
            f, dt = self.fresh('x'), self.kernel_dtype()
            sid = r.choice(sids)
            if not self.commit(Let(f, TLit(dt, [sid], r.next64(), self.domain(dt))),
                               {f: Meta(keys=(sid,))}):
                return False
            vecs = [(f, self.env.find(f)[1])]
        f, fb = r.choice(vecs)
        dt, key = fb.val.t.dtype, self.meta(fb).keys[0]
        N = self.size_expr(key)
        if N is None:
            return False
        u = self.fresh('u')
        d = self.dims_exprs((key,))
        init = Var(f) if d is None or r.chance(0.5) else Call('zeros', [TypeArg(dt, d)])
        if not self.commit(Let(u, init), {u: Meta(keys=(key,))}):
            return False
        s, i = self.fresh('t'), self.fresh('t')
        V = Var
        at = lambda name, off: Index(V(name), [Bin(off, V(i), Lit(1, 'i64'))] if off else [V(i)])  # noqa
        total = Bin('+', Bin('+', at(u, '-'), at(u, '+')), at(f, None))
        new = Bin('*', self.num(dt, 0.5), total) if D.sc(dt).is_float else Bin('/', total, self.num(dt, 2))
        sweep = For(i, Lit(1, 'i64'), Bin('-', N, Lit(1, 'i64')), [Update(u, [V(i)], new)])
        return self.commit_kernel(For(s, Lit(0, 'i64'), Lit(r.int(1, 3), 'i64'), [sweep]), u)

    def kernel_scan(self):
        """Running sums, maxima or products along a vector
        (`x[i] = x[i - 1] + x[i]`), down the rows or along the columns of a
        matrix (`A[k, j] = A[k, j] + A[k - 1, j]`)."""
        r = self.rng
        cands = [(v, b) for v, b in self.own_tensors(numeric=True) if max(b.val.a.shape) >= 2]
        if not cands:
            return False
        x, b = r.choice(cands)
        keys, shape = self.meta(b).keys, b.val.a.shape
        d = r.choice([d for d in range(len(keys)) if shape[d] >= 2])
        N = self.size_expr(keys[d])
        if N is None:
            return False
        k = self.fresh('t')
        subs, prev = [], []
        for e in range(len(keys)):
            if e == d:
                subs.append(Var(k))
                prev.append(Bin('-', Var(k), Lit(1, 'i64')))
            else:
                j = self.fresh('j')
                subs.append(Var(j))
                prev.append(Var(j))
        cur, before = Index(Var(x), [s.clone() for s in subs]), Index(Var(x), prev)
        op = r.weighted([(4, '+'), (2, 'max'), (1, 'min'), (1, '-'), (1, '*')])
        new = Call(op, [before, cur]) if op in ('max', 'min') else Bin(op, before, cur)
        return self.commit_kernel(For(k, Lit(1, 'i64'), N, [Update(x, subs, new)]), x)

    def kernel_floyd(self):
        """Floyd-Warshall, a loop variable among index subscripts:
             for k in 0..N { D[i, j] = min(D[i, j], D[i, k] + D[k, j]) }"""
        r = self.rng
        dt = self.kernel_dtype()
        D_ = self.kernel_matrix(dt)
        if D_ is None:
            return False
        _, _, N = self.matrix_size(D_)
        if N is None:
            return False
        k, i, j = self.fresh('t'), self.fresh('i'), self.fresh('j')
        a = lambda s, t: Index(Var(D_), [Var(s), Var(t)])    # noqa: E731
        new = Call(r.choice(['min', 'max']), [a(i, j), Bin('+', a(i, k), a(k, j))])
        return self.commit_kernel(For(k, Lit(0, 'i64'), N, [IDef(D_, [i, j], new)]), D_)

    def kernel_normalize(self):
        """Each row divided by its old pivot, the update reading the value
        it replaces: for k in 0..N { A[k, j] = A[k, j] / A[k, k] }"""
        dt = self.kernel_dtype(division=True)
        A = self.kernel_matrix(dt, lambda n: 8 * n)
        if A is None:
            return False
        _, _, N = self.matrix_size(A)
        if N is None:
            return False
        k, j = self.fresh('t'), self.fresh('j')
        new = Bin('/', Index(Var(A), [Var(k), Var(j)]), Index(Var(A), [Var(k), Var(k)]))
        return self.commit_kernel(For(k, Lit(0, 'i64'), N, [Update(A, [Var(k), Var(j)], new)]), A)
