"""The magics: ``%%mcp_tool``, ``%%mcp_resource``, ``%%mcp_prompt``, ``%%mcp_view`` and ``%mcp``.

An adapter: it reads cells and magic lines (the options through ``cellspec``, the one parser the
exporter shares) and calls :class:`~nanohubmcp.jupyter.session.KernelSession`, the ``%mcp``
subcommands through :class:`~nanohubmcp.jupyter.server_commands.ServerCommands`. User mistakes
become one-line :class:`~IPython.core.error.UsageError` messages; an error raised by the cell's
own code shows its traceback, then a UsageError that marks the cell as failed. Either way nothing
is registered and the component of the previous run keeps working, and the names the cell's code bound
are put back as they were (:func:`_names_put_back_if_refused`): the notebook calls what clients call.

A component cell:

1. parses its options (a bad flag: UsageError);
2. compiles the cell after IPython's transforms (a syntax error, or top-level ``await``:
   UsageError naming the line) and picks the function to register (none, or several without
   ``--name``: UsageError);
3. runs the cell in the user namespace, so the function stays callable from other cells and
   reads the notebook's current globals at each call;
4. registers the function, replacing the previous one of that name (clients receive
   ``notifications/*/list_changed``), and starts the server on first use.

``%mcp start|stop|status|url|token|tools|jobs|history|remove NAME|log`` manages the server; ``%mcp call NAME
{...}`` calls a tool; ``%mcp sim2l PATH`` serves a Sim2L notebook as a tool, ``%mcp rappture PATH`` a
Rappture tool; ``%mcp`` alone (or ``%mcp help``) lists the actions (:data:`ACTION_HELP`).

Magic lines are taken literally: IPython's ``{expr}`` and ``$var`` expansion is off for every
magic here (``no_var_expand``), so ``%%mcp_resource data://y/{x}`` is a template even when the
notebook has an ``x``, ``--description "costs $price"`` keeps its text, and the notebook serves
what ``nbconvert --to mcp`` exports.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import HTML, display

from ..errors import RegistrationError
from ..registration import warnings_at
from ..server.provenance.record_ids import id_words_last
from . import cellspec
from .cell_components import Entry
from .output import CellOutput
from .server_commands import ServerCommands, running_loop
from .source_lines import KINDS

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from .cellspec import PromptSpec, ResourceSpec, ToolSpec
    from .session import KernelSession

__all__ = ["ACTIONS", "ACTION_HELP", "MCPMagics", "actions_text"]

ACTION_HELP = {
    "start": "serve with the NanohubMCP settings",
    "stop": "stop serving and free the port",
    "status": "the URL, endpoints, tools and client configurations",
    "url": "the MCP endpoint URL clients connect to (returned)",
    "token": "the token clients send, shown until the next cell runs (t = %mcp token keeps it)",
    "tools": "the tools this notebook serves",
    "jobs": "this kernel's jobs of --async tools (--all: every job of the state directory)",
    "history": "this kernel's provenance records of recent calls (history ID: one in full; --all: every kernel's)",
    "remove": "remove NAME: unregister a tool, prompt or resource",
    "log": "recent calls and changes, then the traceback of the last call that raised",
    "call": 'call NAME {"a": 1}: call a tool through the server, as a client would',
    "sim2l": "sim2l PATH [--name N] [--async] [--cell-timeout S]: serve a Sim2L notebook as a tool",
    "rappture": "rappture PATH [--name N] [--async] [--timeout S] [--no-plot]: serve a Rappture tool.xml as a tool",
    "help": "this list",
}
"""Every ``%mcp`` action with its one-line summary (``%mcp`` alone, or ``%mcp help``, prints them)."""
ACTIONS = tuple(ACTION_HELP)


def _documented_by(options: tuple[cellspec.Option, ...]) -> Callable[[Any], Any]:
    """Give a magic the help text of ``cellspec``'s option table (``%%mcp_tool?``)."""

    def decorate(func: Callable[..., Any]) -> Any:
        for option in reversed(options):
            func = argument(*option.flags, **option.kwargs)(func)
        return magic_arguments()(func)

    return decorate


