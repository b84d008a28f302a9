"""paddle.distributed.fleet.base.role_maker: Paddle 2.0's module path of fleet's role
makers (fleet/role_maker.py)."""
from ..role_maker import PaddleCloudRoleMaker, Role, UserDefinedRoleMaker

__all__ = ["Role", "PaddleCloudRoleMaker", "UserDefinedRoleMaker"]
