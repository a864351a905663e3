"""Rappture tools (nanoHUB's ``tool.xml`` format) as MCP tools.

Example:
    ```python
    from nanohubmcp import MCPServer

    server = MCPServer("fermi")
    server.add_rappture_tool("examples/rappture/fermi/tool.xml")  # the tool's inputs become the schema
    ```

What the pieces do:

- :mod:`.inputs` reads ``<input>`` (groups, phases and structures flattened to argument names);
- :mod:`.schema` turns each input into a JSON Schema property; :mod:`.units` reads numbers with
  units through pint;
- :mod:`.driver` turns a call's arguments into the driver file (each input's ``current``);
- :mod:`.execute` runs ``rappture -execute`` on a hub, else the ``<command>`` itself, with a time
  limit, relaying ``=RAPPTURE-PROGRESS=>`` lines as MCP progress;
- :mod:`.outputs` (with :mod:`.plots`) turns the run file into content: curves as data plus PNG
  plots, numbers with units, logs as text, images, fields and meshes as resources;
- :mod:`.compat` is a small ``Rappture`` Python package for tool programs run off a hub.

:func:`load_rappture_tool` reads a tool.xml into a :class:`RapptureTool`; :func:`add_rappture_tool`
(``MCPServer.add_rappture_tool``) registers it as a ``Tool``, like ``@server.tool()`` does.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import RegistrationError, RegistrationWarning, ToolError
from ...protocol.result_types import ToolResult
from ...registration import user_frame
from ...schema import CheckPending
from ...server.calls.context import Context
from ...server.provenance.code_files import WATCHED
from ...server.provenance.tool_options import RUN_VALUES
from ...server.registry.components import STOPS_WHEN_CANCELLED
from ...server.wire.quick_exit import before_quick_exit
from ...server.wire.worker_cleanups import after_worker_death
from .code import watched_code
from .driver import check_values, converts_units, current_values
from .edits import EDITED, InputsWatch
from .inputs import text_of
from .rundirs import sweep, sweep_once
from .running import stop_all
from .tool import PROXY_TIMEOUT, RapptureTool, load_rappture_tool, time_limit
from .units import load_registry, pint_missing, registry_ready

if TYPE_CHECKING:
    from ...runtime import ResultSettings
    from ...server.registry.components import Tool

__all__ = ["PROXY_TIMEOUT", "RapptureCall", "RapptureTool", "add_rappture_tool", "load_rappture_tool"]


class RapptureCall:
    """The function registered for a Rappture tool: ``call(ctx, **arguments) -> ToolResult``.

    It pickles as the tool.xml path and its options, so a job may run it in another process (the
    ``processes`` or ``dask`` executors), which reads tool.xml again.
    An output over the call's ``ctx.inline_limit`` is kept aside (``inline_limit`` here: for a
    ``ctx`` that has none).
    """

    same_for_every_caller = True
    """Its ``ctx`` is for the run (progress, cancel, where a large output goes), never read for who calls: a
    ``cache="shared"`` of it is warned about at no one (``server.registry.checks.SAME_FOR_EVERY_CALLER``)."""

    def __init__(
        self,
        tool: RapptureTool,
        *,
        timeout: float | None = None,
        inline_limit: int | None = None,
        figure_dpi: float | None = None,
        plot: bool = True,
    ) -> None:
        self._tool: RapptureTool | None = tool
        self._path, self._name, self._timeout = str(tool.path), tool.name, timeout
        self._rappture, self._long = tool.rappture or "", tool.long
        self._inline_limit = inline_limit
        self._figure_dpi = figure_dpi
        self._plot = plot
        self._inputs = InputsWatch(str(tool.path), tool.root)
        self.__name__ = tool.name
        self.__doc__ = tool.description
        # What provenance names as the code's module and qualified name (code_facts.code_of): the tool, not this class.
        self.__module__, self.__qualname__ = str(tool.path), tool.name
        self.described = f"the Rappture tool {tool.path}"  # (a warning naming what a tool replaced says this)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_tool"] = None
        return state

    @property
    def tool(self) -> RapptureTool:
        """The loaded tool (read again from its file after unpickling)."""
        if self._tool is None:
            self._tool = load_rappture_tool(
                self._path, name=self._name, timeout=self._timeout, rappture=self._rappture, long=self._long
            )
        return self._tool

    def check(self, arguments: dict[str, Any]) -> None:
        """Refuse at once what the run would refuse (raises ``InvalidArguments``): a job tool's
        argument given with units (``"2000K"``) is converted and held to its limits before the job is
        made, as a plain number is by the schema.

        It runs on the event loop. The first conversion between units of a process needs pint's
        unit registry (about a second to make): until it is made this raises ``CheckPending``, and
        the server makes it on a worker thread, then checks again (other requests are served
        meanwhile)."""
        inputs = self.tool.inputs.arguments
        if not registry_ready() and converts_units(inputs, arguments):
            raise CheckPending(load_registry)
        check_values(self._name, inputs, arguments)

    def run_values(self, arguments: dict[str, Any]) -> dict[str, str]:
        """The values a run with ``arguments`` (checked by the schema) writes to the driver, by
        Rappture path: each input's text, a number in its declared units (``"26.85C"`` for a tool
        in K is ``"300K"``, as ``300`` is), defaults and a loader's example filled in. The result
        cache keys the call on them, so two spellings of one run are one cached call.

        Unit text is held to :mod:`nanohubmcp.sources.units_text`'s shape before pint reads it.

        Raises:
            InvalidArguments: a value that does not fit its input (the run would refuse it).
            CheckPending: a conversion between units needs pint's unit registry, not made yet
                (the cache layer makes it on a worker thread, then asks again).
        """
        inputs = self.tool.inputs.arguments
        if not registry_ready() and converts_units(inputs, arguments):
            raise CheckPending(load_registry)
        return current_values(self._name, inputs, arguments)

    def __call__(self, ctx: Context, **arguments: Any) -> ToolResult:
        """Run the tool (see :meth:`RapptureTool.run`).

        Raises:
            ToolError: also when tool.xml's ``<input>`` was edited since registration (the run would
                take the registered inputs while its record names the edited file), or tool.xml is gone or
                no longer parses.
        """
        change = self._inputs.change()
        if change == EDITED:
            raise ToolError(
                f"Rappture tool {self._name!r}: the <input> section of {self._path} was edited after the server "
                "registered the tool, and a call runs with the inputs registered (the schema clients have, the "
                "defaults, units and limits): serve the tool again to use the edited inputs, or undo the edit")
        if change is not None:
            raise ToolError(
                f"Rappture tool {self._name!r}: {self._path} {change} since the server registered the tool, and a "
                "call's record would name a tool.xml the run did not use: restore the file, or serve the tool "
                "again once it is whole")
        last = [-1.0]

        def progress(percent: float, message: str) -> None:
            if percent > last[0]:  # MCP progress only increases; Rappture's may restart per phase
                last[0] = percent
                ctx.report_progress(percent, 100.0, message or None)

        # The call's own limit (a REST call's answer carries all of the data), else the registration's.
        inline_limit = getattr(ctx, "inline_limit", self._inline_limit)
        return self.tool.run(
            arguments,
            on_progress=progress,
            cancelled=ctx.is_cancelled,
            inline_limit=inline_limit,
            figure_dpi=self._figure_dpi,
            plot=self._plot,
        )


class RappturePlots(Protocol):
    """What registering a Rappture tool reads of the server's runtime (``server.runtime``)."""

    @property
    def results(self) -> ResultSettings:
        """How results are shaped: how large an output is inlined, the figures' dots per inch."""
        ...


