"""paddle.hapi.logger.setup_logger: the 'hapi' logger, printing on rank 0 and writing a log
file on every rank (specs/hapi_model.md#logger)."""
import logging
import os
import sys

from ..distributed.env import ParallelEnv

__all__ = ["setup_logger"]

_FORMAT = "%(asctime)s - %(name)s - %(levelname)s - %(message)s"


def _log_file(output, rank):
    """A name ending in .txt or .log is the file; any other names a folder for log.txt.
    Ranks other than 0 add '.rank<N>' so that processes never share a file."""
    filename = output if output.endswith((".txt", ".log")) else os.path.join(output, "log.txt")
    return filename + (".rank%d" % rank if rank > 0 else "")


def setup_logger(output=None, name="hapi", log_level=logging.INFO):
    """The logger `name` at `log_level`, not propagating to the root logger: a stdout
    handler on local rank 0 (added once), and when `output` is given a file handler on
    every rank (its folder made if missing)."""
    logger = logging.getLogger(name)
    logger.propagate = False
    logger.setLevel(log_level)
    formatter = logging.Formatter(_FORMAT)
    rank = ParallelEnv().local_rank
    if rank == 0 and not logger.handlers:
        console = logging.StreamHandler(stream=sys.stdout)
        console.setLevel(log_level)
        console.setFormatter(formatter)
        logger.addHandler(console)
    if output is not None:
        filename = _log_file(output, rank)
        os.makedirs(os.path.dirname(filename) or ".", exist_ok=True)
        handler = logging.FileHandler(filename)
        handler.setLevel(log_level)
        handler.setFormatter(formatter)
        logger.addHandler(handler)
    return logger
