"""The program tree the generator builds, and its rendering as TDSL text.

The tree is the unit of work of the whole fuzzer: the interpreter evaluates
it, the renderer prints it, the reducer edits it. Sizes of dimensions are
not written into the tree: a `SizeLit` names an entry of the program's size
table, so the reducer can shrink a dimension everywhere at once. Tensor
literals and input files hold a seed, not data: their contents are drawn
again from the seed for whatever shape they end up with.

Rendering parenthesizes every compound operand (the parser drops the
parentheses), and writes a literal bare only where the other operand fixes
its type (`x * 2` with x: f16); elsewhere `f16(2.5)`.
"""
import copy
import numbers


class Node:
    _fields = ()        # attributes holding child nodes or lists of them

    def children(self):
        for f in self._fields:
            v = getattr(self, f)
            if isinstance(v, list):
                for c in v:
                    if isinstance(c, Node):     # not the '?' of a TypeArg
                        yield c
            elif v is not None:
                yield v

    def clone(self):
        return copy.deepcopy(self)


# ---------------------------------------------------------------- expressions

class Expr(Node):
    pass


class Lit(Expr):
    """A scalar literal of type `dtype` (value: int, float or bool)."""
    def __init__(self, value, dtype):
        self.value, self.dtype = value, dtype


class Dec(Lit):
    """A float literal written as a short decimal (`0.1`, `f64(0.1)`): its
    value is the number of its type nearest the decimal (value holds the
    nearest float64, whose repr is the decimal), not a float32 widened."""


class SizeLit(Expr):
    """An i64 literal: entry `sid` of the program's size table (+ `delta`)."""
    def __init__(self, sid, delta=0):
        self.sid, self.delta = sid, delta


class Var(Expr):
    def __init__(self, name):
        self.name = name


class Str(Expr):
    def __init__(self, s):
        self.s = s


class Un(Expr):
    _fields = ('x',)

    def __init__(self, op, x):
        self.op, self.x = op, x


class Bin(Expr):
    _fields = ('a', 'b')

    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b


class Sel(Expr):
    _fields = ('c', 'a', 'b')

    def __init__(self, c, a, b):
        self.c, self.a, self.b = c, a, b


class Cast(Expr):
    _fields = ('x',)

    def __init__(self, dtype, x):
        self.dtype, self.x = dtype, x


class TypeArg(Expr):
    """`f32[4, n]` as an argument of a built-in; dims: SizeLit, Var or '?'."""
    _fields = ('dims',)

    def __init__(self, dtype, dims):
        self.dtype, self.dims = dtype, dims


class Call(Expr):
    """A built-in (`exp`, `zeros`, `dim`, ...), `math.dot` or a helper."""
    _fields = ('args',)

    def __init__(self, fn, args):
        self.fn, self.args = fn, args


class Index(Expr):
    _fields = ('base', 'subs')

    def __init__(self, base, subs):
        self.base, self.subs = base, subs


class Red(Expr):
    """`sum(k, l) body` (kind: sum | max | min) in index notation."""
    _fields = ('body',)

    def __init__(self, kind, idxs, body):
        self.kind, self.idxs, self.body = kind, idxs, body


class Range(Node):
    _fields = ('lo', 'hi')

    def __init__(self, var, lo, hi):
        self.var, self.lo, self.hi = var, lo, hi


class PFor(Expr):
    """`parallel for ranges [reduce(op)] { body; yield y }`."""
    _fields = ('ranges', 'body', 'y')

    def __init__(self, ranges, reduce, body, y):
        self.ranges, self.reduce, self.body, self.y = ranges, reduce, body, y


class TLit(Expr):
    """A tensor literal of shape `sids` whose elements are drawn from `seed`
    in value domain `domain` (see interp.literal_data)."""
    def __init__(self, dtype, sids, seed, domain):
        self.dtype, self.sids, self.seed, self.domain = dtype, sids, seed, domain


class Load(Expr):
    """`load("in<k>.npy", T[dims])`: dims `?` where `dyn[d]`, else static."""
    def __init__(self, k, dtype, sids, dyn, seed, domain):
        self.k, self.dtype, self.sids, self.dyn = k, dtype, sids, dyn
        self.seed, self.domain = seed, domain


# ---------------------------------------------------------------- statements

