"""Notebook -> ``start_mcp.py``: the translation behind ``nanohubmcp export`` and ``nbconvert --to mcp``.

A pure function of the notebook (no nbconvert, no kernel, nothing written). Magic lines are read
by :mod:`~nanohubmcp.jupyter.cellspec`, the parser the live magics use, so a notebook and its
script register the same components with the same options; cells go through IPython's own input
transformer, so ``%magic`` and ``!cmd`` lines are found exactly as a kernel finds them.

Rules (cells are counted from 1, markdown included; markdown, raw and ``mcp-skip`` cells are left
out, except that a leading markdown cell becomes the script's docstring):

- ``%%mcp_tool`` / ``%%mcp_resource`` / ``%%mcp_prompt`` cells keep their body, with
  ``@server.tool(...)`` (``@server.async_tool(...)`` for ``--async``), ``@server.resource(URI, ...)``
  or ``@server.prompt(...)`` above the function the magic registers. Other code stays, in order.
- A ``%%mcp_view URI`` cell keeps its code; its last expression (the view's HTML) becomes
  ``server.add_app_view(URI, <expression>, ...)``.
- ``%config NanohubMCP.<setting> = <literal>`` (last value wins): name, version, instructions,
  tool_timeout, max_inline_bytes, figure_dpi, state_dir, job_executor, executor_options and
  dask_address go to ``MCPServer(...)``, and so does ``provenance = False`` (a notebook that records
  nothing, perhaps for its arguments' sake, exports a script that records nothing, whatever its
  environment says; ``True`` is the default and writes nothing); host and port become the
  ``--host``/``--port`` defaults,
  except that a host other machines reach (``0.0.0.0``) is not: the notebook's token stays behind,
  so the script keeps 127.0.0.1 and says how to serve other machines with a token; path_prefix,
  allowed_origins and public_url go to ``server.run(...)``; state_url and tracing
  (which the environment overrides in a notebook) and token (a secret) are left to the script's
  environment, with a comment naming the variable; mode and switch_interval are notebook-only.
- ``%mcp rappture PATH ...`` and ``%mcp sim2l PATH ...`` become ``server.add_rappture_tool(PATH, ...)``
  and ``server.add_sim2l(PATH, ...)`` (the magic's own parser reads the options).
- Other magics, shell escapes, other cell magics, and top-level statements that only display a
  value (``df``, ``display(x)``) become a comment saying what was dropped.
- A cell using ``%mcp ...`` as a value (``r = %mcp call add {...}`` then ``assert``: a check of the
  notebook's tools through its running server) is left out whole, with a comment; a later cell
  using a name only such a cell bound is refused.
- A cell that cannot be translated raises :class:`~nanohubmcp.errors.NanohubMCPError` in one line
  naming the cell (number and first line): syntax errors, top-level ``await``, a component cell
  without a usable function or with bad options, IPython syntax used as a value (``x = !ls``), a
  non-literal ``%config`` value, or a cell binding the name ``server``.

The script ends with ``if __name__ == "__main__": server.run(...)`` taking ``--host``/``--port``
(then ``$MCP_PORT``, then the notebook's port; checked as ``nanohubmcp`` checks ``--port``, by
:func:`nanohubmcp.cli.add_port_option`: a value outside 0-65535 exits 2 with one line); ``start_mcp
--app`` imports it and runs ``server`` itself. An installed ``ruff`` (else ``black``) formats the result.
"""

from __future__ import annotations

import ast
import datetime
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._version import __version__
from ..errors import NanohubMCPError, RegistrationError
from ..serving.runners import is_loopback
from . import cellspec
from .notebook_cells import (
    bound_names,
    cell_magic,
    cell_tags,
    cell_text,
    displays_only,
    doc_from,
    ipython_call,
    is_name,
    leading_blank_lines,
    name_from,
    reads_server,
)
from .script_text import call_arguments, escape_docstring, format_script, literal, shorten, tidy
from .source_lines import KINDS as SOURCE_KINDS
from .source_lines import parse_source_line

__all__ = ["EXPORT_MARKER", "SKIP_TAG", "Script", "looks_exported", "translate"]

SKIP_TAG = "mcp-skip"
"""Cell tag: leave this code cell out of the script (ad-hoc test calls, plots)."""
EXPORT_MARKER = "by nanohubmcp"
"""Text on the ``Exported:`` line of every script's header (see :func:`looks_exported`)."""