class ToolHost(Protocol):
    """What registering a Rappture tool uses of a server (an ``MCPServer``)."""

    @property
    def runtime(self) -> RappturePlots: ...

    def add_tool(self, fn: Callable[..., Any], *, background: bool = ..., **options: Any) -> Tool: ...


def add_rappture_tool(
    server: ToolHost,
    path: str | Path,
    *,
    name: str | None = None,
    async_: bool | None = None,
    timeout: float | None = None,
    rappture: str | None = None,
    plot: bool = True,
    **options: Any,
) -> Tool:
    """Register the Rappture tool at ``path`` on ``server`` (an ``MCPServer``); returns the record.

    Args:
        path: tool.xml, or a directory holding ``tool.xml`` or ``rappture/tool.xml``.
        name: the tool name (default from the tool, see :func:`load_rappture_tool`).
        async_: run calls as jobs (``@async_tool``); default when the time limit in force allows runs longer
            than :data:`PROXY_TIMEOUT`: ``timeout`` (``inf`` does), else ``<limits><cputime>``.
        timeout: seconds a run may take; left out (None), the tool's ``<limits><cputime>``; ``inf`` (or a number
            past any wait, ``1e308``): no limit of ours, the run ends when its program does or its call is
            cancelled (a ``tool_timeout`` too). A run past it is stopped and its call answered
            :class:`~nanohubmcp.errors.ToolTimeout` (REST 504).
        rappture: the ``rappture`` program (default ``rappture`` on ``PATH``; ``""``: never).
        plot: draw curves, histograms and tables as PNG plots (matplotlib; the figures are made
            while the program runs and drawn as it exits, see :mod:`.plots`); False returns the
            data alone, without the drawing (some 45 million instructions a plot once the run ends).
        options: more options of ``MCPServer.tool`` (``title``, ``annotations``, ``scopes``,
            ``executor`` for a job tool, …).
    Raises:
        RegistrationError: the file cannot be read as a Rappture tool (the message says why), a ``timeout``
            that is no positive number of seconds (0, negative, NaN, a bool, a string); ``cache=``
            asked of a tool its time limit makes a job tool (give ``background=False`` to cache it).
    Warns:
        RegistrationWarning: inputs take numbers with units and pint is not installed (a call
            giving other units than the declared ones is then refused).
    """
    tool = load_rappture_tool(path, name=name, timeout=timeout, rappture=rappture, long=async_)
    if async_ and options.get("cache"):  # said here: the core's words are for @async_tool, not written here
        raise RegistrationError(
            f"Rappture tool {tool.name!r}: cache= is for tools that answer in the call, not background=True jobs; "
            "leave out one of them")
    if tool.long and async_ is None and options.get("cache"):  # a job tool by its time limit, not by asking
        which = (f"timeout= ({tool.limit:g}{' s' if math.isfinite(tool.limit) else ''}" if tool.limit_given
                 else f"<limits><cputime> ({_cputime_as_read(tool)}")
        raise RegistrationError(
            f"Rappture tool {tool.name!r}: cache= is for tools that answer in the call, and its {which}, longer than "
            f"{PROXY_TIMEOUT:g} s) makes it a job tool; give "
            "background=False to cache it (its calls then answer in the call, up to that limit), or leave cache= out")
    _warn_without_pint(tool)
    sweep_once()  # the run directories killed servers left
    after_worker_death(sweep)  # (--workers: a worker killed mid-run leaves its program; its parent ends it)
    before_quick_exit(stop_all)  # (a second Ctrl-C quits at once, running no exit handler: not its programs too)
    results = server.runtime.results
    call = RapptureCall(
        tool,
        timeout=timeout,
        inline_limit=results.max_inline_bytes,
        figure_dpi=results.figure_dpi,
        plot=plot,
    )
    options.setdefault("title", tool.title or None)
    watched = None if "source" in options else watched_code(tool)  # the code hash: tool.xml and its programs
    options.setdefault("annotations", {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False})
    # Every call's values are held to their units and limits before it runs (a refusal is the argument
    # check's, traced as validate_arguments; a job tool's before its job is made).
    options.setdefault("check_arguments", call.check)
    record = server.add_tool(
        call,
        background=tool.long,
        name=tool.name,
        description=tool.description,
        input_schema=tool.schema,
        **options,
    )
    record.extra[RUN_VALUES] = call.run_values  # the cache's key: "300 K" and 300 are one run
    record.extra[STOPS_WHEN_CANCELLED] = True  # a cancel (tool_timeout's too) stops the program's process group
    if watched is not None:  # stable across starts, and following an edit of tool.xml or a program
        record.extra[WATCHED] = watched
    return record


