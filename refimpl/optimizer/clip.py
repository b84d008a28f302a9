"""Gradient clipping (`grad_clip=`): callables over [(param, grad)] that append ops (role
Optimize) and return the pairs with the clipped gradients. The optimizer clips before it
adds regularization, as Paddle.

ClipGradByGlobalNorm: g *= clip_norm / max(global_norm, clip_norm), global_norm over every
clipped gradient (squared_l2_norm, sum, sqrt, elementwise_max/div/mul ops; a static program
under the 1.8 profile as Paddle 1.8.5 builds it, versions switch `global_norm_clip_ops`:
square and reduce_sum for each gradient, the layers' variable names, name scope
`gradient_clip`, each op's op_role_var its parameter and clipped gradient);
ClipGradByNorm: each gradient on its own (clip_by_norm op); ClipGradByValue: clip to
[min, max] (clip op). Parameters with need_clip=False (2.0 ParamAttr), or for which the
1.8 `need_clip(param)` function says False, are left alone."""
from .. import versions
from ..framework import mode, unique_name
from ..framework.layer_helper import LayerHelper
from ..framework.program import OpRole, name_scope
from ..layers.creation import fill_constant
from ..layers.math import sums

__all__ = ["ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue",
           "GradientClipByGlobalNorm", "GradientClipByNorm", "GradientClipByValue"]


def _tmp(block, like, shape=None, dtype=None):
    return block.create_var(name=unique_name.generate("clip.tmp"),
                            shape=shape if shape is not None else like.shape,
                            dtype=dtype or like.dtype)


_allow_pure_fp16 = [False]


def _allow_pure_fp16_global_norm_clip(*args):
    """Paddle 3's switch (paddle.nn.clip): whether ClipGradByGlobalNorm keeps a global norm
    of float16 gradients only in float16 (False, the default: it sums in float32). With no
    argument the setting; with a bool, sets it and returns the one before."""
    if not args:
        return _allow_pure_fp16[0]
    assert len(args) == 1 and isinstance(args[0], bool)
    old, _allow_pure_fp16[0] = _allow_pure_fp16[0], args[0]
    return old


def _cast(block, x, dtype):
    out = _tmp(block, x, dtype=dtype)
    block.append_op(type="cast", inputs={"X": [x]}, outputs={"Out": [out]},
                    attrs={"in_dtype": x.dtype.name, "out_dtype": out.dtype.name})
    return out


def _sum(block, xs):
    total = _tmp(block, xs[0], [1])
    block.append_op(type="sum", inputs={"X": xs}, outputs={"Out": [total]})
    return total


def _sum_by_dtype(block, grads_sq):
    """Paddle 3's sum of the squared norms (switch global_norm_clip_dtypes): one sum per
    dtype (float16, float32, the rest), each cast to the sum's dtype (float64 when some
    norm is neither float16 nor float32, else float32; float16 norms alone stay float16
    under _allow_pure_fp16_global_norm_clip(True)), then the sum of those sums."""
    groups = {}
    for sq in grads_sq:
        key = sq.dtype.name if sq.dtype.name in ("float16", "float32") else "other"
        groups.setdefault(key, []).append(sq)
    sum_dtype = "float64" if "other" in groups else "float32"
    if set(groups) == {"float16"} and _allow_pure_fp16[0]:
        sum_dtype = "float16"
    parts = []
    for key in ("float16", "float32", "other"):
        if key in groups:
            part = _sum(block, groups[key])
            parts.append(part if part.dtype.name == sum_dtype else _cast(block, part, sum_dtype))
    return _sum(block, parts) if len(parts) > 1 else parts[0]