_WHERE = {"name": "ctor", "version": "ctor", "instructions": "ctor", "tool_timeout": "ctor",
          "max_inline_bytes": "ctor", "figure_dpi": "ctor", "state_dir": "ctor", "job_executor": "ctor",
          "executor_options": "ctor", "dask_address": "ctor", "provenance": "ctor", "host": "cli",
          "port": "cli", "path_prefix": "run", "allowed_origins": "run", "public_url": "run",
          "state_url": "env", "tracing": "env", "token": "secret"}
_NOTE = {"ctor": "applied in MCPServer(...) at the top of the file",
         "cli": "the default of --{} (end of the file)",
         "run": "passed to server.run(...) at the end of the file",
         # In the notebook the environment wins over these two; an argument in the script would win over it.
         "env": "not written into the script, whose environment decides: run it with NANOHUBMCP_{upper} set",
         "secret": "not written into the script (a secret): run it with MCP_TOKEN set",
         # The notebook's token is not carried over (a secret): its exposure must not be either.
         "open": "not the default of --host, which stays 127.0.0.1 (the notebook's token is not carried over): "
                 "to serve other machines, run the script with --host {value} and MCP_TOKEN set",
         "provenance on": "on, the default: nothing written (NANOHUBMCP_PROVENANCE=0 turns it off)",
         None: "a notebook-only setting, dropped"}
_RESERVED = ("server", "_command_line_options")


class _Code(str):
    """A replacement that is code for the script (``%mcp rappture PATH`` -> ``server.add_rappture_tool``),
    not a comment."""

    __slots__ = ()
_COMPONENTS = {"mcp_tool": "tool", "mcp_resource": "resource", "mcp_prompt": "prompt"}
_HEADER = '''"""{doc}

An MCP server exported from the Jupyter notebook {source}.
Exported: {day} {marker} {version}. Edit the notebook and export it again
(nanohubmcp export, or jupyter nbconvert --to mcp) rather than editing this file.

Run it:
    python {file} [--host {host}] [--port {port}]    # or set MCP_PORT
    start_mcp --app {file}    # on nanoHUB
"""'''
_FOOTER = '''def _command_line_options(argv=None):
    """--host and --port of `python this_file.py` (start_mcp --app passes its own)."""
    import argparse

    from nanohubmcp.cli import add_port_option

    parser = argparse.ArgumentParser(description={description})
    parser.add_argument("--host", default={host}, help={host_help})
    add_port_option(parser, default={port}, help={port_help})  # a bad --port or $MCP_PORT exits 2
    args = parser.parse_args(argv)
    port = args.port{zero_note}
    return {{"host": args.host, "port": port}}


if __name__ == "__main__":
    server.run(**_command_line_options(){run})'''


_ZERO_PORT_NOTE = '''
    if int(port) == 0:
        print("Port 0, as in the notebook (%config NanohubMCP.port = 0): serving on any free port, shown "
              "below; pass --port N or set MCP_PORT for a fixed one.", flush=True)'''
"""Printed by an exported script whose port is the notebook's 0 (any free port)."""


@dataclass(frozen=True)
class Script:
    """The result of :func:`translate`.

    Attributes:
        text: the script source.
        server_name: ``%config NanohubMCP.name``, else the notebook's file name (as live).
        tools / resources / prompts: what the script registers (names; URIs for resources).
        dropped: one line per dropped item, e.g. ``"cell 3: %matplotlib inline"``.
        formatter: ``"ruff"`` or ``"black"`` when one formatted ``text``, else None.
        notes: what the script does differently from the notebook, one line each, for the terminal
            (a notebook host other machines reach: the script binds 127.0.0.1).
        sources: the tools of other formats it serves, one ``"<kind> <path>"`` each
            (``"rappture tools/fermi/tool.xml"``, ``"sim2l cooling.ipynb"``; kinds: ``%mcp rappture`` and
            ``%mcp sim2l`` lines), whose tool names are read from those files when the script runs.
    """

    text: str
    server_name: str
    tools: tuple[str, ...]
    resources: tuple[str, ...]
    prompts: tuple[str, ...]
    dropped: tuple[str, ...]
    formatter: str | None
    notes: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()


