"""paddle.fluid.input (Paddle 1.8): `embedding` and `one_hot` for ids of any shape, the
same functions as fluid.embedding and fluid.one_hot (lookup_table_v2, one_hot_v2)."""
from ..layers.embedding import static_embedding
from .compat import one_hot as _one_hot
from .deprecation import mark

_noted = mark("fluid.input", {"embedding": static_embedding, "one_hot": _one_hot})
embedding, one_hot = _noted["embedding"], _noted["one_hot"]

__all__ = ["embedding", "one_hot"]
