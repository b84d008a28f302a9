"""ParamAttr: how a layer creates its parameter (name, initializer, lr scale, regularizer)."""

__all__ = ["ParamAttr", "WeightNormParamAttr"]


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


class WeightNormParamAttr(ParamAttr):
    """A ParamAttr asking for weight normalization (Paddle 1.8 / 2.0): the layer's weight is
    w = g * v / ||v||, the norm taken over every dim but `dim` (all of them when None). The
    parameters are `<name>_g` (size 1 on every dim but `dim`) and `<name>_v` (the weight's
    shape); the startup program initializes v with the initializer and g with ||v||, so w
    starts as the initializer's draw (layer_helper.py)."""

    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0,
                 regularizer=None, trainable=True, do_model_average=False, need_clip=True):
        if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
            raise TypeError("WeightNormParamAttr: dim must be an int or None, got %s"
                            % type(dim).__name__)
        super().__init__(name, initializer, learning_rate, regularizer, trainable,
                         do_model_average, need_clip)
        self.dim = dim
