"""paddle.nn.clip (Paddle 3; paddle.fluid.clip of 1.8 / 2.0, which is this module again):
the gradient clips (the paddle.nn.ClipGradBy* classes), Paddle 1.8's set_gradient_clip (a
clip for parameters, used where the optimizer has no grad_clip) and ErrorClipByValue (a
forward variable's `error_clip`: its gradient is clipped during backward);
specs/fluid_clip.md."""
from ..framework.program import default_main_program
from ..optimizer.clip import (ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue,
                              GradientClipByGlobalNorm, GradientClipByNorm,
                              GradientClipByValue, _allow_pure_fp16_global_norm_clip, _Clip,
                              clip_by_param_attrs, error_clip_callback)

__all__ = ["set_gradient_clip", "ErrorClipByValue", "GradientClipByValue",
           "GradientClipByNorm", "GradientClipByGlobalNorm", "error_clip_callback",
           "ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm"]


def append_gradient_clip_ops(param_grads):
    """Paddle 1.8's step of minimize that applies the clips set_gradient_clip put on the
    parameters (same rule: all or nothing, the last parameter's clip clips them all);
    pairs without a gradient leave the list when it clips."""
    return clip_by_param_attrs(param_grads)


class ErrorClipByValue:
    """Clip a variable's gradient to [min, max] (min defaults to -max) as backward
    computes it: set as `var.error_clip`; Optimizer.minimize then appends a clip op after
    the backward op that writes var@GRAD."""

    def __init__(self, max, min=None):
        self.max = float(max)
        self.min = -self.max if min is None else float(min)
        if self.min > self.max:
            raise ValueError("ErrorClipByValue: min %s must be <= max %s" % (self.min, self.max))

    def __str__(self):
        return "ByValue, min=%f, max=%f" % (self.min, self.max)


def set_gradient_clip(clip, param_list=None, program=None):
    """Clip the gradients of `param_list` (Parameters or their names; default every
    parameter of `program`, default the main program) with `clip` in each later minimize
    whose optimizer has no grad_clip of its own (Paddle 1.8, deprecated there in favour of
    the optimizer's grad_clip). As in Paddle 1.8.5: nothing is clipped unless every
    parameter that gets a gradient has a clip set, and then the last parameter's clip
    (in name order) clips them all (specs/fluid_clip.md)."""
    if not isinstance(clip, _Clip):
        raise TypeError("set_gradient_clip: clip must be one of fluid.clip.GradientClipBy"
                        "Value / ByNorm / ByGlobalNorm, got %s" % type(clip).__name__)
    program = program or default_main_program()
    block = program.global_block()
    if param_list is None:
        params = block.all_parameters()
    else:
        params = [block.var(p) if isinstance(p, str) else p for p in param_list]
    for param in params:
        param.gradient_clip_attr = clip
