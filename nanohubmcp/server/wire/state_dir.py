"""Where a server keeps state that outlives its process (the job store, large results).

The directory is, first match wins (``nanohubmcp run APP --state-dir DIR`` comes before all of them:
a ``state_dir=`` in APP is replaced, see :mod:`nanohubmcp.server.app_import`):

1. ``MCPServer(state_dir=...)`` (``c.NanohubMCP.state_dir`` in a notebook);
2. the ``NANOHUBMCP_STATE_DIR`` environment variable;
3. on nanoHUB (``SESSIONDIR`` or ``SESSION_DIR`` set), ``$SESSIONDIR/nanohubmcp/<server name>``;
4. else the per-user data directory: ``$XDG_DATA_HOME/nanohubmcp/<server name>`` (default
   ``~/.local/share/nanohubmcp/<server name>``; ``%LOCALAPPDATA%\\nanohubmcp\\<name>`` on Windows,
   ``~/Library/Application Support/nanohubmcp/<name>`` on macOS).

Options 1 and 2 name the server's own directory (no name is appended). Nothing is created
until the first job is stored. A client of :mod:`nanohubmcp.testing` replaces options 3 and 4 with a
temporary directory (:mod:`nanohubmcp.testing.scratch`).
"""

from __future__ import annotations

import os
import stat
import sys
from contextlib import suppress

ENV_STATE_DIR = "NANOHUBMCP_STATE_DIR"
SESSIONDIR_VARS = ("SESSIONDIR", "SESSION_DIR")
"""The nanoHUB session directory's environment variables (set in every tool session)."""


def safe_name(name: str) -> str:
    """``name`` as one path component (letters, digits, ``-_.``; anything else becomes ``-``)."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name).strip("-.")
    return cleaned or "server"


def user_data_dir() -> str:
    """The per-user data directory of this platform."""
    if sys.platform == "win32":
        return os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Application Support")
    return os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")


def resolve_state_dir(server_name: str, state_dir: str | os.PathLike[str] | None = None) -> str:
    """The state directory of the server named ``server_name`` (see the module docstring)."""
    if state_dir is not None and str(state_dir):
        return os.path.abspath(os.path.expanduser(os.fspath(state_dir)))
    explicit = os.environ.get(ENV_STATE_DIR, "").strip()
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    return os.path.join(default_root(), safe_name(server_name))


def named_state_dir(state_dir: str | os.PathLike[str] | None = None) -> bool:
    """Whether the state directory is one the user named (options 1 and 2 of the module docstring:
    ``state_dir=``, ``--state-dir``, a ``sqlite:///DIR`` state URL, ``NANOHUBMCP_STATE_DIR``), not
    the default one per server name. A named directory is the documented way for separately started
    servers to share their state (each on its port, one ``--state-dir``)."""
    return (state_dir is not None and bool(str(state_dir))) or bool(os.environ.get(ENV_STATE_DIR, "").strip())


def default_root() -> str:
    """The directory holding one state directory per server name when neither ``state_dir=`` nor
    ``NANOHUBMCP_STATE_DIR`` names one: ``$SESSIONDIR/nanohubmcp`` on nanoHUB, else the per-user
    data directory's ``nanohubmcp`` (options 3 and 4 of the module docstring, without the name)."""
    for var in SESSIONDIR_VARS:
        session_dir = os.environ.get(var, "").strip()
        if session_dir:
            return os.path.join(session_dir, "nanohubmcp")
    return os.path.join(user_data_dir(), "nanohubmcp")


def private_folder(path: str, *, tighten: bool = True) -> None:
    """Make the folder ``path`` its owner's only, mode ``0o700``, whatever the umask. Every missing
    folder on the way is made so too (a state directory made as the parent of its ``results/`` was
    ``0o755`` under umask 022). With ``tighten``, one made beforehand looser (``0o755``: a state
    directory set up for several servers, or an earlier version's) that this user owns is set so;
    one of another owner is left as it is.

    Raises:
        OSError: it cannot be made.
    """
    missing: list[str] = []
    here = os.path.abspath(path)
    while not os.path.isdir(here):
        missing.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise
            continue  # (made meanwhile by another process)
        if os.name == "posix":
            with suppress(OSError):
                os.chmod(folder, 0o700)  # (a umask such as 0o277 takes more away than 0o700 leaves)
    if tighten and os.name == "posix":  # (modes are POSIX's; elsewhere the directory's access rules apply)
        with suppress(OSError):
            found = os.stat(path)
            if found.st_uid == os.geteuid() and found.st_mode & 0o077:
                os.chmod(path, 0o700)


def owner_only_tree(path: str) -> None:
    """Take group and other access away from every folder and file under ``path`` (and ``path``)
    that this user owns, leaving symbolic links (and what they point to) alone: files written there
    by another program (a notebook's kernel) under a looser umask become their owner's only."""
    if os.name != "posix":
        return
    for folder, dirs, files in os.walk(path):
        for name in (folder, *(os.path.join(folder, n) for n in (*dirs, *files))):
            with suppress(OSError):
                found = os.lstat(name)
                if (found.st_uid == os.geteuid() and found.st_mode & 0o077
                        and not os.path.islink(name)):
                    os.chmod(name, stat.S_IMODE(found.st_mode) & 0o700)


def private_opener(path: str, flags: int) -> int:
    """An ``opener`` for :func:`open` that creates the file its owner's only (mode ``0o600``)."""
    return os.open(path, flags, 0o600)