@magics_class
class MCPMagics(Magics):
    """Magics serving a notebook's functions over MCP (see the module docstring).

    Args:
        shell: the IPython shell.
        session: the kernel's :class:`KernelSession`.
    """

    def __init__(self, shell: InteractiveShell, session: KernelSession) -> None:
        super().__init__(shell)
        self.session = session
        self.commands = ServerCommands(session, shell)

    # -- component cells -----------------------------------------------------------------
    @no_var_expand
    @cell_magic
    @_documented_by(cellspec.TOOL_OPTIONS)
    def mcp_tool(self, line: str, cell: str) -> None:
        """Serve the function this cell defines as an MCP tool.

        Runs the cell, registers its (last, or --name) function, and starts the server on
        first use. Sync functions run in a worker thread; async def functions and --main
        tools on the kernel's event loop.
        """
        spec = dataclasses.replace(self._parse(cellspec.parse_tool_line, line), source=cell)
        self._register("tool", spec, cell, spec.name, self.session.components.add_tool)

    @no_var_expand
    @cell_magic
    @_documented_by(cellspec.RESOURCE_OPTIONS)
    def mcp_resource(self, line: str, cell: str) -> None:
        """Serve the function this cell defines as the MCP resource at URI.

        A URI with {placeholders} makes a resource template whose values are passed to the
        function by name.
        """
        spec = self._parse(cellspec.parse_resource_line, line)
        self._register("resource", spec, cell, spec.name, self.session.components.add_resource)

    @no_var_expand
    @cell_magic
    @_documented_by(cellspec.VIEW_OPTIONS)
    def mcp_view(self, line: str, cell: str) -> None:
        """Serve the HTML this cell ends with as an MCP Apps view at URI (a ui:// URI).

        The cell's last expression is the view: an HTML string, or an object with _repr_html_
        (e.g. a plotly figure). Its scripts get a tool's result with mcpApp.onToolResult(...);
        a tool shows its result there with %%mcp_tool --view URI.
        """
        spec = self._parse(cellspec.parse_view_line, line)
        with _names_put_back_if_refused(self.shell):
            value = self._evaluate(cell, spec.uri)
            try:
                entry = self.session.components.add_view(value, spec, CellOutput.capture(self.shell))
            except (RegistrationError, TypeError) as exc:
                raise UsageError(f"%%mcp_view: {exc}") from None
        display(HTML(value) if isinstance(value, str) else value)  # the view as the notebook shows it
        self.commands.serve(f"view '{entry.key}'")

    def _evaluate(self, cell: str, uri: str) -> Any:
        """Run the cell (the view at ``uri``); the value of its last line, which must be an expression."""
        shell = self.shell
        assert shell is not None
        source = shell.transform_cell(cell)
        try:
            body, last = cellspec.split_last_expression(source)
        except SyntaxError as exc:
            raise UsageError(self._syntax_error("view", exc, uri, _dropped_lines(cell, source))) from None
        if last is None:
            raise UsageError("%%mcp_view: end the cell with the view's HTML: an HTML string, or an object "
                             "with _repr_html_ (e.g. a plotly figure)")
        try:
            exec(compile(body, "<%%mcp_view>", "exec"), shell.user_global_ns, shell.user_ns)
            return eval(compile(last, "<%%mcp_view>", "eval"), shell.user_global_ns, shell.user_ns)
        except Exception as exc:
            shell.showtraceback(tb_offset=1)
            raise UsageError(f"%%mcp_view: the cell raised {type(exc).__name__}; nothing was registered") from None

    @no_var_expand
    @cell_magic
    @_documented_by(cellspec.PROMPT_OPTIONS)
    def mcp_prompt(self, line: str, cell: str) -> None:
        """Serve the function this cell defines as an MCP prompt template."""
        spec = self._parse(cellspec.parse_prompt_line, line)
        self._register("prompt", spec, cell, spec.name, self.session.components.add_prompt)

    @staticmethod
    def _parse(parser: Callable[[str], Any], line: str) -> Any:
        try:
            return parser(line)
        except RegistrationError as exc:
            raise UsageError(str(exc)) from None

    def _register(
        self,
        kind: str,
        spec: ToolSpec | ResourceSpec | PromptSpec,
        cell: str,
        name: str | None,
        add: Callable[[Any, Any, CellOutput], Entry],
    ) -> None:
        shell = self.shell
        assert shell is not None
        with _names_put_back_if_refused(shell):
            fn = self._define(kind, cell, name, getattr(spec, "uri", None))
            self.session.components.use_kernel_loop(running_loop())
            # The cell's code is on no frame of the registering call: its warnings name the cell (IPython's
            # "Cell In[N]", the line of the function in the cell's code), not IPython's line calling this magic.
            try:
                with self._warnings_in_cell(getattr(getattr(fn, "__code__", None), "co_firstlineno", 1)):
                    entry = add(fn, spec, CellOutput.capture(shell))
            except RegistrationError as exc:
                raise UsageError(_in_magic_terms(exc, kind)) from None
        self.commands.serve(f"{kind} '{entry.key}'")

    def _warnings_in_cell(self, line: int | None = None) -> contextlib.AbstractContextManager[None]:
        """Registration warnings of the block shown at the running cell's ``line`` (``Cell In[N]:L``), not at
        IPython's code calling the magic. ``line`` None: the line of the cell calling this line magic."""
        shell = self.shell
        assert shell is not None
        if line is None:  # (the cell's code runs in the user's namespace: its frame is the first one there)
            frame = sys._getframe(1)
            while frame.f_back is not None and frame.f_globals is not shell.user_global_ns:
                frame = frame.f_back
            line = frame.f_lineno if frame.f_globals is shell.user_global_ns else 1
        registry = shell.user_global_ns.setdefault("__warningregistry__", {})
        return warnings_at(f"Cell In[{_running_cell(shell)}]", line, registry)

    def _define(self, kind: str, cell: str, name: str | None, uri: str | None = None) -> Callable[..., Any]:
        """Compile and run the cell; the function it defines (``name``: ``--name``; ``uri``: a resource's)."""
        shell = self.shell
        assert shell is not None
        source = shell.transform_cell(cell)
        filename = shell.compile.cache(source, _running_cell(shell), raw_code=cell)
        try:
            code = shell.compile(source, filename, "exec")
            info, _ = cellspec.pick_function(source, name, kind=kind)
        except SyntaxError as exc:
            where = _dropped_lines(cell, source)
            raise UsageError(self._syntax_error(kind, exc, uri or name or _first_function(cell), where)) from None
        except RegistrationError as exc:
            raise UsageError(str(exc)) from None
        try:
            exec(code, shell.user_global_ns, shell.user_ns)
        except Exception as exc:
            shell.showtraceback(tb_offset=1)  # the cell's own frames, not this one
            raise UsageError(
                f"%%mcp_{kind}: the cell raised {type(exc).__name__}; nothing was registered "
                f"(a {kind} registered by an earlier run keeps working)"
            ) from None
        fn = shell.user_ns.get(info.name)
        if not callable(fn):
            raise UsageError(f"%%mcp_{kind}: after running the cell, {info.name!r} is not a function")
        return fn

    def _syntax_error(self, kind: str, exc: SyntaxError, name: str | None, dropped: int) -> str:
        """The one-line message of a syntax error in a ``%%mcp_{kind}`` cell, its line counted as the notebook
        counts the cell's (the magic's line is line 1). The line itself with a caret is printed first, on stderr,
        as IPython shows a syntax error (``Cell In[N], line L``). ``name``: what the cell serves, when known; the
        message names the component an earlier run of the cell (or of that name) registered: it keeps serving.
        ``dropped``: the blank lines IPython's transforms took off the cell's start (its line numbers count
        without them)."""
        shell = self.shell
        line = None if exc.lineno is None else exc.lineno + dropped + 1  # (the cell's code is below the magic's line)
        if shell is not None and exc.text:  # (format_exception_only: "File ... line N", the line, its caret, the error)
            shown = "".join(traceback.format_exception_only(SyntaxError, exc)[1:])
            sys.stderr.write(f"  Cell In[{_running_cell(shell)}], line {line}\n{shown}")
            sys.stderr.flush()
        where = f"line {line} of the cell" if line is not None else "the cell"
        registered = "resource" if kind == "view" else kind
        kept = self.session.components.served_before(registered, name, CellOutput.capture(shell))
        return (f"%%mcp_{kind}: syntax error on {where}: {exc.msg}; nothing was registered"
                + (f" (the {kind} '{kept}' of an earlier run keeps serving)" if kept else ""))

    # -- %mcp ----------------------------------------------------------------------------
    @no_var_expand
    @line_magic
    @magic_arguments()
    @argument("action", choices=ACTIONS, help="what to do")
    @argument("target", nargs="?", help="the name (or resource URI) for 'remove'; for 'call': NAME {JSON}")
    @argument("--all", action="store_true", help="jobs, history: also those of other kernels with this state directory")
    def mcp(self, line: str) -> Any:
        """Manage the notebook's MCP server.

        start: serve (with the NanohubMCP settings); stop: stop and free the port;
        status: show the URL, endpoints, tools and a client configuration;
        url: return the MCP endpoint URL clients connect to (Streamable HTTP, ``<base URL>mcp``);
        token: show the bearer token clients send, until the next cell runs (nothing else shows
        it: a cell's output is saved with the notebook), and return it (``t = %mcp token``: a
        ``str`` whose repr hides it);
        tools: list the tools; jobs [--all]: list the jobs of --async tools (status, progress, age,
        executor), newest first: this kernel's, or with --all every job of the state directory
        (other kernels of a server of the same name share it); history [ID] [--all]: the provenance
        records of this kernel's recent calls and jobs (--all: every kernel's; one in full with its id);
        remove NAME: unregister a tool, prompt or resource;
        log: recent calls and changes, then the traceback of the last call that raised;
        call NAME {"a": 1}: call a tool through the server, as a client would (its arguments
        validated); returns the ``CallToolResult``, shown as a client shows it as the cell's
        last line, kept by ``r = %mcp call ...`` (a tool on the kernel's loop answers into the
        cell once the cell has finished, and returns nothing).
        sim2l PATH [--name NAME] [--async] [--cell-timeout SECONDS]: serve a Sim2L notebook (or a
        directory holding one) as a tool (see ``MCPServer.add_sim2l``; needs the sim2l extra:
        ``python3 -m pip install 'nanohub-mcp[sim2l]'``).
        rappture PATH [--name NAME] [--async] [--timeout SECONDS] [--no-plot]: serve a Rappture
        tool.xml as a tool (``--no-plot``: curves as data only, without PNG plots; see
        ``MCPServer.add_rappture_tool``; needs the rappture extra:
        ``python3 -m pip install 'nanohub-mcp[rappture]'``).
        """
        action_word, _, rest = line.strip().partition(" ")
        if action_word in ("", "help"):
            print(actions_text())
            return None
        if action_word == "call":  # its JSON arguments are not shell words
            return self.commands.call(rest)
        if action_word in KINDS:  # a path and its own options
            with self._warnings_in_cell():  # (a tool it replaces is warned about at this line)
                return self.commands.source(action_word, rest)
        if action_word == "history":  # a record id beginning with "-" is the ID, not an option
            line = " ".join(id_words_last(line.split()))
        args = parse_argstring(self.mcp, line)
        if args.action not in ("remove", "history") and args.target is not None:
            raise UsageError(f"%mcp {args.action} takes no argument")
        if args.all and args.action not in ("jobs", "history"):
            raise UsageError(f"%mcp {args.action} takes no --all (only %mcp jobs and %mcp history do)")
        if args.action == "jobs":
            return self.commands.jobs(every=args.all)
        if args.action == "history":
            return self.commands.history(args.target, every=args.all)
        action: Callable[[str | None], str | None] = getattr(self.commands, args.action)
        return action(args.target)


