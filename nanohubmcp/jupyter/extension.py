"""``%load_ext nanohubmcp``: attach the magics, the ``NanohubMCP`` configurable and a session to a shell.

``nanohubmcp.load_ipython_extension`` / ``unload_ipython_extension`` call :func:`load` /
:func:`unload`. State lives here, in a submodule, because ``%reload_ext`` re-imports only the
top-level package (IPython's ``ExtensionManager.reload_extension``): unload stops the server (the port
is free when it returns), stops observing settings and server events, removes the magics and
the configurable; load then starts afresh, keeping ``%config`` values (they live in the shell's
config), and says so: the magics are back, the tools, resources and prompts the cells registered are not (their
cells run again register them). Nothing starts at load time: the server starts on the first ``%%mcp_*`` cell or
``%mcp start``, so autoloading the extension from ``c.InteractiveShellApp.extensions`` (before
the kernel loop runs) is safe.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, cast

from . import comm, kernel_exit
from .config import NanohubMCP
from .refused_config import refusals
from .session import KernelSession

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

__all__ = ["Attachment", "current", "load", "unload"]

_ATTACHED: dict[int, Attachment] = {}
_UNLOADED: dict[int, str] = {}
"""Shell id -> what its last unloaded session served (``"1 tool(s), 0 resource(s), 0 prompt(s)"``; ``""``:
nothing), said by the next load of that shell (``%reload_ext`` unloads, then loads: its second line)."""


QUIET = logging.NullHandler()


class Attachment:
    """Everything one ``%load_ext`` added to a shell, so that unload can take it all back."""

    def __init__(self, shell: InteractiveShell) -> None:
        from IPython.core.error import UsageError
        from traitlets import TraitError

        from .magics import MCPMagics

        self.shell = shell
        try:
            self.config = NanohubMCP(parent=shell)
        except TraitError as exc:  # a c.NanohubMCP.* value of a profile's config file: one line, not a traceback
            raise UsageError(_not_loaded(shell, exc)) from None
        # %config lists the objects in shell.configurables; replace one left by an older load.
        configurables = _configurables(shell)
        configurables[:] = [c for c in configurables if type(c).__name__ != "NanohubMCP"]
        configurables.append(self.config)
        self.session = KernelSession(self.config)
        self.magics = MCPMagics(shell, self.session)
        shell.register_magics(self.magics)
        kernel_exit.stop_at_exit(self.session, self.session.close_at_exit)  # within the kernel exit's bound
        # A failing tool's traceback goes to the "nanohubmcp.tool" logger for a script's operator; in a
        # kernel, %mcp log and the panel show failures, and Python's last-resort handler would print the
        # traceback into whichever cell runs. A NullHandler keeps it out (routed logging still gets it).
        logging.getLogger("nanohubmcp.tool").addHandler(QUIET)

    def detach(self) -> None:
        """Stop the server, then remove the hooks, magics and configurable this load added."""
        self.session.close()
        logging.getLogger("nanohubmcp.tool").removeHandler(QUIET)
        kernel_exit.forget(self.session)
        manager = self.shell.magics_manager
        for kind, names in self.magics.magics.items():
            for name in names:
                manager.magics[kind].pop(name, None)
        manager.registry.pop(type(self.magics).__name__, None)
        configurables = _configurables(self.shell)
        if self.config in configurables:
            configurables.remove(self.config)


def _not_loaded(shell: InteractiveShell, exc: Exception) -> str:
    """The load's refusal in one line, naming every value of the shell's config ``NanohubMCP`` refuses."""
    why = refusals(NanohubMCP, shell.config) or [str(exc).rstrip(".")]
    fix = "fix the setting" if len(why) == 1 else f"fix these {len(why)} settings"
    return f"{'; '.join(why)}; nanohubmcp is not loaded: {fix}"


def _configurables(shell: InteractiveShell) -> list[object]:
    """The objects ``%config`` lists (IPython annotates the list as holding shells; it holds configurables)."""
    return cast("list[object]", shell.configurables)


def load(shell: InteractiveShell) -> None:
    """Register the magics and the ``NanohubMCP`` configurable (a second load replaces the first)."""
    unload(shell)
    _ATTACHED[id(shell)] = Attachment(shell)
    comm.link(shell, _ATTACHED[id(shell)].session)  # the JupyterLab panel's comm target (kernels only)
    if id(shell) in _UNLOADED:
        print(loaded_again_line(_UNLOADED.pop(id(shell))), flush=True)


def unload(shell: InteractiveShell) -> None:
    """Stop the server (port freed), unregister event hooks, magics and the configurable; say what stopped."""
    attachment = _ATTACHED.pop(id(shell), None)
    if attachment is not None:
        stopped = stopped_line(attachment.session)
        runtime = attachment.session.server.runtime
        served = runtime.tools or runtime.resources or runtime.prompts
        _UNLOADED[id(shell)] = served_counts(attachment.session) if served else ""
        attachment.detach()
        comm.unlink(shell, attachment.session)  # the panel falls back to a server.run() server, or "not loaded"
        print(stopped, flush=True)


def served_counts(session: KernelSession) -> str:
    """What ``session``'s server has registered: ``"1 tool(s), 0 resource(s), 0 prompt(s)"``."""
    runtime = session.server.runtime
    tables = (("tool(s)", runtime.tools), ("resource(s)", runtime.resources), ("prompt(s)", runtime.prompts))
    return ", ".join(f"{len(items)} {kind}" for kind, items in tables)


def loaded_again_line(served: str) -> str:
    """One line saying what a load after an unload (``%reload_ext``'s second half) brings back, and what not: the
    new session's server has none of what the cells registered before (``served``, ``""`` when nothing)."""
    line = "nanohubmcp loaded again: the %mcp magics are back; the MCP server starts at the next %%mcp_* cell or "
    line += "%mcp start"
    if not served:
        return line + "."
    return (f"{line}, serving none of the {served} served before: run the cells that defined them "
            "(%%mcp_tool, %%mcp_resource, %%mcp_prompt, %mcp rappture ...) again.")


def stopped_line(session: KernelSession) -> str:
    """One line saying what unloading ``session`` stops (said before it stops)."""
    counts = served_counts(session)
    if session.running:
        where = f"stopped the MCP server '{session.server.name}' on port {session.server.port} (the port is free)"
    else:
        where = f"the MCP server '{session.server.name}' was not running"
    return f"nanohubmcp unloaded: {where}; its {counts} are no longer served; the %mcp magics are removed."


def current(shell: InteractiveShell | None = None) -> KernelSession | None:
    """The session of ``shell`` (default: the running IPython), or None when not loaded."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    attachment = _ATTACHED.get(id(shell))
    return attachment.session if attachment is not None else None
