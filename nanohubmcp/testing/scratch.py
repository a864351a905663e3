"""A temporary state directory for a server a testing client talks to: :func:`scratch_state`.

A test must not write into the state of a real server of the same name: without one named, a server keeps
its jobs, kept results, provenance records and result cache in ``~/.local/share/nanohubmcp/<name>``, which a
live server called so (or the docs' ``lab``) uses too. Each client of this package first gives the server a
directory of its own under the system's temporary folder (``tempfile``; ``TMPDIR``), removed when the
process that made it exits, unless a directory is named (``state_dir=``, ``--state-dir``, a
``sqlite:///DIR`` state URL, ``NANOHUBMCP_STATE_DIR``), the server has already kept something (a call
served before, over HTTP or ``server.call``: it keeps the directory it uses) or it serves already (a
``server.start()`` in a notebook, then a client: its real clients' jobs and records stay where they are).
A server started after a client gave it one leaves it for its own when serving starts (what the testing clients
kept stays there; while one of their jobs still runs, it keeps it and says so: ``FirstUse.serving_began``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import TYPE_CHECKING

from ..server.wire.state_dir import safe_name

if TYPE_CHECKING:
    from ..transports.served import ServedServer

__all__ = ["scratch_state"]


def scratch_state(server: ServedServer) -> str | None:
    """Give ``server`` a temporary state directory (see the module docstring), once: all its testing
    clients share it, so a job one started is read by the next. Returns the directory, or None when the
    server keeps its own."""
    core = server.core
    if core.state_link.scratch_state_dir is not None:
        return core.state_link.scratch_state_dir
    directory = tempfile.mkdtemp(prefix=f"nanohubmcp-test-{safe_name(core.name)}-")
    if not core.use_state_dir(directory):
        os.rmdir(directory)
        return core.state_link.scratch_state_dir  # (another client's, made at the same moment; else None)
    atexit.register(_remove, directory, os.getpid())
    return directory


def _remove(directory: str, maker: int) -> None:
    if os.getpid() == maker:  # (a forked child exiting leaves its parent's directory alone)
        shutil.rmtree(directory, ignore_errors=True)
