"""How the ``nanohubmcp`` command prints nanohubmcp's own warnings about what it was given (a tool.xml, a
notebook): as ``RegistrationWarning: message``, one line per warning, without the frame Python puts in front
(``.../bin/nanohubmcp:8:``, the console script, and its ``sys.exit(main())`` line), which says nothing to whoever
runs the command. A warning naming a line of the user's own code (an app file's function, for ``run`` and
``server-json APP``) keeps it: ``app.py:7: RegistrationWarning: ...`` says where to look.

The formatter is installed by :func:`terse_warnings` around the command only, and put back after it: importing
the package changes no warnings setting (a notebook's warnings show as Jupyter shows them). Other warnings (a
library's ``DeprecationWarning``, an app file's own) keep Python's form, whose file and line say where to look.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator

from ..errors import RegistrationWarning

__all__ = ["terse_warnings"]


@contextlib.contextmanager
def terse_warnings() -> Iterator[None]:
    """Within the block, a :class:`~nanohubmcp.errors.RegistrationWarning` pointing at the command itself (the
    console script, ``python -m nanohubmcp``, nanohubmcp's own code) is printed as ``RegistrationWarning: message``
    (a line); every other warning as Python prints it."""
    python = warnings.formatwarning
    script = os.path.realpath(sys.argv[0]) if sys.argv and sys.argv[0] else None

    def formatted(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  line: str | None = None) -> str:
        if issubclass(category, RegistrationWarning) and _commands_own(filename, script):
            return f"{category.__name__}: {message}\n"
        return python(message, category, filename, lineno, line)

    warnings.formatwarning = formatted
    try:
        yield
    finally:
        warnings.formatwarning = python


_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the nanohubmcp folder


def _commands_own(filename: str, script: str | None) -> bool:
    """Whether ``filename`` (a warning's frame) is the command's: its script, nanohubmcp, or Python's own
    (``<frozen runpy>``), not a file of the user's."""
    if filename.startswith("<"):
        return True
    path = os.path.realpath(filename)
    return path == script or path.startswith(_PACKAGE + os.sep)
