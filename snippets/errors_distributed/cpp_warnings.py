"""What PyTorch's C++ code prints on a rank: its warnings go to the standard error,
below Python's warnings."""
import os
import re

LOG_PREFIX = re.compile(r"^\[rank\d+\]:\[[IWEF]\d{4} [\d:.]+ \S+:\d+\] ", re.M)


def with_cpp_warnings(function, *args, **kwargs):
    """function(*args, **kwargs), and the lines that PyTorch's C++ code wrote to this
    process's stderr meanwhile (a few warnings: they must fit in a pipe), without the
    prefix of rank, time and source line that varies from run to run."""
    read_end, write_end = os.pipe()
    saved = os.dup(2)
    os.dup2(write_end, 2)
    os.close(write_end)
    try:
        result = function(*args, **kwargs)
    finally:
        os.dup2(saved, 2)  # closes the pipe's last write end
        os.close(saved)
    with os.fdopen(read_end) as pipe:
        return result, LOG_PREFIX.sub("", pipe.read()).splitlines()
