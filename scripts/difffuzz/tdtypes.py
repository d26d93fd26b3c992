"""The front end's static types, modelled after compiler/Frontend/Types.h.

A dimension is static (a number), symbolic (a name from a signature) or
dynamic (`?`). The interpreter checks every program against these rules
(broadcasting, index ranges, carried names keep their exact type, call
unification) so that the generator only emits programs the front end must
accept; a program it accepts and tdslc rejects is a finding.
"""


class Dim:
    __slots__ = ('kind', 'size', 'name')

    def __init__(self, kind, size=None, name=None):
        self.kind, self.size, self.name = kind, size, name   # 'static' | 'sym' | 'dyn'

    @staticmethod
    def static(n):
        return Dim('static', size=n)

    @staticmethod
    def sym(name):
        return Dim('sym', name=name)

    @staticmethod
    def dyn():
        return Dim('dyn')

    def is_one(self):
        return self.kind == 'static' and self.size == 1

    def compatible(self, o):
        if self.kind == 'dyn' or o.kind == 'dyn':
            return True
        if self.kind != o.kind:
            return False
        return self.size == o.size if self.kind == 'static' else self.name == o.name

    def __eq__(self, o):
        return isinstance(o, Dim) and (self.kind, self.size, self.name) == (o.kind, o.size, o.name)

    def __hash__(self):
        return hash((self.kind, self.size, self.name))

    def __repr__(self):
        return {'static': str(self.size), 'sym': self.name, 'dyn': '?'}.get(self.kind)


class Type:
    """dtype: a scalar type name; dims: None for a scalar, else a tuple of Dim."""
    __slots__ = ('dtype', 'dims')

    def __init__(self, dtype, dims=None):
        self.dtype = dtype
        self.dims = None if dims is None else tuple(dims)

    @property
    def is_tensor(self):
        return self.dims is not None

    @property
    def rank(self):
        return 0 if self.dims is None else len(self.dims)

    def with_dtype(self, dtype):
        return Type(dtype, self.dims)

    def __eq__(self, o):
        return isinstance(o, Type) and self.dtype == o.dtype and self.dims == o.dims

    def __hash__(self):
        return hash((self.dtype, self.dims))

    def __repr__(self):
        if self.dims is None:
            return self.dtype
        return '%s[%s]' % (self.dtype, ', '.join(map(repr, self.dims)))


class SemaError(Exception):
    """The program breaks a rule of the front end (the generator retries)."""


def broadcast(a, b, dtype):
    """Checker::broadcast: the static type of an element-wise a (op) b."""
    if not a.is_tensor and not b.is_tensor:
        return Type(dtype)
    if not a.is_tensor:
        return Type(dtype, b.dims)
    if not b.is_tensor:
        return Type(dtype, a.dims)
    rank = max(a.rank, b.rank)
    out = [None] * rank
    for i in range(rank):
        da = a.dims[a.rank - 1 - i] if i < a.rank else None
        db = b.dims[b.rank - 1 - i] if i < b.rank else None
        if da is None or (da.is_one() and db is not None):
            r = db
        elif db is None or db.is_one():
            r = da
        elif da.compatible(db):
            r = db if da.kind == 'dyn' else da
        else:
            raise SemaError('shapes %r and %r cannot be broadcast together' % (a, b))
        out[rank - 1 - i] = r
    return Type(dtype, out)


def matmul_type(a, b):
    if not a.is_tensor or not b.is_tensor or a.rank > 2 or b.rank > 2 or (a.rank == 1 and b.rank == 1):
        raise SemaError("'@' of %r and %r" % (a, b))
    if not a.dims[-1].compatible(b.dims[0]):
        raise SemaError("inner dimensions of '@' do not match: %r @ %r" % (a, b))
    dims = []
    if a.rank == 2:
        dims.append(a.dims[0])
    if b.rank == 2:
        dims.append(b.dims[1])
    return Type(a.dtype, dims)
