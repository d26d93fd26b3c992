"""What the generator knows of the names it made, beside their values.

Kept apart from gen so that the builders of updates.py (a mixin of gen.Gen)
can use it without a circular import.
"""


class Meta:
    """What the generator knows of a name: dim keys of a tensor, the key of
    the size an integer scalar holds, whether it is worth saving (the
    result of a construct that is easy to get wrong), and for an integer
    scalar the span (lo, hi) of every value it takes where it is visible (a
    loop variable): a position that fits every iteration, not just the one
    the generator samples."""
    __slots__ = ('keys', 'size_key', 'interest', 'span')

    def __init__(self, keys=None, size_key=None, interest=False, span=None):
        self.keys, self.size_key, self.interest, self.span = keys, size_key, interest, span


class Ectx:
    """Element context: index variables (index notation) or loop variables
    (parallel for) in scope, each as (name, key, offset); key None for an
    index used only as a value (no tensor is subscripted by it)."""

    def __init__(self, kind, vars_):
        self.kind = kind            # 'index' | 'loop'
        self.vars = list(vars_)

    def plus(self, more):
        return Ectx(self.kind, self.vars + list(more))
