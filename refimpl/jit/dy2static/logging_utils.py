"""Paddle 2.0's dygraph-to-static logging (dygraph_to_static/logging_utils.py names;
refimpl's own code): a "Dynamic-to-Static" logger whose verbosity (set_verbosity, else the
TRANSLATOR_VERBOSITY environment variable) decides which `log(level, msg)` calls are
written, and whose code level (set_code_level, else TRANSLATOR_CODE_LEVEL) decides which
converted code is written (refimpl's conversion is one step: LOG_AllTransformer).
`also_to_stdout` echoes them on stdout too."""
import logging
import os

from .utils import ast_to_source_code

__all__ = ["TranslatorLogger", "set_verbosity", "set_code_level"]

VERBOSITY_ENV_NAME = "TRANSLATOR_VERBOSITY"
CODE_LEVEL_ENV_NAME = "TRANSLATOR_CODE_LEVEL"
DEFAULT_VERBOSITY = -1
DEFAULT_CODE_LEVEL = -1
LOG_AllTransformer = 100


def _checked_level(level):
    if level is not None and (not isinstance(level, int) or isinstance(level, bool)):
        raise TypeError("Level is not an integer: %r" % (level,))
    return level


def _checked_flag(flag):
    assert isinstance(flag, (bool, type(None))), \
        "also_to_stdout must be a bool, got %r" % (flag,)
    return flag


class TranslatorLogger:
    """The one logger of the translation (TranslatorLogger() is the same object)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance._setup()
        return cls._instance

    def _setup(self):
        self.logger_name = "Dynamic-to-Static"
        self._logger = logging.getLogger(self.logger_name)
        self._logger.setLevel(logging.INFO)
        self._logger.propagate = False
        if not self._logger.handlers:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: "
                                                   "%(message)s"))
            self._logger.addHandler(handler)
        self._verbosity_level = self._transformed_code_level = None
        self._need_to_echo_log_to_stdout = self._need_to_echo_code_to_stdout = None

    @property
    def logger(self):
        return self._logger

    @property
    def verbosity_level(self):
        if self._verbosity_level is not None:
            return self._verbosity_level
        return int(os.getenv(VERBOSITY_ENV_NAME, DEFAULT_VERBOSITY))

    @verbosity_level.setter
    def verbosity_level(self, level):
        self._verbosity_level = _checked_level(level)

    @property
    def transformed_code_level(self):
        if self._transformed_code_level is not None:
            return self._transformed_code_level
        return int(os.getenv(CODE_LEVEL_ENV_NAME, DEFAULT_CODE_LEVEL))

    @transformed_code_level.setter
    def transformed_code_level(self, level):
        self._transformed_code_level = _checked_level(level)

    @property
    def need_to_echo_log_to_stdout(self):
        return bool(self._need_to_echo_log_to_stdout)

    @need_to_echo_log_to_stdout.setter
    def need_to_echo_log_to_stdout(self, flag):
        self._need_to_echo_log_to_stdout = _checked_flag(flag)

    @property
    def need_to_echo_code_to_stdout(self):
        return bool(self._need_to_echo_code_to_stdout)

    @need_to_echo_code_to_stdout.setter
    def need_to_echo_code_to_stdout(self, flag):
        self._need_to_echo_code_to_stdout = _checked_flag(flag)

    def has_code_level(self, level):
        return _checked_level(level) == self.transformed_code_level

    def has_verbosity(self, level):
        return self.verbosity_level >= _checked_level(level)

    def _echo(self, prefix, msg, args, wanted):
        if wanted:
            print("%s %s%s" % (self.logger_name, prefix, msg % args if args else msg))

    def error(self, msg, *args, **kwargs):
        self._logger.error(msg, *args, **kwargs)
        self._echo("ERROR: ", msg, args, self.need_to_echo_log_to_stdout)

    def warn(self, msg, *args, **kwargs):
        self._logger.warning(msg, *args, **kwargs)
        self._echo("WARNING: ", msg, args, self.need_to_echo_log_to_stdout)

    def log(self, level, msg, *args, **kwargs):
        if self.has_verbosity(level):
            msg = "(Level %d) %s" % (level, msg)
            self._logger.info(msg, *args, **kwargs)
            self._echo("INFO: ", msg, args, self.need_to_echo_log_to_stdout)

    def log_transformed_code(self, level, ast_node, transformer_name, *args, **kwargs):
        if not self.has_code_level(level):
            return
        if level == LOG_AllTransformer:
            header = "After the last level ast transformer: '%s', the transformed code:\n" \
                % transformer_name
        else:
            header = "After the level %d ast transformer: '%s', the transformed code:\n" \
                % (level, transformer_name)
        msg = header + ast_to_source_code(ast_node)
        self._logger.info(msg, *args, **kwargs)
        self._echo("INFO: ", msg, args, self.need_to_echo_code_to_stdout)


_TRANSLATOR_LOGGER = TranslatorLogger()


def set_verbosity(level=0, also_to_stdout=False):
    """paddle.jit.set_verbosity: log(level, ...) calls up to `level` are written (this
    wins over TRANSLATOR_VERBOSITY)."""
    _TRANSLATOR_LOGGER.verbosity_level = level
    _TRANSLATOR_LOGGER.need_to_echo_log_to_stdout = also_to_stdout


def get_verbosity():
    return _TRANSLATOR_LOGGER.verbosity_level


def set_code_level(level=LOG_AllTransformer, also_to_stdout=False):
    """paddle.jit.set_code_level: the converted code of that level is written (this wins
    over TRANSLATOR_CODE_LEVEL)."""
    _TRANSLATOR_LOGGER.transformed_code_level = level
    _TRANSLATOR_LOGGER.need_to_echo_code_to_stdout = also_to_stdout


def get_code_level():
    return _TRANSLATOR_LOGGER.transformed_code_level


def error(msg, *args, **kwargs):
    _TRANSLATOR_LOGGER.error(msg, *args, **kwargs)


def warn(msg, *args, **kwargs):
    _TRANSLATOR_LOGGER.warn(msg, *args, **kwargs)


def log(level, msg, *args, **kwargs):
    _TRANSLATOR_LOGGER.log(level, msg, *args, **kwargs)


def log_transformed_code(level, ast_node, transformer_name, *args, **kwargs):
    _TRANSLATOR_LOGGER.log_transformed_code(level, ast_node, transformer_name, *args, **kwargs)