class Stmt(Node):
    pass


class Let(Stmt):
    """`name = x`, or `name: T = x` with `ann` a TypeArg (dims SizeLit, Var
    or '?'; none for a scalar): T is then the name's type."""
    _fields = ('x', 'ann')

    def __init__(self, name, x, ann=None):
        self.name, self.x, self.ann = name, x, ann


class IDef(Stmt):
    """`name[i, j] = x` (index notation)."""
    _fields = ('x',)

    def __init__(self, name, idxs, x):
        self.name, self.idxs, self.x = name, idxs, x


class Update(Stmt):
    """`name[s0, s1] = x` where some subscript is not a new name: an element,
    row or column update of the existing tensor `name` (a `Var` that is not
    bound there is a new index, ranging over that dimension, as the front
    end decides it)."""
    _fields = ('subs', 'x')

    def __init__(self, name, subs, x):
        self.name, self.subs, self.x = name, subs, x


class For(Stmt):
    _fields = ('lo', 'hi', 'body')

    def __init__(self, var, lo, hi, body):
        self.var, self.lo, self.hi, self.body = var, lo, hi, body


class If(Stmt):
    _fields = ('c', 'then', 'els')

    def __init__(self, c, then, els):
        self.c, self.then, self.els = c, then, els


class Do(Stmt):
    """An expression statement: `save(...)`."""
    _fields = ('x',)

    def __init__(self, x):
        self.x = x


class Fn(Node):
    """A helper function. params: [(name, dtype, dims)] with dims None for a
    scalar or a list of str ('N', '4', '?'); result likewise (or None)."""
    _fields = ('body', 'ret')

    def __init__(self, name, params, result, body, ret):
        self.name, self.params, self.result, self.body, self.ret = name, params, result, body, ret


class Program(Node):
    _fields = ('fns', 'main')

    def __init__(self, sizes, fns, main, imports=(), mode='exact'):
        self.sizes = sizes          # the size table (ints >= 1)
        self.fns = fns
        self.main = main
        self.imports = list(imports)
        self.mode = mode

    def fn(self, name):
        for f in self.fns:
            if f.name == name:
                return f
        return None


# ----------------------------------------------------------------- traversal

def walk(node):
    """Every node below (and including) `node`, parents first."""
    yield node
    for c in node.children():
        yield from walk(c)


def slots(node):
    """(owner, field, index) of every child position under `node` (index is
    None for a plain field); used by the reducer to replace subtrees."""
    for f in node._fields:
        v = getattr(node, f)
        if isinstance(v, list):
            for i, c in enumerate(v):
                if isinstance(c, Node):
                    yield node, f, i
                    yield from slots(c)
        elif v is not None:
            yield node, f, None
            yield from slots(v)


def get_slot(owner, field, i):
    v = getattr(owner, field)
    return v if i is None else v[i]


def set_slot(owner, field, i, new):
    if i is None:
        setattr(owner, field, new)
    else:
        getattr(owner, field)[i] = new


# ----------------------------------------------------------------- rendering


def fmt_float(v):
    s = repr(float(v))
    if 'inf' in s or 'nan' in s:
        raise ValueError('non-finite literal')
    return s


def fmt_scalar(value, dtype):
    """A literal's digits (no sign handling beyond a leading '-')."""
    if dtype == 'i1':
        return 'true' if value else 'false'
    if dtype in ('f16', 'bf16', 'f32', 'f64'):
        return fmt_float(value)
    return str(int(value))     # u64 above 2^63 too: a literal takes its type


def literal_only(e):
    """An expression made of literals only has no type of its own."""
    if isinstance(e, (Lit, SizeLit)):
        return not (isinstance(e, Lit) and e.dtype == 'i1')
    if isinstance(e, Un):
        return literal_only(e.x)
    if isinstance(e, Bin):
        return literal_only(e.a) and literal_only(e.b)
    return False


def literal_dtype(e):
    """The type of the literals of a literal-only expression, else None."""
    if not literal_only(e):
        return None
    for n in walk(e):
        if isinstance(n, Lit):
            return n.dtype
        if isinstance(n, SizeLit):
            return 'i64'
    return None


INT_RANGES = {'i32': (-2**31, 2**31 - 1), 'i64': (-2**63, 2**63 - 1), 'u64': (0, 2**64 - 1)}