def _scale_by_norm(block, grads_sq, clip_norm):
    """clip_norm / max(sqrt(sum(grads_sq)), clip_norm) as a [1] variable, of the sum's
    dtype."""
    total = _sum_by_dtype(block, grads_sq) \
        if versions.switch("global_norm_clip_dtypes") == "by_dtype" else _sum(block, grads_sq)
    norm = _tmp(block, total, [1])
    block.append_op(type="sqrt", inputs={"X": [total]}, outputs={"Out": [norm]})
    limit = _tmp(block, total, [1])
    # as Paddle's layers.fill_constant: the text too, so a float64 limit is exact
    block.append_op(type="fill_constant", outputs={"Out": [limit]},
                    attrs={"shape": [1], "dtype": total.dtype.name, "value": float(clip_norm),
                           "str_value": str(float(clip_norm))})
    denom = _tmp(block, total, [1])
    block.append_op(type="elementwise_max", inputs={"X": [norm], "Y": [limit]},
                    outputs={"Out": [denom]})
    factor = _tmp(block, total, [1])
    block.append_op(type="elementwise_div", inputs={"X": [limit], "Y": [denom]},
                    outputs={"Out": [factor]})
    return factor


def _squared_norm(block, g):
    sq = _tmp(block, g, [1])
    block.append_op(type="squared_l2_norm", inputs={"X": [g]}, outputs={"Out": [sq]})
    return sq


def _scaled(block, g, factor):
    if factor.dtype != g.dtype:     # Paddle 3's sum in another dtype: the factor cast to g's
        factor = _cast(block, factor, g.dtype.name)
    out = _tmp(block, g)
    block.append_op(type="elementwise_mul", inputs={"X": [g], "Y": [factor]},
                    outputs={"Out": [out]})
    return out


class _Clip:
    def __init__(self, need_clip=None):
        if need_clip is not None and not callable(need_clip):
            raise TypeError("%s: need_clip must be a function of the parameter, got %s"
                            % (type(self).__name__, type(need_clip).__name__))
        self.need_clip = need_clip

    def _clipped(self, params_grads):
        """The pairs this clip applies to."""
        return [(p, g) for p, g in params_grads if g is not None
                and getattr(p, "need_clip", True)
                and (self.need_clip is None or self.need_clip(p))]

    def __call__(self, params_grads):
        # a parameter without a gradient leaves the list, as in Paddle 1.8.5 and 2.0
        params_grads = [(p, g) for p, g in params_grads if g is not None]
        if not params_grads:
            return params_grads
        block = params_grads[0][1].block
        with block.program._role_guard(OpRole.Optimize):
            return self._clip(block, params_grads)


class ClipGradByGlobalNorm(_Clip):
    def __init__(self, clip_norm, group_name="default_group", need_clip=None):
        super().__init__(need_clip)
        self.clip_norm = float(clip_norm)
        self.group_name = group_name

    def _clip(self, block, params_grads):
        todo = self._clipped(params_grads)
        if not todo:
            return params_grads
        if versions.switch("global_norm_clip_ops") == "square_reduce_sum" and not mode.dynamic:
            new = _clip_as_fluid(block, todo, self.clip_norm)
        else:
            factor = _scale_by_norm(block, [_squared_norm(block, g) for _, g in todo],
                                    self.clip_norm)
            new = {p.name: _scaled(block, g, factor) for p, g in todo}
        return [(p, new.get(p.name, g)) for p, g in params_grads]


