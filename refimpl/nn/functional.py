"""paddle.nn.functional"""
__all__ = []
