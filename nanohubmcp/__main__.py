"""``python -m nanohubmcp`` and the ``nanohubmcp`` console script: the ``nanohubmcp`` command (see
:mod:`nanohubmcp.cli`).

:func:`main` imports the command itself, so that a Ctrl-C while it is still being imported ends it quietly too
(status 130, no traceback), as one anywhere before serving does (:func:`nanohubmcp.cli.main`).
"""

from __future__ import annotations

import sys

INTERRUPTED = 130
"""The exit status of a command a Ctrl-C (SIGINT) interrupted before it served or finished (128 + SIGINT's 2)."""


def main() -> int:
    """The ``nanohubmcp`` command, its exit status returned; 130, saying nothing, at a Ctrl-C while it is imported."""
    try:
        from .cli import main as command
    except KeyboardInterrupt:
        return INTERRUPTED
    return command()


if __name__ == "__main__":
    sys.exit(main())