def _clip_as_fluid(block, todo, clip_norm):
    """{param name: clipped gradient} of the pairs `todo`, the ops as Paddle 1.8.5's
    GradientClipByGlobalNorm appends them (module doc)."""
    program = block.program

    def layer_op(op_type, inputs, dtype, attrs=None, out=None):
        out = out or LayerHelper(op_type).create_variable_for_type_inference(dtype)
        block.append_op(type=op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs or {})
        return out
    # the clipped gradients first, so that every op can name its pair in op_role_var
    new = {p.name: LayerHelper("elementwise_mul").create_variable_for_type_inference(g.dtype)
           for p, g in todo}
    with name_scope("gradient_clip"):
        squares = []
        for p, g in todo:
            with program._optimized_guard([p, new[p.name]]):
                square = layer_op("square", {"X": [g]}, g.dtype)
                squares.append(layer_op("reduce_sum", {"X": [square]}, g.dtype,
                                        {"dim": [0], "keep_dim": False, "reduce_all": True}))
        last, g = todo[-1]
        with program._optimized_guard([last, new[last.name]]):
            norm = layer_op("sqrt", {"X": [sums(squares)]}, g.dtype)
            limit = fill_constant([1], g.dtype.name, clip_norm)
            denom = layer_op("elementwise_max", {"X": [limit], "Y": [norm]}, g.dtype)
            factor = layer_op("elementwise_div", {"X": [limit], "Y": [denom]}, g.dtype)
        for p, g in todo:
            with program._optimized_guard([p, new[p.name]]):
                layer_op("elementwise_mul", {"X": [g], "Y": [factor]}, g.dtype, out=new[p.name])
    return new


class _ClipEach(_Clip):
    """Clips every gradient on its own with one op (`op_type`, `_attrs()`)."""

    def _clip(self, block, params_grads):
        todo = {p.name for p, _ in self._clipped(params_grads)}
        out = []
        for p, g in params_grads:
            if p.name in todo:
                clipped = _tmp(block, g)
                block.append_op(type=self.op_type, inputs={"X": [g]},
                                outputs={"Out": [clipped]}, attrs=self._attrs())
                g = clipped
            out.append((p, g))
        return out


class ClipGradByNorm(_ClipEach):
    op_type = "clip_by_norm"

    def __init__(self, clip_norm, need_clip=None):
        super().__init__(need_clip)
        self.clip_norm = float(clip_norm)

    def _attrs(self):
        return {"max_norm": self.clip_norm}


class ClipGradByValue(_ClipEach):
    op_type = "clip"

    def __init__(self, max, min=None, need_clip=None):
        super().__init__(need_clip)
        self.max = float(max)
        self.min = -self.max if min is None else float(min)
        if self.min > self.max:
            raise ValueError("ClipGradByValue: min %s must be <= max %s" % (self.min, self.max))

    def _attrs(self):
        return {"min": self.min, "max": self.max}


GradientClipByGlobalNorm = ClipGradByGlobalNorm
GradientClipByNorm = ClipGradByNorm
GradientClipByValue = ClipGradByValue


def clip_by_param_attrs(params_grads):
    """Paddle 1.8's fluid.clip.set_gradient_clip: clips set on the parameters
    (`gradient_clip_attr`). As Paddle 1.8.5 does (measured): nothing is clipped unless
    every parameter with a gradient has a clip, and then the clip of the last of them (in
    name order) clips every gradient."""
    with_grads = [(p, g) for p, g in params_grads if g is not None]
    if not with_grads or any(getattr(p, "gradient_clip_attr", None) is None
                             for p, _ in with_grads):
        return params_grads
    return with_grads[-1][0].gradient_clip_attr(params_grads)


def error_clip_callback(block, context):
    """Paddle 1.8's backward callback for `Variable.error_clip` (fluid.clip.ErrorClipByValue):
    right after each backward op that writes the gradient of such a variable, a clip op
    clips that gradient in place, so the ops reading it further back see the clipped error."""
    from ..framework.program import OpRole
    index = 0
    while index < len(block.ops):
        op = block.ops[index]
        index += 1
        if not op.attr("op_role") & OpRole.Backward:
            continue
        for name in op.output_arg_names:
            if not name.endswith("@GRAD") or not block.has_var(name[:-len("@GRAD")]):
                continue
            error_clip = getattr(block.var(name[:-len("@GRAD")]), "error_clip", None)
            if error_clip is None:
                continue
            block._insert_op(index, type="clip", inputs={"X": [name]}, outputs={"Out": [name]},
                             attrs={"min": error_clip.min, "max": error_clip.max,
                                    "op_role": OpRole.Backward})
            index += 1
