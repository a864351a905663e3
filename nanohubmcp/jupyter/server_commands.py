"""What the ``%mcp`` subcommands do: manage, inspect and call the notebook's server.

A plain class over :class:`~nanohubmcp.jupyter.session.KernelSession`: the magic
(:mod:`.magics`) parses the line and calls one method here; every method prints or displays its
answer, or raises a one-line :class:`~IPython.core.error.UsageError` for a user mistake. It owns
no IPython parsing and no cell: ``%%mcp_*`` cells reach it only through :meth:`ServerCommands.serve`
(start the server on first use, else confirm the change).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.display import display

from ..errors import NanohubMCPError, RegistrationError
from ..protocol.jsondec import loads
from ..server.provenance.records import record_id_of
from ..sources.batch_run import batch_run, voila_kernel
from .display import JUPYTER_TOKEN_NOTE, StatusView, through_jupyter
from .history_view import HISTORY_ROWS, SCANNED, format_record, history_report
from .jobs_view import jobs_report
from .source_lines import parse_source_line
from .token_view import MCPToken, show_token_once
from .voila_page import show_on_page

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from .session import KernelSession

__all__ = ["ServerCommands", "running_loop"]


class ServerCommands:
    """The ``%mcp`` subcommands over ``session`` (``shell``: the IPython shell, None outside one)."""

    def __init__(self, session: KernelSession, shell: InteractiveShell | None) -> None:
        self.session = session
        self.shell = shell

    def serve(self, what: str) -> None:
        """Start on first use (showing the status), else confirm the change to ``what`` in one line."""
        try:
            started = self.session.ensure_started()
        except NanohubMCPError as exc:
            raise _not_started(f"{what} is registered, but the MCP server could not start", exc) from None
        if started:
            display(StatusView(self.session.status()))
        else:
            print(f"MCP {what} is ready at {self.session.mcp_url}")

    def start(self, _: str | None) -> None:
        """``%mcp start``."""
        self.session.components.use_kernel_loop(running_loop())
        try:
            started = self.session.start()
        except NanohubMCPError as exc:
            raise _not_started("the MCP server could not start", exc) from None
        if not started:
            print(f"The MCP server is already running at {self.session.mcp_url}")
        display(StatusView(self.session.status()))

    def stop(self, _: str | None) -> None:
        """``%mcp stop``."""
        stopped = self.session.stop()
        print("MCP server stopped; its port is free." if stopped else "The MCP server is not running.")

    def status(self, _: str | None) -> None:
        """``%mcp status``."""
        display(StatusView(self.session.status()))

    def url(self, _: str | None) -> str:
        """``%mcp url``: the MCP endpoint URL."""
        url = self.session.mcp_url
        if url is None:
            raise UsageError("the MCP server is not running; start it with %mcp start")
        if self.session.hub.streaming:
            print(f"Note: {self.session.hub.streaming}")
        if self.session.hub.jupyter_token:
            print(f"Note: a client outside uses {through_jupyter(url)}: {JUPYTER_TOKEN_NOTE}")
        return url

    def token(self, _: str | None) -> MCPToken | None:
        """``%mcp token``: the bearer token, shown until the next cell runs, and returned as an
        :class:`MCPToken` (``t = %mcp token`` keeps it); None, saying why, when no token is required."""
        token = self.session.token
        if not token:
            cause = "NanohubMCP.token = ''" if self.session.config.token is not None else "MCP_TOKEN is set but empty"
            print(f"The MCP server requires no token ({cause}).")
            return None
        if self.shell is None:  # no shell to hide the output at the next cell: not shown
            print("%mcp token shows the token only in IPython, which hides it when the next cell runs.")
            return None
        return MCPToken(token, self.shell, show_token_once(self.shell, token))

    def tools(self, _: str | None) -> None:
        """``%mcp tools``."""
        tools = self.session.status()["tools"]
        if not tools:
            print("No tools yet: define one in a %%mcp_tool cell.")
        for tool in tools:
            line = f"{tool['name']:<24} {tool['runs']:<7} {tool['description']}"
            print(line.rstrip())

    def jobs(self, *, every: bool = False) -> None:
        """``%mcp jobs [--all]``: this kernel's jobs, or every job of the state directory."""
        # Another kernel's server of the same name shares the store: its jobs are left out unless asked.
        print(jobs_report(self.session.server.runtime.jobs, self.session.job_processes, every=every))

    def history(self, target: str | None, *, every: bool = False) -> None:
        """``%mcp history [ID] [--all]``: this kernel's recent provenance records (``every``: those of
        every kernel sharing the state directory), or one record in full (any kernel's)."""
        store = self.session.server.runtime.provenance
        if target:
            record_id = record_id_of(target) or target
            print(format_record(store.find(record_id), target))
        else:
            rows = store.recent(HISTORY_ROWS if every else SCANNED)
            print(history_report(rows, self.session.server.runtime.jobs.directory, every=every))

    def remove(self, target: str | None) -> None:
        """``%mcp remove NAME``."""
        if not target:
            raise UsageError("%mcp remove needs a name: %mcp remove my_tool")
        kind = self.session.components.remove(target)
        if kind is None:
            raise UsageError(f"no tool, prompt or resource is named {target!r} (see %mcp tools)")
        print(f"Removed {kind} '{target}'.")

    def log(self, _: str | None) -> None:
        """``%mcp log``: recent server events, then the last failure's traceback."""
        print("\n".join(self.session.log) if self.session.log else "(no server events yet)")
        if self.session.components.last_failure is not None:
            print(f"\nLast failure (clients got only its message), {self.session.components.last_failure}")

    def source(self, kind: str, rest: str) -> None:
        """``%mcp sim2l PATH`` / ``%mcp rappture PATH``: serve a tool of another format."""
        try:
            line = parse_source_line(kind, rest)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        try:
            record = getattr(self.session.server, line.method)(line.path, **line.options)
        except RegistrationError as exc:
            raise UsageError(f"%mcp {kind}: {exc}") from None
        self.session.components.forget("tool", record.name)  # (a cell's tool of that name, replaced: none now)
        self.serve(f"tool '{record.name}' ({'Rappture tool' if kind == 'rappture' else 'Sim2L'} {line.path})")

    def call(self, rest: str) -> Any:
        """``%mcp call NAME {JSON}``: the tool's ``CallToolResult``, or None when the answer is shown
        later (a tool on the kernel's loop, which the calling cell holds). In a batch run (nbconvert,
        ``jupyter execute``, papermill) nothing shows it later: such a call is a :class:`UsageError`
        naming ``await current().server.call_async(...)``, which waits for it."""
        name, _, raw = rest.strip().partition(" ")
        if not name:
            raise UsageError('%mcp call needs a tool name, then its arguments as JSON: %mcp call add {"a": 1}')
        try:  # as the server's routes parse a body: no NaN/Infinity, no number beyond a double
            arguments = loads(raw) if raw.strip() else {}
        except ValueError as exc:
            why = f"{exc.msg}, column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise UsageError(
                f"%mcp call {name}: the arguments are not JSON ({why}); "
                'write an object such as {"a": 1, "text": "hi"}') from None
        if not isinstance(arguments, dict):
            raise UsageError(f'%mcp call {name}: the arguments must be a JSON object such as {{"a": 1}}')
        server = self.session.server
        if not server.running and name not in server.runtime.tools:  # (%mcp start would serve no such tool)
            raise UsageError(f"%mcp call {name}: no tool {name!r}: define it in a %%mcp_tool cell (after %reload_ext "
                             "nanohubmcp, run its cell again); %mcp tools lists the tools")
        if not server.running:
            raise UsageError("the MCP server is not running; start it with %mcp start")
        on_kernel = self.session.runs_on_kernel(name) or self.session.mode == "kernel"
        try:
            if not on_kernel:
                # Returned, not displayed: IPython shows a line magic's value once when it is the
                # cell's last line, and ``r = %mcp call ...`` keeps it.
                return server.call(name, arguments)
        except NanohubMCPError as exc:
            raise UsageError(f"%mcp call {name}: {exc}") from None
        if batch_run():  # nothing draws a later answer there, and ``r`` would be None (trial58 F12)
            raise UsageError(
                f"%mcp call {name}: this tool runs on the kernel's loop, which this cell holds, and in a batch run "
                "(nbconvert, jupyter execute, papermill) its result would never be shown: call it as "
                f'r = await current().server.call_async("{name}", {{...}}), after '
                "from nanohubmcp.jupyter.extension import current")
        # The call needs the kernel's loop, which this cell holds: show the answer when it comes.
        shown = display(f"calling {name}... (it runs on the kernel, which this cell holds: its result shows here "
                        "once the cell has finished, and a value is kept only by "
                        "r = await current().server.call_async(...), after "
                        "from nanohubmcp.jupyter.extension import current)",
                        display_id=True)
        task = asyncio.ensure_future(server.call_async(name, arguments))

        def done(finished: asyncio.Future[Any]) -> None:
            error = finished.exception()
            shown.update(f"%mcp call {name}: {error}" if error is not None else finished.result())

        task.add_done_callback(done)
        return None


def _not_started(what: str, exc: NanohubMCPError) -> UsageError:
    """The one-line error of a server that could not start. In the kernel Voilà renders a page with, whose page
    drops a cell's errors, it is shown on the page first (:func:`.voila_page.show_on_page`), saying what a Voilà
    app needs, so the visitor reads it instead of a blank page."""
    line = f"{what}: {_port_hint(str(exc), voila=voila_kernel() is not None)}"
    show_on_page(line)
    return UsageError(line)


def _port_hint(message: str, *, voila: bool = False) -> str:
    if "already in use" not in message:
        return message
    if voila:
        return (f"{message}. In a Voilà app every page load runs its own kernel and server, and the first keeps "
                "the port: set %config NanohubMCP.port = 0 (any free port)")
    return f"{message}. In a notebook: %config NanohubMCP.port = 0 (any free port) or another port, then %mcp start"


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The kernel's event loop when called from a cell (None in a plain terminal IPython)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
