"""paddle.hapi.logger.setup_logger: the 'hapi' logger's handlers and its log file."""
import logging
import os

import pytest

from refimpl.hapi.logger import setup_logger


@pytest.fixture
def fresh_logger():
    name = "refimpl_test_hapi_logger"
    yield name
    logger = logging.getLogger(name)
    for handler in list(logger.handlers):
        handler.close()
        logger.removeHandler(handler)


def test_console_handler_once_and_no_propagation(fresh_logger, capsys):
    logger = setup_logger(name=fresh_logger, log_level=logging.DEBUG)
    again = setup_logger(name=fresh_logger, log_level=logging.DEBUG)
    assert logger is again and logger.propagate is False and logger.level == logging.DEBUG
    assert len(logger.handlers) == 1       # rank 0's stdout handler, added once
    logger.debug("seen")
    out = capsys.readouterr().out
    assert out.endswith(" - %s - DEBUG - seen\n" % fresh_logger)


def test_output_names_a_file_or_a_folder_for_log_txt(fresh_logger, tmp_path):
    as_file = str(tmp_path / "deep" / "run.log")
    setup_logger(as_file, name=fresh_logger).info("to the file")
    as_folder = str(tmp_path / "logs")
    setup_logger(as_folder, name=fresh_logger).warning("to log.txt")
    for handler in logging.getLogger(fresh_logger).handlers:
        handler.flush()
    with open(as_file) as f:
        first = f.read()
    with open(os.path.join(as_folder, "log.txt")) as f:
        second = f.read()
    # the first file handler sees both records, the second only the later one
    assert "INFO - to the file" in first and "WARNING - to log.txt" in first
    assert "to the file" not in second and "WARNING - to log.txt" in second