class _Untranslatable(Exception):
    """Internal: why a cell cannot become script code (``translate`` adds which cell)."""


class _ReadsServer(Exception):
    """Internal: the cell uses ``%mcp ...`` as a value (it reads the notebook's running server, a
    check of its tools): the script leaves it out whole."""


def translate(notebook: Mapping[str, Any], *, source: str = "notebook.ipynb", output: str | None = None,
              format_code: bool = True, exported_on: datetime.date | None = None) -> Script:
    """Translate a notebook (nbformat 4, a dict or ``NotebookNode``) into a ``start_mcp.py``.

    Args:
        source: the notebook's path, for the header and error messages.
        output: where the script will be written (default: ``start_mcp.py`` beside ``source``);
            named in the header, and the formatter applies the project settings found there.
        format_code: format with an installed ``ruff`` (else ``black``); False keeps the cells' code.
        exported_on: the header's date (default: today).
    Raises:
        NanohubMCPError: one line, ``"<source>, cell N (<first line>): <what is wrong>"``.
    """
    language = (notebook.get("metadata") or {}).get("language_info", {}).get("name", "python")
    if str(language).lower() != "python":
        raise NanohubMCPError(f"{source}: the notebook's language is {language}; only Python exports")
    builder = _Builder()
    for number, cell in enumerate(notebook.get("cells", []), 1):
        text = cell_text(cell.get("source", ""))
        if cell.get("cell_type") != "code" or SKIP_TAG in cell_tags(cell) or not text.strip():
            continue
        builder.number = number
        try:
            builder.add_cell(text)
        except (_Untranslatable, RegistrationError) as exc:
            first = next(line for line in text.splitlines() if line.strip()).strip()
            first = first if len(first) <= 60 else first[:57] + "..."
            reason = re.sub(r"^%%mcp_\w+: ", "", str(exc))
            raise NanohubMCPError(f"{source}, cell {number} ({first}): {reason}") from None
    name = builder.settings.get("name") or name_from(source)
    output = output or os.path.join(os.path.dirname(source), "start_mcp.py")
    text = builder.script(source, os.path.basename(output), name, doc_from(notebook),
                          exported_on or datetime.date.today())
    formatter = None
    if format_code:
        text, formatter = format_script(text, output)
    compile(text, source, "exec")  # valid whenever every cell is; a failure here is a bug
    found = builder.found
    return Script(text, name, tuple(found["tool"]), tuple(found["resource"]), tuple(found["prompt"]),
                  tuple(builder.dropped), formatter, builder.notes(), tuple(builder.sources))


def looks_exported(text: str) -> bool:
    """True when ``text`` starts like a script :func:`translate` wrote (so replacing it loses nothing)."""
    return re.search(r"Exported: .*" + re.escape(EXPORT_MARKER), text[:4000]) is not None


