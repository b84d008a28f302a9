"""paddle.fluid.input (Paddle 1.8): `embedding` and `one_hot` for ids of any shape, the
same functions as fluid.embedding and fluid.one_hot (lookup_table_v2, one_hot_v2)."""
from ..layers.embedding import static_embedding as embedding
from .compat import one_hot

__all__ = ["embedding", "one_hot"]
