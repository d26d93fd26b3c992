"""Shrinks a failing program on its tree while its failure signature stays.

Edits, in rounds until none helps (or the time budget is spent):
  - delete a statement (any block: main, helpers, loop and branch bodies);
  - drop helpers and imports that are no longer used;
  - replace an alias `a = b` by b;
  - shrink each entry of the size table to 1 or 2;
  - replace random, loaded or created tensors by tensor literals;
  - lower integer literals (trip counts, constants) to 1 or 0;
  - replace a subexpression by one of its operands or by a literal;
  - switch an approx program to exact mode.
Each candidate is re-interpreted (so its expected values are recomputed and
an edit that makes it invalid or undefined is refused) and run in the
configurations of the signature only; it is kept when the same failure kind
shows in all of them.
"""
import time

from . import driver
from .interp import Interp
from .sem import UB, Semantics
from .tdtypes import SemaError
from .tree import (Bin, Call, Cast, Expr, Index, Let, Lit, Load, PFor, Red, Sel, SizeLit, Stmt, Str,
                   TLit, TypeArg, Un, Var, get_slot, set_slot, slots, walk)


class Reducer:
    def __init__(self, tools, kind, configs, features=(), budget=180.0, log=None):
        self.tools = tools
        self.kind = kind
        self.configs = sorted(configs)
        self.run_configs = sorted({c for cfg in configs
                                   for c in (['cpu-O2-t1', 'cpu-O2-t2'] if cfg == 'cpu-O2-t1/t2' else [cfg])})
        self.features = features
        self.deadline = time.time() + budget
        self.log = log or (lambda msg: None)
        self.tries = 0

    def out_of_time(self):
        return time.time() > self.deadline

    def still_fails(self, prog):
        """Does the candidate stay valid and keep the failure?"""
        self.tries += 1
        try:
            checked = driver.prepare(prog, self.features)
        except (SemaError, UB, RecursionError):
            return None
        driver.run(checked, self.tools, self.run_configs)
        return checked if driver.has_signature(checked, self.kind, self.configs) else None

    def attempt(self, prog, edit):
        """Applies edit(clone) (False: not applicable); returns the clone if
        it still fails."""
        if self.out_of_time():
            return None
        cand = prog.clone()
        if edit(cand) is False:
            return None
        return cand if self.still_fails(cand) else None

    # ------------------------------------------------------------ passes

    def reduce(self, prog):
        while not self.out_of_time():
            before = self.size(prog)
            for p in (self.delete_statements, self.drop_unused, self.unalias, self.shrink_sizes,
                      self.literal_sources, self.lower_literals, self.simplify_exprs,
                      self.exact_mode):
                prog = p(prog)
            if self.size(prog) >= before:
                break
        return prog

    @staticmethod
    def size(prog):
        """What the reducer minimizes: nodes, used sizes, approx mode."""
        used = set()
        for n in walk(prog):
            if isinstance(n, SizeLit):
                used.add(n.sid)
            elif isinstance(n, (TLit, Load)):
                used.update(n.sids)
        return sum(1 for _ in walk(prog)) + sum(prog.sizes[s] for s in used) + (prog.mode == 'approx')

    def positions(self, prog, pred):
        return [k for k, (o, f, i) in enumerate(slots(prog)) if pred(get_slot(o, f, i), o, f, i)]

    def edit_slot(self, k, fn):
        """An edit of the k-th child position of a clone."""
        def edit(cand):
            owner, field, i = list(slots(cand))[k]
            return fn(cand, owner, field, i)
        return edit

    def walk_positions(self, prog, pred, make_edits):
        """Tries the edits of each matching position; positions are
        recomputed after every success."""
        k = 0
        while not self.out_of_time():
            pos = self.positions(prog, pred)
            pos = [p for p in pos if p >= k]
            if not pos:
                break
            k = pos[0]
            for fn in make_edits(prog, k):
                cand = self.attempt(prog, self.edit_slot(k, fn))
                if cand is not None:
                    prog = cand
                    self.log('  reduced: %d nodes' % self.size(prog))
                    break
            else:
                k += 1
        return prog

    def delete_statements(self, prog):
        def is_stmt(node, owner, field, i):
            return isinstance(node, Stmt) and i is not None

        def edits(prog, k):
            def delete(cand, owner, field, i):
                getattr(owner, field).pop(i)
            return [delete]
        return self.walk_positions(prog, is_stmt, edits)

    def drop_unused(self, prog):
        called = {n.fn for n in walk(prog) if isinstance(n, Call)}
        for f in list(prog.fns):
            if f.name not in called:
                cand = self.attempt(prog, lambda c, name=f.name: c.fns.remove(c.fn(name)))
                if cand is not None:
                    prog = cand
        for m in list(prog.imports):
            if not any(n.fn.startswith(m + '.') for n in walk(prog) if isinstance(n, Call)):
                cand = self.attempt(prog, lambda c, m=m: c.imports.remove(m))
                if cand is not None:
                    prog = cand
        return prog

    def unalias(self, prog):
        """`a = b`: use b for a everywhere and drop the binding."""
        def is_alias(node, owner, field, i):
            return isinstance(node, Let) and isinstance(node.x, Var) and i is not None

        def edits(prog, k):
            def rename(cand, owner, field, i):
                let = getattr(owner, field).pop(i)
                for n in walk(cand):
                    if isinstance(n, Var) and n.name == let.name:
                        n.name = let.x.name
            return [rename]
        return self.walk_positions(prog, is_alias, edits)

    def literal_sources(self, prog):
        """Random, loaded or created tensors become tensor literals."""
        def is_source(node, owner, field, i):
            return isinstance(node, Load) or (isinstance(node, Call) and node.fn in (
                'uniform', 'normal', 'zeros', 'ones', 'full', 'arange'))

        def edits(prog, k):
            owner, field, i = list(slots(prog))[k]
            t = self.type_of(prog, get_slot(owner, field, i))
            if t is None or not t.is_tensor or any(d.kind != 'static' for d in t.dims):
                return []

            def to_literal(cand, owner, field, i):
                sids = []
                for d in t.dims:
                    cand.sizes.append(d.size)
                    sids.append(len(cand.sizes) - 1)
                domain = 'bool' if t.dtype == 'i1' else 'small'
                set_slot(owner, field, i, TLit(t.dtype, sids, 1, domain))
            return [to_literal]
        return self.walk_positions(prog, is_source, edits)

    def shrink_sizes(self, prog):
        for sid in range(len(prog.sizes)):
            for n in (1, 2):
                if prog.sizes[sid] <= n:
                    continue

                def edit(cand, sid=sid, n=n):
                    cand.sizes[sid] = n
                cand = self.attempt(prog, edit)
                if cand is not None:
                    prog = cand
                    break
        return prog

    def lower_literals(self, prog):
        def is_int_lit(node, owner, field, i):
            if isinstance(node, SizeLit):
                return node.delta != 0
            return isinstance(node, Lit) and isinstance(node.value, int) and \
                not isinstance(node.value, bool) and node.value != 0 and \
                not (isinstance(owner, Call) and owner.fn == 'dim')

        def edits(prog, k):
            out = []
            for v in (1, 0):
                def put(cand, owner, field, i, v=v):
                    node = get_slot(owner, field, i)
                    if isinstance(node, SizeLit):
                        node.delta = 0
                    elif abs(node.value) <= v:
                        return False
                    else:
                        node.value = v if node.value > 0 or node.dtype == 'u64' else -v
                out.append(put)
            return out
        return self.walk_positions(prog, is_int_lit, edits)

    def simplify_exprs(self, prog):
        def is_compound(node, owner, field, i):
            return isinstance(node, (Bin, Un, Sel, Cast, Call, Red, PFor, Index, TLit)) and \
                not (isinstance(owner, Call) and owner.fn in ('save', 'dim'))

        def edits(prog, k):
            owner, field, i = list(slots(prog))[k]
            node = get_slot(owner, field, i)
            out = []
            kids = self.operands(node)
            for j in range(len(kids)):
                def to_child(cand, owner, field, i, j=j):
                    n = get_slot(owner, field, i)
                    kid = self.operands(n)[j]
                    set_slot(owner, field, i, kid)
                out.append(to_child)
            dtype = self.scalar_dtype(prog, node)
            if dtype:
                for v in (1, 0):
                    def to_lit(cand, owner, field, i, v=v, dtype=dtype):
                        set_slot(owner, field, i, Lit(v if dtype != 'i1' else bool(v),
                                                      dtype) if dtype not in ('f16', 'bf16', 'f32', 'f64')
                                 else Lit(float(v), dtype))
                    out.append(to_lit)
            return out
        return self.walk_positions(prog, is_compound, edits)

    @staticmethod
    def operands(node):
        """The children that could stand in for a node."""
        if isinstance(node, (PFor, Red)):
            return []
        return [c for c in node.children() if isinstance(c, Expr) and not isinstance(c, (TypeArg, Str))]

    def scalar_dtype(self, prog, node):
        """The element type of `node` if it is a scalar, else None."""
        t = self.type_of(prog, node)
        if t is None or t.is_tensor or t.dtype == 'void':
            return None
        return t.dtype

    def type_of(self, prog, node):
        """The static type of `node` (from one run of the interpreter that
        records types), or None."""
        if not hasattr(self, '_types') or self._types_of is not prog:
            self._types_of = prog
            self._types = {}
            it = Interp(prog, Semantics(prog.mode == 'exact'), self.features)
            orig = it.eval

            def eval_rec(e, env, orig=orig):
                v = orig(e, env)
                self._types[id(e)] = v.t
                return v
            it.eval = eval_rec
            try:
                it.run()
            except (SemaError, UB):
                pass
        return self._types.get(id(node))

    def exact_mode(self, prog):
        if prog.mode == 'exact':
            return prog

        def edit(cand):
            cand.mode = 'exact'
        cand = self.attempt(prog, edit)
        return cand or prog