class _Builder:
    """Collects translated cells, ``%config`` settings, ``__future__`` imports and drop notes."""

    def __init__(self) -> None:
        from IPython.core.inputtransformer2 import TransformerManager

        self.transformer = TransformerManager()
        self.number = self.offset = 0  # the cell; lines IPython stripped before the code (for messages)
        self.blocks: list[str] = []
        self.settings: dict[str, Any] = {}
        self.futures: list[str] = []
        self.dropped: list[str] = []
        self.found: dict[str, list[str]] = {"tool": [], "resource": [], "prompt": []}
        self.sources: list[str] = []
        """``"<kind> <path>"`` of each ``%mcp rappture`` / ``%mcp sim2l`` line (:attr:`Script.sources`)."""
        self.registered: dict[tuple[str, str], tuple[int, str]] = {}
        """(kind, name or URI) -> (its block, its decorator line): a cell run again later replaces it."""
        self.left_out: dict[str, int] = {}
        """Name -> the left-out cell (:class:`_ReadsServer`) that last bound it, until a kept cell binds it."""

    def add_cell(self, text: str) -> None:
        code = self.transformer.transform_cell(text)
        self.offset = leading_blank_lines(text)
        magic = cell_magic(code)
        if magic is None:
            try:
                self.blocks.append(self._code(code))
            except _ReadsServer:
                first = shorten(next(line for line in text.splitlines() if line.strip()).strip())
                self.dropped.append(f"cell {self.number}: {first} (the cell reads the notebook's running server: "
                                    "a check, left out)")
                self.blocks.append(f"# cell {self.number} left out: it reads the notebook's running server (%mcp "
                                   f"used as a value, a check of its tools): {first}")
                self.left_out.update((name, self.number) for s in ast.parse(code).body for name in bound_names(s))
        elif magic[0] in _COMPONENTS:
            self.blocks.append(self._component(*magic))
        elif magic[0] == "mcp_view":
            self.blocks.append(self._view(magic[1], magic[2]))
        else:
            what = f"%%{magic[0]} {magic[1]}".rstrip()
            self.dropped.append(f"cell {self.number}: {what}")
            self.blocks.append(f"# dropped a cell (IPython only): {shorten(what)}")

    def _component(self, magic: str, line: str, body: str) -> str:
        kind = _COMPONENTS[magic]
        spec: Any = getattr(cellspec, f"parse_{kind}_line")(line)
        self.offset += 1 + leading_blank_lines(body)
        code = self._code(self.transformer.transform_cell(body))
        info, _ = cellspec.pick_function(code, spec.name, kind=kind)
        options = call_arguments([spec.uri] if kind == "resource" else [], spec.registration_options())
        method = "async_tool" if kind == "tool" and spec.background else kind
        decorator = f"@server.{method}({options})"
        if kind == "tool" and spec.main:
            decorator += "  # --main (the kernel's thread) applies in notebooks only"
        key = spec.uri if kind == "resource" else spec.name or info.name
        earlier = self.registered.get((kind, key))
        if earlier is None:
            self.found[kind].append(key)
        else:  # the notebook's way to edit a component: the later cell's definition is the one served
            block, line = earlier
            self.blocks[block] = self.blocks[block].replace(
                line, f"# ({kind} {key!r} is registered again in cell {self.number})", 1)
        self.registered[(kind, key)] = (len(self.blocks), decorator)
        lines = code.splitlines()
        lines.insert(info.lineno - 1, decorator)
        return "\n".join(lines)

    def _view(self, line: str, body: str) -> str:
        """A ``%%mcp_view`` cell: its code, its last expression passed to ``server.add_app_view``."""
        spec = cellspec.parse_view_line(line)
        self.offset += 1 + leading_blank_lines(body)
        code = self.transformer.transform_cell(body)
        try:
            before, last = cellspec.split_last_expression(code)
        except SyntaxError:
            return self._code(code)  # raises, naming the line
        if last is None:
            raise _Untranslatable("a %%mcp_view cell must end with the view's HTML (an expression)")
        options = call_arguments([], spec.registration_options())
        self.found["resource"].append(spec.uri)
        arguments = ", ".join(part for part in (literal(spec.uri), last, options) if part)
        return self._code(f"{before}server.add_app_view({arguments})")

    def _code(self, code: str) -> str:
        """Check a transformed cell; replace what a script cannot run by comments."""
        try:
            compile(code, "<cell>", "exec", dont_inherit=True)
        except SyntaxError as exc:
            where, msg = (exc.lineno or 1) + self.offset, exc.msg or "invalid syntax"
            if "outside" in msg and ("await" in msg or "async" in msg):
                raise _Untranslatable(f"top-level await on line {where} cannot run in a script; move it into "
                                      "an async def (a tool may be async) or call asyncio.run(...)") from None
            raise _Untranslatable(f"syntax error on line {where}: {msg}") from None
        lines = code.splitlines()
        for stmt, comment in sorted(self._replacements(ast.parse(code), lines), key=lambda r: -r[0].lineno):
            indent = lines[stmt.lineno - 1][: stmt.col_offset]
            text = str(comment) if isinstance(comment, _Code) else f"{'pass  ' if indent else ''}# {comment}"
            lines[stmt.lineno - 1 : stmt.end_lineno] = [f"{indent}{text}"]
        return "\n".join(lines)

    def _replacements(self, tree: ast.Module, lines: list[str]) -> list[tuple[ast.stmt, str]]:
        """The statements to replace, each with its comment; raises for what cannot be dropped."""
        found: list[tuple[ast.stmt, str]] = []
        covered: set[int] = set()
        for stmt in ast.walk(tree):
            if isinstance(stmt, ast.Expr) and ipython_call(stmt.value):
                covered.add(id(stmt.value.func.value))  # type: ignore[attr-defined]
                found.append((stmt, self._ipython(stmt.value)))  # type: ignore[arg-type]
        from_server = {id(n.func.value) for n in ast.walk(tree) if reads_server(n)}  # type: ignore[attr-defined]
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and is_name(node.func, "get_ipython") and id(node) not in covered:
                if id(node) in from_server:
                    raise _ReadsServer
                raise self._error(node, "uses IPython syntax (%magic, !cmd or get_ipython()) as a value, "
                                  "which a script cannot run: rewrite it in Python or tag the cell mcp-skip")
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                self.futures.extend(a.name for a in stmt.names if a.name not in self.futures)
                found.append((stmt, "moved to the top of the file: " + ast.unparse(stmt)))
            elif isinstance(stmt, ast.Expr) and displays_only(stmt.value):
                what = shorten(ast.unparse(stmt))
                self.dropped.append(f"cell {self.number}: {what} (display only)")
                found.append((stmt, f"dropped (display only): {what}"))
            for name in set(bound_names(stmt)) & set(_RESERVED):
                raise self._error(stmt, f"binds the name {name!r}, which the exported script uses for its "
                                  "own MCPServer; rename it or tag the cell mcp-skip")
        for node in ast.walk(tree):
            # A server built in code would be a second one (and its run() would block the script's).
            if isinstance(node, ast.Call) and (is_name(node.func, "MCPServer") or (
                    isinstance(node.func, ast.Attribute) and node.func.attr == "MCPServer")):
                raise self._error(node, "builds an MCPServer of its own; the exported script makes its server "
                                  "from the %%mcp_* cells. Tag this cell mcp-skip, or, for a notebook written "
                                  "in script style, copy its cells into a .py file instead of exporting")
        self._check_left_out(tree)
        starts = [s.lineno for s in ast.walk(tree) if isinstance(s, ast.stmt)]
        for stmt, _ in found:
            sharing = sum(stmt.lineno <= n <= (stmt.end_lineno or stmt.lineno) for n in starts)
            if lines[stmt.lineno - 1][: stmt.col_offset].strip() or sharing > 1:
                raise self._error(stmt, "mixes IPython-only code with other statements")
        return found

    def _check_left_out(self, tree: ast.Module) -> None:
        """Refuse a name only a left-out cell bound; a name this cell binds is no longer theirs."""
        bound = {name for stmt in tree.body for name in bound_names(stmt)}
        for node in sorted(ast.walk(tree), key=lambda n: getattr(n, "lineno", 0)):
            if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in self.left_out
                    and node.id not in bound):
                raise self._error(node, f"uses {node.id!r}, which only cell {self.left_out[node.id]} binds, a cell "
                                  "reading the notebook's running server (%mcp as a value) that the script leaves "
                                  f"out: bind {node.id!r} in plain Python in a cell the script keeps, or tag this "
                                  "cell mcp-skip too")
        for name in bound:
            self.left_out.pop(name, None)

    def _error(self, node: ast.AST, text: str) -> _Untranslatable:
        return _Untranslatable(f"line {getattr(node, 'lineno', 1) + self.offset} {text}")

    def _ipython(self, call: ast.Call) -> str:
        """The comment replacing ``get_ipython().<method>(...)``; applies ``%config NanohubMCP``."""
        method = call.func.attr  # type: ignore[attr-defined]
        args = [a.value if isinstance(a, ast.Constant) else None for a in call.args]
        if method == "run_line_magic" and len(args) >= 2 and isinstance(args[0], str):
            line = str(args[1] or "")
            what = f"%{args[0]} {line}".rstrip()
            line = line.strip()
            if args[0] == "config" and re.match(r"NanohubMCP\b", line):
                note, secret = self._config(line)
                if secret:  # the comment names the setting, never its value
                    what = f"%config NanohubMCP.{secret} = ..."
                return f"{shorten(what)}: {note}"
            if args[0] == "load_ext" and line == "nanohubmcp":
                return f"{what}: not needed, the script imports nanohubmcp"
            kind, _, rest = line.partition(" ")
            if args[0] == "mcp" and kind in SOURCE_KINDS:
                try:
                    parsed = parse_source_line(kind, rest)
                except ValueError as exc:
                    raise self._error(call, str(exc)) from None
                self.sources.append(f"{kind} {parsed.path}")
                return _Code(parsed.code())
        elif method in ("system", "getoutput") and args and isinstance(args[0], str):
            what = ("!" if method == "system" else "!!") + args[0]
        else:
            what = ast.unparse(call)
        self.dropped.append(f"cell {self.number}: {shorten(what)}")
        return f"dropped (IPython only): {shorten(what)}"

    def _config(self, line: str) -> tuple[str, str]:
        """Record ``NanohubMCP.<setting> = <value>`` (checked like the kernel would); where it went,
        and the setting's name when its value is a secret (else "")."""
        from traitlets import TraitError

        from .config import NanohubMCP

        try:
            target = ast.parse("cfg." + line).body[0]
        except SyntaxError:
            target = None
        if not isinstance(target, ast.Assign) or not isinstance(target.targets[0], ast.Attribute):
            self.dropped.append(f"cell {self.number}: %config {line}")
            return "dropped (it only displays the settings)", ""
        setting = target.targets[0].attr
        if setting not in NanohubMCP.class_trait_names(config=True):
            raise _Untranslatable(f"%config NanohubMCP.{setting}: NanohubMCP has no setting {setting!r}")
        try:
            value = ast.literal_eval(target.value)
            NanohubMCP(**{setting: value})
        except (ValueError, TypeError, SyntaxError):
            raise _Untranslatable(f"%config NanohubMCP.{setting}: the value must be a literal (a number, "
                                  "string, list or None) to be exported") from None
        except TraitError as exc:
            raise _Untranslatable(str(exc).splitlines()[0]) from None
        if setting == "provenance" and value:
            self.settings.pop(setting, None)  # the default; an argument would outrank NANOHUBMCP_PROVENANCE=0
            return _NOTE["provenance on"], ""
        self.settings[setting] = value
        where = "open" if setting == "host" and not is_loopback(str(value)) else _WHERE.get(setting)
        return _NOTE[where].format(setting, upper=setting.upper(), value=value), setting if where == "secret" else ""

    def notes(self) -> tuple[str, ...]:
        """What the script does differently from the notebook (see :attr:`Script.notes`)."""
        host = self.settings.get("host", "127.0.0.1")
        if is_loopback(str(host)):
            return ()
        return (f"the notebook served on {host} (with its token, which is not exported): the script binds "
                f"127.0.0.1 unless run with --host {host}; set MCP_TOKEN when you do",)

    def script(self, source: str, file: str, name: str, doc: str, day: datetime.date) -> str:
        """The whole file: header, ``server``, the cells, the command line and ``__main__``."""
        values = {where: {k: v for k, v in self.settings.items() if _WHERE.get(k) == where and k != "name"}
                  for where in ("ctor", "run")}
        host, port = self.settings.get("host", "127.0.0.1"), self.settings.get("port", 8000)
        host_help = f"interface to bind (default: {host})"
        if not is_loopback(str(host)):  # served with a token in the notebook; the script has none of its own
            host_help = (f"interface to bind (default: 127.0.0.1; the notebook served on {host}: pass --host {host} "
                         "with MCP_TOKEN set to serve other machines)")
            host = "127.0.0.1"
        origin = " as in the notebook" if "port" in self.settings else ""
        parts = [
            _HEADER.format(doc=escape_docstring(doc or name), source=escape_docstring(source), day=day.isoformat(),
                           port=port, marker=EXPORT_MARKER, version=__version__, file=escape_docstring(file),
                           host=host),
            f"from __future__ import {', '.join(self.futures)}" if self.futures else "",
            f"from nanohubmcp import MCPServer\n\nserver = MCPServer({call_arguments([name], values['ctor'])})",
            *(tidy(block) for block in self.blocks),
            _FOOTER.format(
                description=literal(f"Serve {name} over MCP."), host=literal(host),
                host_help=literal(host_help), port=repr(port),
                port_help=literal(f"TCP port, 0-65535 (default: $MCP_PORT, else {port}{origin}; 0 = any free port)"),
                run="".join(f", {k}={literal(v)}" for k, v in values["run"].items() if v not in (None, "")),
                zero_note=_ZERO_PORT_NOTE if port == 0 else "",
            ),
        ]
        return "\n\n\n".join(part for part in parts if part.strip()) + "\n"