def _cputime_as_read(tool: RapptureTool) -> str:
    """The tool's ``<limits><cputime>`` as written, with the seconds :func:`time_limit` reads it as when
    they differ: ``100000 s (capped at 43200 s)``, ``unlimited (43200 s)``."""
    written = text_of(tool.root, "tool/limits/cputime")
    try:
        seconds = time_limit(written)
    except ValueError:  # (unreadable: the timeout= given stands in for it)
        return f"{written!r}, read as the timeout given: {tool.limit_text}"
    if not written.isdigit():
        return f"{written} ({seconds:g} s)"
    if int(written) != seconds:  # over 12 hours (or under the least, 10 s)
        return f"{written} s ({'capped at' if int(written) > seconds else 'raised to'} {seconds:g} s)"
    return f"{seconds:g} s"


def _warn_without_pint(tool: RapptureTool) -> None:
    """Tell the operator now, not the client at its first call, that units cannot be converted."""
    with_units = [f"{item.name} ({item.units})" for item in tool.inputs.arguments
                  if item.kind == "number" and item.units]
    if with_units and pint_missing():
        shown = ", ".join(with_units[:4]) + (f" and {len(with_units) - 4} more" if len(with_units) > 4 else "")
        warnings.warn(
            f"Rappture tool {tool.name!r}: {shown} take numbers with units, and pint is not installed: a call "
            "giving other units than the declared ones (\"25C\" for K) will be refused; install it with "
            "pip install 'nanohub-mcp[rappture]'",
            RegistrationWarning, stacklevel=user_frame(),
        )
