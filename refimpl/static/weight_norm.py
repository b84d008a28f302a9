"""paddle.static.WeightNormParamAttr: accepted, but refimpl does not reparametrize."""
from ..framework.param_attr import ParamAttr

__all__ = ["WeightNormParamAttr"]


class WeightNormParamAttr(ParamAttr):
    """A ParamAttr asking for weight normalization, w = g * v / ||v|| over all dims but
    `dim`. refimpl's layers create their parameters directly, so using it in a layer
    raises NotImplementedError rather than silently training an unnormalized weight."""

    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0,
                 regularizer=None, trainable=True, do_model_average=False, need_clip=True):
        if dim is not None and not isinstance(dim, int):
            raise TypeError("WeightNormParamAttr: dim must be an int or None, got %s"
                            % type(dim).__name__)
        super().__init__(name, initializer, learning_rate, regularizer, trainable,
                         do_model_average, need_clip)
        self.dim = dim

    def __copy__(self):
        # LayerHelper.create_parameter copies the attr it is given: this is its use
        raise NotImplementedError(
            "WeightNormParamAttr(dim=%r): weight normalization is not implemented in refimpl; "
            "use a ParamAttr (or normalize the weight with ops in the model)" % (self.dim,))