def actions_text() -> str:
    """What ``%mcp`` alone (and ``%mcp help``) prints: every action with its summary."""
    width = max(map(len, ACTIONS))
    lines = [f"  %mcp {name:<{width}}  {summary}" for name, summary in ACTION_HELP.items()]
    return "\n".join(["%mcp ACTION: manage the notebook's MCP server (%mcp? for the details)", *lines])


@contextlib.contextmanager
def _names_put_back_if_refused(shell: InteractiveShell | None) -> Iterator[None]:
    """Around running a component cell and registering what it defines: when that is refused (any exception out
    of the block), every name of the notebook's namespace the cell's code bound, rebound or deleted is put back
    as it was (a name it added is unbound again), so ``add(1, 2)`` in the notebook is the function clients call
    (trial74 F13: a refused generator cell left ``add`` the refused function while the server served the old
    one). What the code did besides binding names (its output, a changed list, a written file) stays done."""
    assert shell is not None
    spaces = {id(space): space for space in (shell.user_ns, shell.user_global_ns)}.values()
    before = [(space, dict(space)) for space in spaces]
    try:
        yield
    except BaseException:
        for space, earlier in before:
            for name in space.keys() - earlier.keys():
                space.pop(name, None)
            for name, value in earlier.items():
                if space.get(name, _UNSET) is not value:
                    space[name] = value
        raise


