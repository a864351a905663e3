"""The components a notebook's cells registered: one ``Entry`` per tool, resource, view or prompt.

:class:`CellRegistry` is held by :class:`nanohubmcp.jupyter.session.KernelSession` (which keeps
the server's lifecycle) as ``session.components``. It wraps each cell's function for the call
policy (``nanohubmcp.jupyter.calls``), registers it on the session's current ``MCPServer``,
remembers which cell defined what (a cell that now defines something else retires the old
component), and keeps the traceback of the last call that raised for ``%mcp log``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..registration import edited_definition, warn_registration
from ..server.registry.generators import refuse_generator
from ..server.registry.mcp_apps import html_of
from ..server.registry.resources import Resource
from . import calls
from .cell_specs import PromptSpec, ResourceSpec, ToolSpec, ViewSpec
from .output import CellOutput

if TYPE_CHECKING:
    from ..facade import MCPServer

__all__ = ["CellRegistry", "Entry"]


@dataclass
class Entry:
    """One component a cell registered.

    Attributes:
        kind: ``"tool"``, ``"resource"`` or ``"prompt"``.
        key: the registered name (the URI for resources).
        fn: the user's function (unwrapped).
        spec: the parsed magic line.
        cell: the defining cell (where its output goes).
        policy: ``"pool"`` or ``"kernel"`` (see ``nanohubmcp.jupyter.calls``).
    """

    kind: str
    key: str
    fn: Callable[..., Any]
    spec: ToolSpec | ResourceSpec | PromptSpec | ViewSpec
    cell: CellOutput
    policy: str


class CellRegistry:
    """The components of a notebook's cells, registered on the session's server.

    Args:
        server: the session's current ``MCPServer`` (a new one after a rebuild).
        tool_timeout: the current ``NanohubMCP.tool_timeout`` (seconds, or None).

    Attributes:
        entries: every registered component by ``(kind, key)``.
        cells: what each cell (by cell id) defines, as ``(kind, key)``.
        kernel_loop: the kernel's event loop, once a cell ran on it (``kernel`` policy calls go there).
        last_failure: the traceback of the latest call that raised, for ``%mcp log``, or None.
    """

    def __init__(self, server: Callable[[], MCPServer], tool_timeout: Callable[[], float | None]) -> None:
        self._server = server
        self._tool_timeout = tool_timeout
        self.entries: dict[tuple[str, str], Entry] = {}
        self.cells: dict[str, tuple[str, str]] = {}
        self.kernel_loop: asyncio.AbstractEventLoop | None = None
        self.last_failure: str | None = None

    @property
    def server(self) -> MCPServer:
        """The server the components are registered on."""
        return self._server()

    def use_kernel_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """A cell runs on ``loop`` (the kernel's): ``kernel`` policy calls go there (None: keep the known one)."""
        if loop is not None:
            self.kernel_loop = loop

    def reregister(self) -> None:
        """Put every component on :attr:`server` again (after the session built a new one)."""
        for entry in list(self.entries.values()):
            self._register(entry)

    def _failed(self, kind: str, name: str, trace: str) -> None:
        """A component raised: keep its traceback (one, the latest) for ``%mcp log``."""
        self.last_failure = f"{kind} '{name}' at {time.strftime('%H:%M:%S')}:\n{trace.rstrip()}"

    def _wrap(
        self, kind: str, fn: Callable[..., Any], name: str, policy: str, cell: CellOutput, background: bool = False
    ) -> Callable[..., Any]:
        return calls.wrap(
            fn,
            name=name,
            policy=policy,
            cell=cell,
            kernel_loop=self.kernel_loop,
            executor=lambda: self.server.runtime.worker_pool(),
            timeout=self._tool_timeout,
            background=background,
            on_failure=lambda name, trace: self._failed(kind, name, trace),
        )

    def _register(self, entry: Entry) -> str:
        """Put ``entry`` on the server; returns the registered key."""
        spec, fn = entry.spec, entry.fn
        if isinstance(spec, ToolSpec):
            name = spec.name or fn.__name__
            refuse_generator(fn, name)  # the wrapper below is a plain function, whatever ``fn`` is
            runs_on = spec.executor or (self.server.runtime.job_executor if spec.background else None)
            if runs_on in ("processes", "dask", "slurm"):
                # The function itself is pickled to the other process: nothing of the kernel goes along.
                wrapper = fn
            else:
                wrapper = self._wrap("tool", fn, name, entry.policy, entry.cell, spec.background)
            options = spec.registration_options()
            if spec.source is not None:
                options["source"] = spec.source  # the code hash of its provenance records and cache
            return self.server.add_tool(wrapper, background=spec.background, **options).name
        if isinstance(spec, ViewSpec):
            return self.server.add_app_view(spec.uri, fn, **spec.registration_options()).uri
        if isinstance(spec, ResourceSpec):
            wrapper = self._wrap("resource", fn, spec.name or fn.__name__, entry.policy, entry.cell)
            record = self.server.add_resource(wrapper, spec.uri, **spec.registration_options())
            return record.uri if isinstance(record, Resource) else record.uri_template
        wrapper = self._wrap("prompt", fn, spec.name or fn.__name__, entry.policy, entry.cell)
        return self.server.add_prompt(wrapper, **spec.registration_options()).name

    def _add(
        self,
        kind: str,
        fn: Callable[..., Any],
        spec: ToolSpec | ResourceSpec | PromptSpec | ViewSpec,
        cell: CellOutput,
        main: bool,
    ) -> Entry:
        entry = Entry(kind, "", fn, spec, cell, calls.policy_for(fn, main=main))
        # The cell that defined this name run again (edited): a changed signature is the workflow, no warning.
        key = str(getattr(spec, "name", None) or getattr(fn, "__name__", ""))
        rerun = self.entries.get((kind, key))
        with edited_definition(rerun is not None and rerun.cell.cell_id == cell.cell_id):
            entry.key = self._register(entry)  # raises RegistrationError; nothing changed then
        earlier = self.entries.get((kind, entry.key))
        if earlier is not None and earlier.cell.cell_id and cell.cell_id and earlier.cell.cell_id != cell.cell_id:
            warn_registration(
                f"{kind} '{entry.key}' was defined by another cell; this cell's function replaces it "
                "(give one of them another name with --name)"
            )
        self.entries[(kind, entry.key)] = entry
        if cell.cell_id:
            previous = self.cells.get(cell.cell_id)
            self.cells[cell.cell_id] = (kind, entry.key)
            if previous is not None and previous != (kind, entry.key):
                self._drop(*previous)  # the cell now defines something else: retire the old one
        return entry

    def add_tool(self, fn: Callable[..., Any], spec: ToolSpec, cell: CellOutput) -> Entry:
        """Register (or replace) a tool defined in ``cell``.

        Raises:
            RegistrationError: the function cannot be a tool (the message names it); the
                previous tool of that name stays registered.
        """
        return self._add("tool", fn, spec, cell, spec.main)

    def add_resource(self, fn: Callable[..., Any], spec: ResourceSpec, cell: CellOutput) -> Entry:
        """Register (or replace) the resource or template at ``spec.uri``."""
        return self._add("resource", fn, spec, cell, False)

    def add_view(self, html: object, spec: ViewSpec, cell: CellOutput) -> Entry:
        """Register (or replace) the MCP Apps view at ``spec.uri``: ``html`` is a str or has ``_repr_html_``."""
        html_of(html)  # raises TypeError saying what a view may be
        return self._add("resource", lambda: html, spec, cell, False)

    def add_prompt(self, fn: Callable[..., Any], spec: PromptSpec, cell: CellOutput) -> Entry:
        """Register (or replace) a prompt."""
        return self._add("prompt", fn, spec, cell, False)

    def served_before(self, kind: str, name: str | None, cell: CellOutput) -> str | None:
        """The key of the component of ``kind`` ("tool", "resource", "prompt") an earlier run of ``cell`` registered
        (known by its cell id), else ``name`` when a component of ``kind`` is registered under it; None: neither."""
        earlier = self.cells.get(cell.cell_id) if cell.cell_id else None
        if earlier is not None and earlier[0] == kind and earlier in self.entries:
            return earlier[1]
        return name if name is not None and (kind, name) in self.entries else None

    def forget(self, kind: str, key: str) -> None:
        """The component ``key`` of ``kind`` is no cell's any more (a ``%mcp rappture``/``sim2l`` tool took its name):
        forget it, leaving the server's registration alone."""
        self.entries.pop((kind, key), None)
        for cell_id in [cell_id for cell_id, defined in self.cells.items() if defined == (kind, key)]:
            del self.cells[cell_id]

    def _drop(self, kind: str, key: str) -> bool:
        self.entries.pop((kind, key), None)
        if kind == "tool":
            return self.server.remove_tool(key)
        if kind == "resource":
            return self.server.remove_resource(key)
        return self.server.remove_prompt(key)

    def remove(self, name: str) -> str | None:
        """Unregister the tool, prompt or resource (by URI) called ``name``; returns its kind."""
        for kind in ("tool", "prompt", "resource"):
            if (kind, name) in self.entries or (kind == "tool" and name in self.server.runtime.tools):
                self._drop(kind, name)
                return kind
        return None