class Renderer:
    def __init__(self, prog):
        self.prog = prog

    def size(self, e):
        return self.prog.sizes[e.sid] + e.delta

    # -- expressions
    def lit(self, e, bare):
        """Bare where the context types it; `i64` and `f32` are the types an
        unfixed integer or float literal gets; others are converted."""
        text = fmt_scalar(e.value, e.dtype)
        if e.dtype == 'i1' or bare:
            return text
        is_float_text = '.' in text or 'e' in text
        if (e.dtype == 'i64' and not is_float_text) or (e.dtype == 'f32' and is_float_text):
            return text
        return '%s(%s)' % (e.dtype, text)

    def operand(self, e, bare=False):
        s = self.expr(e, bare)
        atomic = isinstance(e, (Var, SizeLit, Call, Cast, Index, TLit, Load, Str, TypeArg)) or \
            (isinstance(e, Lit) and not s.startswith('-'))
        return s if atomic else '(' + s + ')'

    def pair(self, a, b):
        """Operands that unify their element types (binary ops, ?: branches)."""
        la, lb = literal_only(a), literal_only(b)
        return self.operand(a, la and not lb), self.operand(b, lb and not la)

    def expr(self, e, bare=False):
        m = getattr(self, 'e_' + type(e).__name__)
        return m(e, bare)

    def e_Lit(self, e, bare):
        return self.lit(e, bare)

    e_Dec = e_Lit

    def e_SizeLit(self, e, bare):
        return str(self.size(e))

    def e_Var(self, e, bare):
        return e.name

    def e_Str(self, e, bare):
        return '"%s"' % e.s

    def e_Un(self, e, bare):
        return e.op + self.operand(e.x, bare)

    def e_Bin(self, e, bare):
        a, b = self.pair(e.a, e.b)
        return '%s %s %s' % (a, e.op, b)

    def e_Sel(self, e, bare):
        a, b = self.pair(e.a, e.b)
        return '%s ? %s : %s' % (self.operand(e.c), a, b)

    def e_Cast(self, e, bare):
        inner = self.expr(e.x)
        own = literal_dtype(e.x)
        # An integer literal that does not fit the target integer type would
        # be an error in its type (`i32(9223372036854775806)`): the reference
        # converts the i64 value, so it is written `i32(i64(...))`.
        wide = isinstance(e.x, Lit) and e.dtype in INT_RANGES and \
            isinstance(e.x.value, numbers.Integral) and not isinstance(e.x.value, bool) and \
            not INT_RANGES[e.dtype][0] <= e.x.value <= INT_RANGES[e.dtype][1]
        if own and own != e.dtype and (wide or not (isinstance(e.x, Lit) and not isinstance(e.x, Dec))) \
                and not inner.startswith(own + '('):
            # A conversion gives literals its own type (`f64(0.1)` is the
            # double nearest 0.1, `f32(7 / 2)` is 3.5): keep theirs first.
            inner = '%s(%s)' % (own, inner)
        return '%s(%s)' % (e.dtype, inner)

    def e_TypeArg(self, e, bare):
        dims = [d if isinstance(d, str) else self.expr(d) for d in e.dims]
        return '%s[%s]' % (e.dtype, ', '.join(dims)) if dims else e.dtype

    def e_Call(self, e, bare):
        args = e.args
        if e.fn in ('max', 'min', 'pow') and len(args) == 2:
            parts = list(self.pair(args[0], args[1]))
        elif e.fn in ('dim', 'uniform', 'normal', 'arange'):
            parts = [self.expr(a, True) for a in args]
        else:
            parts = []
            for i, a in enumerate(args):
                bare_arg = self.call_arg_bare(e, i)
                parts.append(self.expr(a, bare_arg))
        return '%s(%s)' % (e.fn, ', '.join(parts))

    def call_arg_bare(self, e, i):
        """Literal arguments of user functions take the parameter's type."""
        f = self.prog.fn(e.fn)
        return f is not None or e.fn.startswith('math.')

    def e_Index(self, e, bare):
        return '%s[%s]' % (self.operand(e.base), ', '.join(self.expr(s, True) for s in e.subs))

    def e_Red(self, e, bare):
        return '%s(%s) (%s)' % (e.kind, ', '.join(e.idxs), self.expr(e.body))

    def e_TLit(self, e, bare):
        from .interp import literal_data
        data = literal_data(e, self.prog.sizes)
        def nest(x):
            if isinstance(x, list):
                return '[' + ', '.join(nest(y) for y in x) + ']'
            if e.dtype == 'i1':
                return 'true' if x else 'false'
            return fmt_scalar(x, e.dtype)
        if e.domain == 'dec':               # the decimals, as written
            data = literal_data(e, self.prog.sizes, raw=True)
        text = nest(data.tolist())
        if e.dtype in ('i64', 'f32', 'i1'):
            return text
        return '%s(%s)' % (e.dtype, text)

    def e_Load(self, e, bare):
        dims = ['?' if dyn else str(self.prog.sizes[s]) for s, dyn in zip(e.sids, e.dyn)]
        return 'load("in%d.npy", %s[%s])' % (e.k, e.dtype, ', '.join(dims))

    def e_PFor(self, e, bare, indent=0):
        pad = '  ' * (indent + 1)
        rs = ', '.join('%s in %s..%s' % (r.var, self.operand(r.lo, True), self.operand(r.hi, True))
                       for r in e.ranges)
        red = ' reduce(%s)' % e.reduce if e.reduce else ''
        lines = ['parallel for %s%s {' % (rs, red)]
        lines += self.block_lines(e.body, indent + 1)
        lines.append(pad + 'yield ' + self.expr(e.y))
        lines.append('  ' * indent + '}')
        return '\n'.join(lines)

    # -- statements
    def stmt_lines(self, s, indent):
        pad = '  ' * indent
        if isinstance(s, Let):
            if s.ann is not None:           # the annotation types a literal
                return [pad + '%s: %s = %s' % (s.name, self.expr(s.ann),
                                               self.top_expr(s.x, indent, literal_only(s.x)))]
            return [pad + '%s = %s' % (s.name, self.top_expr(s.x, indent))]
        if isinstance(s, IDef):
            return [pad + '%s[%s] = %s' % (s.name, ', '.join(s.idxs), self.top_expr(s.x, indent))]
        if isinstance(s, Update):
            subs = ', '.join(self.expr(e, True) for e in s.subs)
            return [pad + '%s[%s] = %s' % (s.name, subs, self.top_expr(s.x, indent))]
        if isinstance(s, Do):
            return [pad + self.top_expr(s.x, indent)]
        if isinstance(s, For):
            out = [pad + 'for %s in %s..%s {' % (s.var, self.operand(s.lo, True), self.operand(s.hi, True))]
            out += self.block_lines(s.body, indent + 1)
            return out + [pad + '}']
        if isinstance(s, If):
            out = [pad + 'if %s {' % self.expr(s.c)]
            out += self.block_lines(s.then, indent + 1)
            if s.els:
                out.append(pad + '} else {')
                out += self.block_lines(s.els, indent + 1)
            return out + [pad + '}']
        raise TypeError(s)

    def top_expr(self, x, indent, bare=False):
        """An expression at statement level (a parallel for keeps its layout)."""
        if isinstance(x, PFor):
            return self.e_PFor(x, False, indent)
        return self.expr(x, bare)

    def block_lines(self, stmts, indent):
        out = []
        for s in stmts:
            out += self.stmt_lines(s, indent)
        return out

    def fn_lines(self, f):
        def ty(dtype, dims):
            return dtype if dims is None else '%s[%s]' % (dtype, ', '.join(dims))
        params = ', '.join('%s: %s' % (n, ty(d, dims)) for n, d, dims in f.params)
        res = '' if f.result is None else ' -> ' + ty(*f.result)
        out = ['fn %s(%s)%s {' % (f.name, params, res)]
        out += self.block_lines(f.body, 1)
        if f.ret is not None:
            out.append('  return ' + self.expr(f.ret, True))
        return out + ['}']

    def program(self):
        out = ['// difffuzz program (%s mode)' % self.prog.mode]
        out += ['import %s' % m for m in self.prog.imports]
        for f in self.prog.fns:
            out += [''] + self.fn_lines(f)
        out += ['', 'fn main() {'] + self.block_lines(self.prog.main, 1) + ['}', '']
        return '\n'.join(out)


def render(prog):
    return Renderer(prog).program()
