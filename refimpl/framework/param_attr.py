"""ParamAttr: how a layer creates its parameter (name, initializer, lr scale, regularizer)."""

__all__ = ["ParamAttr"]


class ParamAttr:
    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    @staticmethod
    def _to_attr(arg):
        """None or True -> default ParamAttr; str -> named; Initializer -> with it;
        False -> no param (Paddle 1.8 and 2.0 take a bool the same way)."""
        from .initializer import Initializer
        if arg is None or arg is True:
            return ParamAttr()
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if arg is False:
            return False
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        from .regularizer import WeightDecayRegularizer
        if isinstance(arg, WeightDecayRegularizer):
            return ParamAttr(regularizer=arg)
        raise TypeError("param_attr must be None, a bool, str, ParamAttr, Initializer or "
                        "regularizer, got %s"
                        % type(arg).__name__)
