"""einsum: Out = numpy.einsum(equation, *Operands) (Paddle 3's paddle.einsum op).

An output subscript may repeat ('i,j->ii' puts the result on a diagonal, 3.3.1's
"undiagonalize"). The gradient of operand i is an einsum too: Out@GRAD with the other
operands, into operand i's subscripts, where a letter repeated in operand i (a diagonal)
is paired with an identity matrix and a letter only operand i has (summed away) with a
vector of ones; ellipsis dims an operand broadcast (size 1) sum back down; complex
operands enter conjugated (Paddle's dL/dRe + i dL/dIm)."""
import numpy as np

from ..broadcasting import sum_to_shape
from ._common import conj, rand
from .registry import OpDef, Sample, register

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def explicit(equation, ndims):
    """(operand subscripts, output subscripts) of `equation` with its ellipses spelled
    out in unused letters and an implicit output made explicit (numpy's rule: the letters
    that occur once, sorted, after the ellipsis dims)."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise ValueError("einsum: equation %r has %d operands, got %d tensors"
                         % (equation, len(terms), len(ndims)))
    free = [c for c in _LETTERS if c not in equation]
    span = max([nd - len(t.replace("...", "")) for t, nd in zip(terms, ndims)
                if "..." in t] or [0])
    ellipsis = "".join(free[:span])
    subs = [t.replace("...", ellipsis[span - (nd - len(t.replace("...", ""))):])
            for t, nd in zip(terms, ndims)]
    if arrow:
        out = rhs.replace("...", ellipsis)
    else:
        letters = "".join(subs)
        out = ellipsis + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                        and c not in ellipsis))
    return subs, out


def _sizes(terms):
    """{letter: its size}: the largest over the terms (a size-1 dim broadcasts)."""
    sizes = {}
    for sub, x in terms:
        for c, d in zip(sub, x.shape):
            sizes[c] = max(sizes.get(c, 1), d)
    return sizes


def _contract(terms, target, sizes, dtype):
    """numpy.einsum of terms [(subscripts, array)] into target, whose letters may repeat
    (a diagonal: an identity ties a fresh letter to the first) or be in no term (taken as
    broadcast: a vector of ones)."""
    terms = list(terms)
    seen = "".join(sub for sub, _ in terms)
    spelled = ""
    for c in target:
        if c in spelled:
            fresh = next(f for f in _LETTERS if f not in seen + spelled + target)
            terms.append((c + fresh, np.eye(sizes[c], dtype=dtype)))
            c = fresh
        elif c not in seen:
            terms.append((c, np.ones(sizes[c], dtype)))
        spelled += c
        seen += c
    return np.einsum("%s->%s" % (",".join(sub for sub, _ in terms), spelled),
                     *[a for _, a in terms])


@register
class Einsum(OpDef):
    """Out; InnerCache and XShape (3.3.1's op: its kernel's intermediates for the grad
    op, which refimpl's does not need) are accepted and written empty ([0] each)."""
    type = "einsum"
    inputs = ("Operands*",)
    outputs = ("Out", "InnerCache*?", "XShape*?")
    internal_outputs = ("InnerCache", "XShape")
    attrs = {"equation": ""}
    grad_inputs = ("Operands", "Out@GRAD")

    def infer_shape(self, ctx):
        shapes = [list(v.shape) for v in ctx.input_vars("Operands")]
        try:
            subs, out = explicit(ctx.attr("equation"), [len(s) for s in shapes])
        except ValueError as e:
            ctx.fail(str(e))
        sizes = {}
        for i, (sub, shape) in enumerate(zip(subs, shapes)):
            ctx.expect(len(sub) == len(shape), "Operands[%d] of shape %s does not have the "
                       "%d dims of its subscripts %r" % (i, shape, len(sub), sub))
            for c, d in zip(sub, shape):
                known = sizes.get(c, 1)
                ctx.expect(d in (1, -1) or known in (1, -1) or d == known,
                           "Same label have different shapes for label: `%s` (3.3.1's words): "
                           "%d in Operands[%d] but %d before" % (c, d, i, known))
                if c not in sizes or d != 1 and known in (1, -1):
                    sizes[c] = d
        for c in out:
            ctx.expect(c in sizes, "output subscript %r is in no operand" % c)
        ctx.set_output("Out", [sizes[c] for c in out], ctx.input_dtype("Operands"))
        for slot in ("InnerCache", "XShape"):
            ctx.set_output(slot, [0], ctx.input_dtype("Operands"))

    @staticmethod
    def forward(operands, equation=""):
        subs, out = explicit(equation, [x.ndim for x in operands])
        terms = list(zip(subs, operands))
        empty = [np.zeros((0,), operands[0].dtype) for _ in operands]
        return (np.asarray(_contract(terms, out, _sizes(terms), operands[0].dtype)), empty,
                list(empty))

    @staticmethod
    def backward(operands, dout, equation=""):
        subs, out = explicit(equation, [x.ndim for x in operands])
        terms = list(zip(subs, operands))
        sizes = _sizes(terms)
        grads = []
        for i, (sub, x) in enumerate(terms):
            others = [(o, conj(a)) for o, a in terms[:i] + terms[i + 1:]]
            g = _contract([(out, dout)] + others, sub, sizes, x.dtype)
            grads.append(sum_to_shape(g, x.shape).astype(x.dtype))
        return grads

    def samples(self, rng):
        yield Sample({"Operands": [rand(rng, 2, 3), rand(rng, 3, 4)]}, {"equation": "ij,jk->ik"})
        yield Sample({"Operands": [rand(rng, 3, 3)]}, {"equation": "ii->i"})
        yield Sample({"Operands": [rand(rng, 2, 3, 4), rand(rng, 4)]}, {"equation": "...j,j"})
        yield Sample({"Operands": [rand(rng, 2, 3), rand(rng, 1, 3), rand(rng, 3)]},
                     {"equation": "...i,...i,i->..."})
        yield Sample({"Operands": [rand(rng, 2, 3)]}, {"equation": "ij->"})
        yield Sample({"Operands": [rand(rng, 2), rand(rng, 3)]}, {"equation": "i,j->iij"})
