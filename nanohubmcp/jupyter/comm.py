"""The kernel end of the JupyterLab panel: a Jupyter comm target named ``nanohubmcp``.

The panel (``labextension/``) talks to the notebook's kernel over comms, which travel on the
kernel websocket the notebook already uses, so they work behind nanoHUB's proxy with no server
extension (the message shapes are in :mod:`nanohubmcp.jupyter.panel_messages`). :func:`link` is called once per
``%load_ext nanohubmcp``, :func:`unlink` once per unload, and :func:`follow` each time a cell's
``server.run()`` starts a server (``kernel_server.run_in_kernel``); outside a kernel (plain
IPython, scripts) they do nothing.

What the panel shows, one server per kernel:

- the ``%load_ext`` session (``KernelSession``), whenever there is one: it is the notebook's
  main server, so a ``server.run()`` started meanwhile is remembered but does not take over;
- otherwise the server the latest ``server.run()`` started. A re-run cell (a new ``MCPServer``
  on the same port) re-binds the panel to the new server; ``server.stop()`` keeps it bound and
  shows it stopped (``running`` false), until the next ``server.run()``;
- ``%unload_ext`` falls back to that server if it still serves, else to nothing;
- nothing: ``status`` says ``loaded`` false and the panel shows "not loaded". Servers started
  with ``server.start()`` or ``MCPServer`` objects never run are not shown.

The call log is the kernel's, not one server's: a switch keeps the calls recorded so far.

Handshake:

- the **panel opens** a comm to ``nanohubmcp`` when it attaches to a kernel. Before the first
  ``%load_ext`` or ``server.run()`` no target is registered: ipykernel closes the comm at once
  and the panel shows "not loaded";
- the kernel never opens a comm itself: a front end without the panel (classic Notebook, VS
  Code) would report a comm target it does not know. Instead the panel, while "not loaded",
  opens its comm again after a cell that mentions nanohubmcp, ``MCPServer`` or ``.run(`` has
  run (and on its refresh button); a panel with a comm open gets every change on it.

Kernel → panel messages (``status``, ``components``, ``calls``, ``jobs``, ``provenance``) are shaped in
:mod:`.panel_messages`, which documents them.

Panel → kernel: ``{"type": "refresh"}`` (answered with status, components and the full log),
``{"type": "clear"}`` (empties the log; every panel gets a ``reset``) and ``{"type":
"provenance", "id"}`` (a call's provenance record, answered to that panel only).

When (:mod:`.panel_feed`): call entries are sent in batches at most every :data:`FLUSH_DELAY` seconds from the loop
that served them (the server's own thread by default, so the log stays live while a cell runs);
status and components are sent once the kernel's loop is free again, i.e. when the cell that
started the server or registered a tool has finished (then they are final). A load, or a
``server.run()`` that changes what the panel follows, sends all three at once; an unload sends
status and components once its cell is done (a ``%reload_ext`` shows no "not loaded" between).

Cost: nothing is subscribed while no comm is open (:func:`follow` only remembers the server).
With one open, every call of the followed server lands in a bounded ring buffer
(:data:`LOG_SIZE` calls; it outlives the comms, so a reloaded page sees the calls made while a
panel listened). Comm sends from the server's thread are safe in ipykernel >= 6.20.
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard

from . import panel_messages
from .panel_feed import FLUSH_DELAY, PanelFeed
from .panel_messages import Shown, ShownServer
from .trait_groups import REBUILD_TRAITS

if TYPE_CHECKING:
    from comm.base_comm import BaseComm
    from IPython.core.interactiveshell import InteractiveShell
    from tornado.ioloop import IOLoop

    from .config import NanohubMCP

__all__ = ["FLUSH_DELAY", "LOG_SIZE", "TARGET", "PanelLink", "follow", "link", "unlink"]

TARGET = "nanohubmcp"
"""Comm target name shared with ``labextension/src/protocol.ts``."""
LOG_SIZE = 200
"""Calls kept for the panel (a ring buffer; older calls are dropped)."""

log = logging.getLogger("nanohubmcp")

_LINKS: dict[int, PanelLink] = {}


class LoadedSession(Shown, Protocol):
    """A ``%load_ext`` session as the panel follows it (a ``KernelSession``)."""

    @property
    def config(self) -> NanohubMCP: ...


def _in_kernel(shell: InteractiveShell | None) -> TypeGuard[InteractiveShell]:
    return getattr(shell, "kernel", None) is not None


def _panel(shell: InteractiveShell | None) -> PanelLink | None:
    """The link of the kernel behind ``shell``, registering the comm target on first use."""
    if not _in_kernel(shell):
        return None
    panel = _LINKS.get(id(shell))
    if panel is None:
        try:
            panel = PanelLink(shell)
            panel.register()
        except Exception:  # an old ipykernel without the comm package: no panel, no failure
            log.debug("nanohubmcp: no comm support in this kernel", exc_info=True)
            return None
        _LINKS[id(shell)] = panel
    return panel


def link(shell: InteractiveShell | None, session: LoadedSession) -> PanelLink | None:
    """Serve the panel for ``session`` (a ``KernelSession``) in the kernel behind ``shell``.

    Registers the comm target on first use, re-binds open panels to ``session`` (also after
    ``%reload_ext``, or from a ``server.run()`` server).
    Returns the link, or None outside a kernel or when ``comm`` is unusable (then nothing was
    changed).
    """
    panel = _panel(shell)
    if panel is None:
        return None
    panel.bind(session)
    return panel


def unlink(shell: InteractiveShell | None, session: LoadedSession) -> None:
    """``%unload_ext``: stop following ``session``.

    Open panels fall back to the latest ``server.run()`` server if it still serves, else they
    hear ``loaded`` false, once the unloading cell is done. Does nothing outside a kernel or
    when ``session`` is not the one followed.
    """
    panel = _LINKS.get(id(shell)) if _in_kernel(shell) else None
    if panel is not None:
        panel.release(session)


def follow(shell: InteractiveShell | None, served: Shown) -> PanelLink | None:
    """Show ``served`` (a ``kernel_server.KernelRun``: ``.server``, ``.status()``) when no session leads.

    Called by ``server.run()`` in a kernel: registers the comm target on first use and, unless
    a ``%load_ext`` session is followed, re-binds open panels to ``served``. Subscribes to
    nothing while no panel listens. Returns the link, or None outside a kernel or when ``comm``
    is unusable.
    """
    panel = _panel(shell)
    if panel is None:
        return None
    panel.offer(served)
    return panel


class PanelLink:
    """Open panel comms of one kernel, the server they watch, and the call log.

    Args:
        shell: the kernel's ``InteractiveShell``.

    Attributes:
        session: the ``%load_ext`` ``KernelSession``, or None.
        served: the latest ``server.run()`` server (``kernel_server.KernelRun``), or None.
    """

    def __init__(self, shell: InteractiveShell) -> None:
        self.shell = shell
        self.session: LoadedSession | None = None
        self.served: Shown | None = None
        self._comms: list[BaseComm] = []
        self._lock = threading.RLock()
        self._server: ShownServer | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.feed = PanelFeed(
            lambda: self.subject, lambda: self.listening, self._broadcast, capacity=LOG_SIZE, kernel_loop=_kernel_loop()
        )

    @property
    def calls(self) -> collections.deque[dict[str, Any]]:
        """The calls recorded so far, oldest first (at most :data:`LOG_SIZE`)."""
        return self.feed.calls

    # -- comm plumbing -------------------------------------------------------------------
    def register(self) -> None:
        """Register the ``nanohubmcp`` comm target with the kernel's comm manager."""
        from comm import get_comm_manager

        get_comm_manager().register_target(TARGET, self._on_open)

    @property
    def listening(self) -> bool:
        """True while at least one panel has a comm open."""
        return bool(self._comms)

    def _on_open(self, comm: BaseComm, msg: dict[str, Any]) -> None:
        comm.on_msg(lambda message: self._on_msg(comm, message))
        comm.on_close(lambda message: self._on_close(comm))
        with self._lock:
            self._comms.append(comm)
            self._watch()
        self._broadcast(self.feed.snapshot(), [comm])

    def _on_msg(self, comm: BaseComm, msg: dict[str, Any]) -> None:
        request = (msg.get("content") or {}).get("data") or {}
        kind = request.get("type")
        if kind == "refresh":
            self._broadcast(self.feed.snapshot(), [comm])
        elif kind == "provenance":
            self._broadcast([panel_messages.provenance(self.subject, request.get("id"))], [comm])
        elif kind == "clear":
            self.feed.clear()
            self._broadcast([self.feed.calls_message(reset=True)])

    def _on_close(self, comm: BaseComm) -> None:
        with self._lock:
            self._comms = [c for c in self._comms if c is not comm]
            if not self._comms:
                self._unwatch()

    def _broadcast(self, messages: list[dict[str, Any]], comms: list[BaseComm] | None = None) -> None:
        with self._lock:
            targets = list(self._comms) if comms is None else comms
        for comm in targets:
            for message in messages:
                try:
                    comm.send(message)
                except Exception:  # a comm closed under us: its on_close drops it
                    log.debug("nanohubmcp: panel send failed", exc_info=True)
                    break

    # -- which session and server --------------------------------------------------------
    @property
    def subject(self) -> Shown | None:
        """What the panel shows: :attr:`session`, else :attr:`served`, else None."""
        return self.session if self.session is not None else self.served

    def bind(self, session: LoadedSession) -> None:
        """Watch ``session`` from now on (a new ``%load_ext``); open panels get a snapshot."""
        with self._lock:
            self._unwatch()
            self.session = session
            if self._comms:
                self._watch()
        self._broadcast(self.feed.snapshot())

    def offer(self, served: Shown) -> bool:
        """Remember ``served``; watch it unless a session leads. True when the panel follows it."""
        with self._lock:
            self.served = served
            if self.session is not None:
                return False
            self._unwatch()
            if self._comms:
                self._watch()
        self._broadcast(self.feed.snapshot())
        return True

    def release(self, session: LoadedSession | None) -> None:
        """Stop watching ``session`` (unload): fall back to :attr:`served` if it serves, else nothing."""
        with self._lock:
            if session is None or self.session is not session:
                return
            self._unwatch()
            self.session = None
            if self.served is not None and not self.served.server.running:
                self.served = None
            if self._comms:
                self._watch()
        self.feed.changed("status", "components")  # once the cell is done: a %reload_ext binds the new session first

    def _watch(self) -> None:
        """Subscribe to the followed server, and a session's settings (lock held; comms are open)."""
        subject = self.subject
        if subject is None or (self._unsubscribe is not None and self._server is subject.server):
            return
        self._unwatch()
        self._server = subject.server
        unsubscribe_events = self._server.events.subscribe(self.feed.on_event)
        session = self.session
        if session is None or subject is not session:
            self._unsubscribe = unsubscribe_events
            return
        # A change of name/version/instructions rebuilds the server: follow it to the new one.
        session.config.observe(self._on_rebuild, names=list(REBUILD_TRAITS))

        def unsubscribe() -> None:
            unsubscribe_events()
            session.config.unobserve(self._on_rebuild, names=list(REBUILD_TRAITS))

        self._unsubscribe = unsubscribe

    def _unwatch(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = None
        self._server = None
        self.feed.forget_in_flight()

    def _on_rebuild(self, change: Mapping[str, object]) -> None:
        with self._lock:
            if self.session is None or self.session.server is self._server or not self._comms:
                return
            self._watch()
        self.feed.changed("status", "components")


def _kernel_loop() -> IOLoop | None:
    """The kernel's Tornado loop (current on the main thread, even before it runs), or None."""
    try:
        from tornado.ioloop import IOLoop

        return IOLoop.current()
    except Exception:
        return None