_UNSET = object()


def _dropped_lines(cell: str, source: str) -> int:
    """How many blank lines IPython's transforms took off the start of ``cell`` to make ``source``."""

    def leading_blank(text: str) -> int:
        return len(list(itertools.takewhile(lambda line: not line.strip(), text.splitlines())))

    return max(0, leading_blank(cell) - leading_blank(source))


def _first_function(cell: str) -> str | None:
    """The name of the first public function the cell defines at its top level, read without parsing (a cell
    with a syntax error): what it serves unless ``--name`` says otherwise. None: none is found."""
    found = re.findall(r"^(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)", cell, re.MULTILINE)
    return next((name for name in found if not name.startswith("_")), None)


def _in_magic_terms(exc: RegistrationError, kind: str) -> str:
    """The error's message, its Python keyword fix (``name='...'``) said as the cell's option."""
    flag = "--" + (exc.option or "").replace("_", "-")
    return exc.said_with(flag, f"add {flag} NAME to the %%mcp_{kind} line")


def _running_cell(shell: InteractiveShell) -> int:
    """The execution count of the cell running now, as IPython labels it (``Cell In[N]``): IPython has already
    counted on (``shell.execution_count`` is the next cell's) and keeps the running one's in its
    displayhook's ``exec_result``; outside a cell, ``shell.execution_count``."""
    result = getattr(shell.displayhook, "exec_result", None)
    count = getattr(result, "execution_count", None)
    return count if isinstance(count, int) else int(shell.execution_count)
