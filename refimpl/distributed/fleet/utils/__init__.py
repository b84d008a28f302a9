"""paddle.distributed.fleet.utils: the file-system clients fleet's checkpoints use."""
from .fs import (FS, ExecuteError, FSFileExistsError, FSFileNotExistsError,
                 FSShellCmdAborted, FSTimeOut, HDFSClient, LocalFS)

__all__ = ["LocalFS", "HDFSClient"]
