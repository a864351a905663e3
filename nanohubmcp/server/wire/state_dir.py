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
temporary directory (:mod:`nanohubmcp.testing.scratch`) until the server begins to serve real clients.

One server's place, over its life, is its :class:`StateLink` (the core makes one and hands it to the
services it makes at their first use, :class:`~..first_use.FirstUse`): the state directory those services
are made in — the one named, else a testing client's temporary one until serving begins, else the
default — and, with a shared state store (a Redis state URL), this process's link to that store
(:class:`~.store_link.StoreLink`, made with such a URL only, its module imported then): the key signing
``requestState`` read before the port is bound (:meth:`StateLink.prepare`), the store connected on the
serving loop (:meth:`StateLink.connect`) and disconnected at the stop (:meth:`StateLink.disconnect`, then
:meth:`StateLink.close_store` once a stopping server's streams ended). It
owns neither the services kept there nor what is kept in step across processes (:mod:`.replication`).
"""

from __future__ import annotations

import os
import stat
import sys
from contextlib import suppress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

    from ...state import StateURL
    from .replication import Replication
    from .sessions import SessionStore
    from .store_link import Signs, StoreLink

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


class StateLink:
    """Where the server ``name`` keeps its state, and this process's link to it (the module docstring).

    Args:
        name: the server's name (names the default state directory; a shared store keeps its keys under it).
        state_url: the server's ``state_url`` (a Redis one is shared: a :class:`StoreLink` is made for it).
        state_dir: the state directory named (``state_dir=``, or a ``sqlite:///DIR`` URL's), else None.
        sessions: this process's sessions, kept in step with a shared store once connected.
        state_secret: the ``requestState`` key given, or None.
    """

    def __init__(self, name: str, state_url: StateURL, state_dir: str | os.PathLike[str] | None,
                 sessions: SessionStore, state_secret: str | bytes | None) -> None:
        self._name = name
        self._state_dir = state_dir
        self.scratch_state_dir: str | None = None
        """The testing clients' temporary directory given (:meth:`use_scratch`), or None."""
        self._served = False  # serving began (attach): its state directory is the one real clients use
        self.store_link: StoreLink | None = None
        """With a shared state store (Redis): this process's link to it (None for memory and SQLite)."""
        if state_url.shared:
            from .store_link import StoreLink  # (a shared store only: not imported for memory or SQLite)

            self.store_link = StoreLink(state_url, name, sessions, state_secret)

    # -- the state directory --------------------------------------------------------------------
    @property
    def named(self) -> bool:
        """Whether the user named the state directory (``NANOHUBMCP_STATE_DIR`` read now: a name wins whenever
        it is read)."""
        return named_state_dir(self._state_dir)

    def option(self) -> str | os.PathLike[str] | None:
        """The state directory services are made in: the one named, else a testing client's temporary one,
        else None (the default of the server's name)."""
        if self.scratch_state_dir is not None and not named_state_dir(self._state_dir):
            return self.scratch_state_dir
        return self._state_dir

    def directory(self) -> str:
        """The state directory (resolved now: ``NANOHUBMCP_STATE_DIR`` is read at each call)."""
        return resolve_state_dir(self._name, self.option())

    def use_scratch(self, directory: str) -> None:
        """Take ``directory``, a testing client's temporary one, unless the server began serving (a
        ``server.start()`` in a notebook: its real clients' jobs and records stay where they are) or another
        was given first. The caller holds what keeps the job store from being made meanwhile."""
        if not self._served and self.scratch_state_dir is None:
            self.scratch_state_dir = directory

    def serving_began(self) -> str | None:
        """The server serves real clients (HTTP, stdio): its state directory is no longer changed by
        :meth:`use_scratch`. Returns, the first time only, the temporary directory to leave (None when none
        was given or a directory is named): the services made there are to be dropped, then
        :meth:`scratch_left`."""
        first, self._served = not self._served, True
        if not first or self.scratch_state_dir is None or named_state_dir(self._state_dir):
            return None
        return self.scratch_state_dir

    def scratch_left(self) -> None:
        """The services made in the temporary directory were dropped: the server's own one from now on."""
        self.scratch_state_dir = None

    # -- the shared state store -----------------------------------------------------------------
    def prepare(self) -> None:
        """Read what serving needs from the shared state store before the port is bound (the key signing
        ``requestState``: :meth:`StoreLink.prepare <.store_link.StoreLink.prepare>`); nothing for memory
        and SQLite.

        Raises:
            ConfigurationError: the store cannot be reached, or refuses the URL (the message says why).
        """
        if self.store_link is not None:
            self.store_link.prepare()

    def connect(self, loop: asyncio.AbstractEventLoop, signs: Signs) -> Replication | None:
        """Connect to the shared state store on ``loop`` (the serving loop of this process): the replication
        keeping this process's sessions in step, ``signs`` told the ``requestState`` key (:meth:`StoreLink.connect
        <.store_link.StoreLink.connect>`); None for memory and SQLite. The state directory is compared with the live
        peers' once (a WARNING when one differs)."""
        return self.store_link.connect(loop, signs, self.directory()) if self.store_link is not None else None

    def disconnect(self, replication: Replication, loop: asyncio.AbstractEventLoop | None, *,
                   keep: bool = False) -> asyncio.Task[None] | None:
        """Stop keeping sessions in step; disconnect on ``loop`` now (returns the disconnecting task, for the caller
        to wait for), or with ``keep`` at :meth:`close_store` (:meth:`StoreLink.disconnect
        <.store_link.StoreLink.disconnect>`)."""
        if self.store_link is None:
            return None
        return self.store_link.disconnect(replication, loop, keep=keep)

    def close_store(self, loop: asyncio.AbstractEventLoop | None, flush: float) -> asyncio.Task[None] | None:
        """The disconnecting task of the shared store (its queued log entries written first, ``flush`` seconds
        at most: :meth:`StoreLink.close <.store_link.StoreLink.close>`), for the caller to wait for; None when
        nothing is disconnecting (memory, SQLite)."""
        return self.store_link.close(loop, flush) if self.store_link is not None else None
