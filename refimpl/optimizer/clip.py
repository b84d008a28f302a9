"""Gradient clipping (`grad_clip=`): callables over [(param, grad)] that append ops.

ClipGradByGlobalNorm: g *= clip_norm / max(global_norm, clip_norm), global_norm over every
clipped gradient; ClipGradByNorm: the same per gradient; ClipGradByValue: clip to [min, max].
Parameters with need_clip=False are left alone."""
from ..framework import unique_name
from ..framework.program import OpRole

__all__ = ["ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue",
           "GradientClipByGlobalNorm", "GradientClipByNorm", "GradientClipByValue"]


def _tmp(block, like, shape=None):
    return block.create_var(name=unique_name.generate("clip.tmp"),
                            shape=shape if shape is not None else like.shape, dtype=like.dtype)


def _scale_by_norm(block, grads_sq, clip_norm, like):
    """clip_norm / max(sqrt(sum(grads_sq)), clip_norm) as a [1] variable."""
    total = _tmp(block, like, [1])
    block.append_op(type="sum", inputs={"X": grads_sq}, outputs={"Out": [total]})
    norm = _tmp(block, like, [1])
    block.append_op(type="sqrt", inputs={"X": [total]}, outputs={"Out": [norm]})
    limit = _tmp(block, like, [1])
    block.append_op(type="fill_constant", outputs={"Out": [limit]},
                    attrs={"shape": [1], "dtype": like.dtype.name, "value": float(clip_norm)})
    denom = _tmp(block, like, [1])
    block.append_op(type="elementwise_max", inputs={"X": [norm], "Y": [limit]},
                    outputs={"Out": [denom]})
    factor = _tmp(block, like, [1])
    block.append_op(type="elementwise_div", inputs={"X": [limit], "Y": [denom]},
                    outputs={"Out": [factor]})
    return factor


def _squared_norm(block, g):
    sq = _tmp(block, g, [1])
    block.append_op(type="squared_l2_norm", inputs={"X": [g]}, outputs={"Out": [sq]})
    return sq


def _scaled(block, g, factor):
    out = _tmp(block, g)
    block.append_op(type="elementwise_mul", inputs={"X": [g], "Y": [factor]},
                    outputs={"Out": [out]})
    return out


class _Clip:
    def __call__(self, params_grads):
        if not params_grads:
            return params_grads
        block = params_grads[0][1].block
        with block.program._role_guard(OpRole.Optimize):
            return self._clip(block, params_grads)


def _clipped(params_grads):
    return [(p, g) for p, g in params_grads if g is not None and getattr(p, "need_clip", True)]


class ClipGradByGlobalNorm(_Clip):
    def __init__(self, clip_norm, group_name="default_group", need_clip=None):
        self.clip_norm = float(clip_norm)

    def _clip(self, block, params_grads):
        todo = _clipped(params_grads)
        if not todo:
            return params_grads
        factor = _scale_by_norm(block, [_squared_norm(block, g) for _, g in todo],
                                self.clip_norm, todo[0][1])
        new = {p.name: _scaled(block, g, factor) for p, g in todo}
        return [(p, new.get(p.name, g)) for p, g in params_grads]


class ClipGradByNorm(_Clip):
    def __init__(self, clip_norm, need_clip=None):
        self.clip_norm = float(clip_norm)

    def _clip(self, block, params_grads):
        todo = {p.name for p, _ in _clipped(params_grads)}
        out = []
        for p, g in params_grads:
            if p.name in todo:
                g = _scaled(block, g, _scale_by_norm(block, [_squared_norm(block, g)],
                                                     self.clip_norm, g))
            out.append((p, g))
        return out


class ClipGradByValue(_Clip):
    def __init__(self, max, min=None, need_clip=None):
        self.max = float(max)
        self.min = -self.max if min is None else float(min)

    def _clip(self, block, params_grads):
        todo = {p.name for p, _ in _clipped(params_grads)}
        out = []
        for p, g in params_grads:
            if p.name in todo:
                clipped = _tmp(block, g)
                block.append_op(type="clip", inputs={"X": [g]}, outputs={"Out": [clipped]},
                                attrs={"min": self.min, "max": self.max})
                g = clipped
            out.append((p, g))
        return out


GradientClipByGlobalNorm = ClipGradByGlobalNorm
GradientClipByNorm = ClipGradByNorm
GradientClipByValue = ClipGradByValue
