"""``python -m nanohubmcp`` and the ``nanohubmcp`` console script: the ``nanohubmcp`` command (see
:mod:`nanohubmcp.cli`).

:func:`main` imports the command itself, so that a Ctrl-C while it is still being imported ends it quietly too
(status 130, no traceback), as one anywhere before serving does (:func:`nanohubmcp.cli.main`). A command that
served ends its process within its exit grace, its heap not freed
(:func:`~nanohubmcp.processes.process_end.end_served_process`).
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
    try:
        status = command()
    except SystemExit as exc:  # (a --workers parent ends so, once its workers are gone)
        if not isinstance(exc.code, int) or not _served():
            raise
        status = exc.code
    if _served():
        from .processes.process_end import end_served_process

        end_served_process(status)
    return status


def _served() -> bool:
    """Whether the command served in this process (the serving commands, and their forked workers)."""
    ending = sys.modules.get("nanohubmcp.processes.process_end")  # (loaded by every command that serves)
    return ending is not None and bool(ending.was_served())


if __name__ == "__main__":
    sys.exit(main())
