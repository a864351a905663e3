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
- ``%config NanohubMCP.<setting> = <literal>`` (last value wins) goes, setting by setting, to
  ``MCPServer(...)``, ``server.run(...)``, the ``--host``/``--port`` defaults or the script's
  environment (:mod:`~nanohubmcp.jupyter.export_settings`: a notebook served on a host other machines
  reach exports a script that binds 127.0.0.1; a token is never written).
- ``%mcp rappture PATH ...`` and ``%mcp sim2l PATH ...`` become ``server.add_rappture_tool(PATH, ...)``
  and ``server.add_sim2l(PATH, ...)`` (the magic's own parser reads the options).
- ``%mcp remove NAME`` leaves the earlier ``%%mcp_*`` cell registering NAME undecorated (as a cell
  registering NAME again does), so the script does not serve it either; a view's URI becomes
  ``server.remove_resource(URI)``, another name in a notebook with ``%mcp rappture``/``sim2l`` lines
  ``server.remove_tool(NAME)``.
- Other magics are translated, dropped with a comment or refused as :mod:`.script_magics` says
  (``%env NAME=value`` -> ``os.environ``, ``%time STATEMENT`` -> the statement, a ``%%time`` /
  ``%%capture`` cell -> its code, ``%run`` refused, ...); shell escapes, other cell magics, and top-level
  statements that only display a value (``df``, ``display(x)``) become a comment saying what was dropped.
  A ``%%writefile`` cell is not turned into code writing the file: the script is imported by commands
  that must not write
  (``nanohubmcp server-json``, ``start_mcp --app``), ``-a`` would append again at every start, and the
  file the notebook wrote is beside it already; the comment says to keep that file with the script.
- A magic or ``!cmd`` line inside a function's body that :mod:`.script_magics` does not translate is
  refused (dropped, it would change what the function does when called).
- A cell using ``%mcp ...`` as a value (``r = %mcp call add {...}`` then ``assert``: a check of the
  notebook's tools through its running server) is left out whole, with a comment. A later cell using
  a name only such a cell bound, or only a dropped cell magic bound (``%%yaml OUTPUTS``, ``%%capture
  out``, ``%%bash --out listing``), is refused: the script would stop
  at that name with a NameError.
- A notebook that serves nothing (no ``%%mcp_*`` cell, no ``%mcp rappture``/``sim2l`` line) is refused
  (``refuse_empty=True``, as both export commands ask). Refusing a Sim2L notebook (``%%yaml INPUTS``
  cells, ``simtool`` imports), for that or any other reason, points at ``nanohubmcp sim2l NOTEBOOK``.
- ``display``, which IPython gives every cell, is imported at the top (``from IPython.display import
  display``) when the kept code calls it (in a tool's body: top-level ``display(x)`` is dropped) and binds
  it nowhere.
- A cell that cannot be translated raises :class:`~nanohubmcp.errors.NanohubMCPError` in one line
  naming the cell (number and first line): syntax errors, top-level ``await``, a component cell
  without a usable function or with bad options, IPython syntax used as a value (``x = !ls``), a
  non-literal ``%config`` value, or a cell binding the name ``server``.

The file around the cells — its header, ``server = MCPServer(...)``, and the command line that ends
it with ``server.run(...)`` — is :mod:`~nanohubmcp.jupyter.script_frame`'s; ``start_mcp --app``
imports the script and runs ``server`` itself. An installed ``ruff`` (else ``black``) formats the result.
"""

from __future__ import annotations

import ast
import datetime
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import NanohubMCPError, RegistrationError
from . import cellspec
from .automagic import automagic_call
from .earlier_export import looks_exported
from .export_settings import ExportSettings, SettingRefused
from .notebook_cells import (
    RUNS_ITS_BODY,
    bound_names,
    cell_magic,
    cell_tags,
    cell_text,
    displays_only,
    doc_from,
    ipython_call,
    is_name,
    leading_blank_lines,
    looks_like_sim2l,
    magic_bound_names,
    name_from,
    reads_server,
)
from .script_frame import EXPORT_MARKER, frame
from .script_magics import CELL_KEEPS_BODY, line_magic
from .script_text import call_arguments, format_script, literal, shorten
from .source_lines import KINDS as SOURCE_KINDS
from .source_lines import parse_source_line

__all__ = ["EXPORT_MARKER", "SKIP_TAG", "Script", "looks_exported", "translate"]

SKIP_TAG = "mcp-skip"
"""Cell tag: leave this code cell out of the script (ad-hoc test calls, plots)."""
_RESERVED = {"server": "for its own MCPServer", "_command_line_options": "for its command line",
             "_CALLER_DIRECTORY": "for the directory it is started in"}
"""Names the script binds itself (:mod:`.script_frame`), and what for."""


class _Code(str):
    """A replacement that is code for the script (``%mcp rappture PATH`` -> ``server.add_rappture_tool``),
    not a comment."""

    __slots__ = ()
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPONENTS = {"mcp_tool": "tool", "mcp_resource": "resource", "mcp_prompt": "prompt"}


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
        token_required: ``python`` runs the script only with a token (``$MCP_TOKEN``, ``--token-file``),
            as the notebook's server required one (False: the notebook set ``token = ''``).
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
    token_required: bool = True


class _Untranslatable(Exception):
    """Internal: why a cell cannot become script code (``translate`` adds which cell)."""


class _ReadsServer(Exception):
    """Internal: the cell uses ``%mcp ...`` as a value (it reads the notebook's running server, a
    check of its tools): the script leaves it out whole."""


def translate(notebook: Mapping[str, Any], *, source: str = "notebook.ipynb", output: str | None = None,
              format_code: bool = True, exported_on: datetime.date | None = None, refuse_empty: bool = False) -> Script:
    """Translate a notebook (nbformat 4, a dict or ``NotebookNode``) into a ``start_mcp.py``.

    Args:
        source: the notebook's path, for the header and error messages.
        output: where the script will be written (default: ``start_mcp.py`` beside ``source``);
            named in the header, and the formatter applies the project settings found there.
        format_code: format with an installed ``ruff`` (else ``black``); False keeps the cells' code.
        exported_on: the header's date (default: today).
        refuse_empty: refuse a notebook that registers nothing (``nanohubmcp export`` and ``nbconvert --to
            mcp`` do: such a script serves 0 tools); False translates it (a part of a notebook, in tests).
    Raises:
        NanohubMCPError: one line, ``"<source>, cell N (<first line>): <what is wrong>"``, or
            ``"<source>: nothing to serve: ..."`` for a notebook registering nothing.
    """
    language = (notebook.get("metadata") or {}).get("language_info", {}).get("name", "python")
    if str(language).lower() != "python":
        raise NanohubMCPError(f"{source}: the notebook's language is {language}; only Python exports")
    builder = _Builder()
    sim2l = (f"; the notebook looks like a Sim2L (%%yaml INPUTS/OUTPUTS cells, simtool): serve it as one tool "
             f"with `nanohubmcp sim2l {source}` instead") if looks_like_sim2l(notebook) else ""
    for number, cell in enumerate(notebook.get("cells", []), 1):
        text = cell_text(cell.get("source", ""))
        if cell.get("cell_type") != "code" or SKIP_TAG in cell_tags(cell) or not text.strip():
            continue
        builder.number = number
        try:
            builder.add_cell(text)
        except (_Untranslatable, SettingRefused, RegistrationError) as exc:
            first = next(line for line in text.splitlines() if line.strip()).strip()
            first = first if len(first) <= 60 else first[:57] + "..."
            reason = re.sub(r"^%%mcp_\w+: ", "", str(exc))
            raise NanohubMCPError(f"{source}, cell {number} ({first}): {reason}{sim2l}") from None
    if refuse_empty and not (builder.sources or any(builder.found.values())):
        raise NanohubMCPError(
            f"{source}: nothing to serve: no %%mcp_tool, %%mcp_resource, %%mcp_prompt or %%mcp_view cell and no "
            f"%mcp rappture or %mcp sim2l line, so the script would serve 0 tools, 0 resources and 0 prompts"
            + (sim2l or "; start the cell of each function to serve with %%mcp_tool"))
    name = builder.settings.values.get("name") or name_from(source)
    output = output or os.path.join(os.path.dirname(source), "start_mcp.py")
    folder = notebook_folder(source, output)
    blocks = [*_ipython_builtins(builder.blocks), *builder.blocks]
    text = frame(builder.settings, blocks, builder.futures, source=source, file=os.path.basename(output),
                 name=name, doc=doc_from(notebook), day=exported_on or datetime.date.today(), notebook_folder=folder)
    formatter = None
    if format_code:
        text, formatter = format_script(text, output)
    compile(text, source, "exec")  # valid whenever every cell is; a failure here is a bug
    found = builder.found
    elsewhere = () if folder == "." else (
        f"{os.path.basename(output)} is not beside the notebook: its cells run in the notebook's folder ({folder} "
        "from the script's), as in the notebook; move the two together, or export beside the notebook",)
    return Script(text, name, tuple(found["tool"]), tuple(found["resource"]), tuple(found["prompt"]),
                  tuple(builder.dropped), formatter, builder.settings.notes() + elsewhere, tuple(builder.sources),
                  builder.settings.token_required)


def notebook_folder(source: str, output: str) -> str:
    """The folder of the notebook ``source`` relative to that of the script ``output`` (both paths as given,
    relative to the working directory), with ``/`` between folders: ``"."`` when the script is beside it."""
    notebook = os.path.realpath(os.path.dirname(source) or ".")
    try:
        return Path(os.path.relpath(notebook, os.path.realpath(os.path.dirname(output) or "."))).as_posix()
    except ValueError:  # another drive (Windows): no relative path leads there
        return notebook


_BUILTINS = {"display": "from IPython.display import display"}
"""Names a kernel gives every cell without an import (IPython's builtins), and the import a script needs."""


def _ipython_builtins(blocks: list[str]) -> list[str]:
    """The imports of the IPython builtins the kept code reads (``display(...)`` in a tool's body) without
    binding them at its top level: without one, every call of such a tool fails with a NameError."""
    tree = ast.parse("\n\n".join(blocks))
    bound = {name for stmt in tree.body for name in bound_names(stmt)}
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    return [f"{_BUILTINS[name]}  # a notebook builtin the code calls"
            for name in sorted(read & set(_BUILTINS) - bound)]


class _Builder:
    """Collects translated cells, ``%config`` settings (:mod:`.export_settings`), ``__future__`` imports
    and drop notes."""

    def __init__(self) -> None:
        from IPython.core.inputtransformer2 import TransformerManager

        self.transformer = TransformerManager()
        self.number = self.offset = 0  # the cell; lines IPython stripped before the code (for messages)
        self.blocks: list[str] = []
        self.settings = ExportSettings()
        self.futures: list[str] = []
        self.dropped: list[str] = []
        self.found: dict[str, list[str]] = {"tool": [], "resource": [], "prompt": []}
        self.sources: list[str] = []
        """``"<kind> <path>"`` of each ``%mcp rappture`` / ``%mcp sim2l`` line (:attr:`Script.sources`)."""
        self.registered: dict[tuple[str, str], tuple[int, str]] = {}
        """(kind, name or URI) -> (its block, its decorator line): a cell run again later replaces it."""
        self.unbound: dict[str, tuple[int, str, bool]] = {}
        """Name -> the cell that last bound it in a way the script does not, what that cell is, and whether the
        script leaves the cell out (:class:`_ReadsServer`, a dropped cell magic) or keeps its code (a
        ``%%capture NAME`` cell, whose capture it drops), until a kept cell binds the name."""
        self.kept: set[str] = set()
        """The names the kept cells bind at their top level."""
        self.automagic = True
        """Whether IPython's automagic is on (its default), as the notebook's ``%automagic`` lines set it."""

    def add_cell(self, text: str) -> None:
        code = self.transformer.transform_cell(text)
        # a one-line cell IPython runs as a magic without its %: cd /data is %cd /data, not a division
        if self.automagic:
            code = automagic_call(code, self.kept | self.unbound.keys()) or code
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
                what = "a cell reading the notebook's running server (%mcp as a value) that the script leaves out"
                self.unbound.update((name, (self.number, what, True)) for s in ast.parse(code).body
                                    for name in bound_names(s))
        elif magic[0] in _COMPONENTS:
            self.blocks.append(self._component(*magic))
        elif magic[0] == "mcp_view":
            self.blocks.append(self._view(magic[1], magic[2]))
        elif magic[0] in CELL_KEEPS_BODY:
            self._keep_body(*magic)
        else:
            self._drop_cell_magic(*magic)

    def _drop_cell_magic(self, magic: str, line: str, body: str) -> None:
        """Leave a ``%%magic`` cell out with a comment; remember the names it bound (refused if used later)."""
        what = f"%%{magic} {line}".rstrip()
        why = " (the script does not write the file: keep it with the script)" if magic == "writefile" else ""
        self.dropped.append(f"cell {self.number}: {what}{why}")
        self.blocks.append(f"# dropped a cell (IPython only): {shorten(what)}{why}")
        certain, likely = magic_bound_names(magic, line)
        if magic in RUNS_ITS_BODY:
            try:
                tree = ast.parse(self.transformer.transform_cell(body))
            except SyntaxError:
                tree = ast.Module(body=[], type_ignores=[])
            certain += [name for stmt in tree.body for name in bound_names(stmt)]
        # A word of an unknown magic's line (%%sql x, %%R -i x) may name a value kept code bound: not a binding.
        names = certain + [name for name in likely if name not in self.kept]
        what = f"a %%{magic} cell (a cell magic, IPython only) that the script leaves out"
        self.unbound.update((name, (self.number, what, True)) for name in names)

    def _keep_body(self, magic: str, line: str, body: str) -> None:
        """A ``%%time`` / ``%%capture`` / ``%%prun`` cell: its body runs, as in the notebook (without the
        timing, capture or profile); ``%%capture NAME``'s NAME stays unbound (refused if used later)."""
        what = shorten(f"%%{magic} {line}".rstrip())
        self.offset += 1 + leading_blank_lines(body)
        code = self._code(self.transformer.transform_cell(body))
        self.blocks.append(f"# {what}: the cell's code runs, without the {magic} magic\n{code}")
        certain, _ = magic_bound_names(magic, line)
        self.unbound.update((name, (self.number, f"a %%{magic} cell, whose capture the script drops", False))
                            for name in certain)

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
        if kind == "tool":  # the script would stop at import, where registration refuses these
            self._check_tool(key, spec)
        # the notebook's way to edit a component: the later cell's definition is the one served
        if not self._unregister(kind, key, f"is registered again in cell {self.number}"):
            self.found[kind].append(key)  # (else it keeps its place in the counts, as in the notebook's list)
        self.registered[(kind, key)] = (len(self.blocks), decorator)
        lines = code.splitlines()
        lines.insert(info.lineno - 1, decorator)
        return "\n".join(lines)

    def _check_tool(self, key: str, spec: Any) -> None:
        """What registering the tool would refuse, as the notebook refused it: a reserved or uncallable
        name, a view that is not ``ui://``, executor options its executor does not take."""
        from ..errors import ConfigurationError
        from ..server.executors import check_options
        from ..server.provenance.tool_options import check_cache
        from ..server.registry.checks import RESERVED_TOOL_NAMES, reserved_name
        from ..server.registry.components import check_tool_name
        from ..server.registry.mcp_apps import check_view_uri

        if key in RESERVED_TOOL_NAMES:
            raise reserved_name(key)
        check_tool_name(key, given=bool(spec.name))
        if spec.view is not None:
            check_view_uri(spec.view, f"tool {key!r}")
        check_cache(key, {"private": True, "shared": "shared"}.get(spec.cache or ""), spec.cache_ttl,
                    background=spec.background)
        if spec.executor_options:
            try:
                check_options(spec.executor or self.settings.values.get("job_executor"), spec.executor_options)
            except ConfigurationError as exc:
                raise RegistrationError(f"tool '{key}': {exc}") from None

    def _unregister(self, kind: str, key: str, why: str) -> bool:
        """Leave the decorator of an earlier cell registering ``key`` out, replaced by a comment saying
        ``why``; False when no earlier cell registers it."""
        earlier = self.registered.pop((kind, key), None)
        if earlier is None:
            return False
        block, line = earlier
        self.blocks[block] = self.blocks[block].replace(line, f"# ({kind} {key!r} {why})", 1)
        return True

    def _remove(self, what: str, target: str) -> str:
        """``%mcp remove NAME`` (tool, prompt or resource, as the magic looks them up): the earlier cell
        registering it is kept undecorated, so the script does not serve it either."""
        for kind in ("tool", "prompt", "resource"):
            if self._unregister(kind, target, f"is removed in cell {self.number}: %mcp remove {target}"):
                self.found[kind].remove(target)
                return f"{what}: applied, the {kind}'s cell above is left undecorated (not served)"
        if target in self.found["resource"]:  # a %%mcp_view cell's resource, added by server.add_app_view
            self.found["resource"].remove(target)
            return _Code(f"server.remove_resource({literal(target)})  # {what}")
        if self.sources:  # a tool of a %mcp rappture / sim2l line, named in its file
            return _Code(f"server.remove_tool({literal(target)})  # {what}")
        self.dropped.append(f"cell {self.number}: {what} (no earlier cell registers {target!r})")
        return f"dropped: {what} (no earlier cell registers {target!r})"

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
        in_functions = {id(node) for function in ast.walk(tree) if isinstance(function, _FUNCTIONS)
                        for stmt in function.body for node in ast.walk(stmt)}
        for stmt in ast.walk(tree):
            if isinstance(stmt, ast.Expr) and ipython_call(stmt.value):
                covered.add(id(stmt.value.func.value))  # type: ignore[attr-defined]
                call: ast.Call = stmt.value  # type: ignore[assignment]
                if id(stmt) in in_functions:
                    found.append((stmt, self._in_function(call)))
                else:
                    found.append((stmt, self._ipython(call, nested=stmt.col_offset > 0)))
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
                raise self._error(stmt, f"binds the name {name!r}, which the exported script uses "
                                  f"{_RESERVED[name]}; rename it or tag the cell mcp-skip")
        for node in ast.walk(tree):
            # A server built in code would be a second one (and its run() would block the script's).
            if isinstance(node, ast.Call) and (is_name(node.func, "MCPServer") or (
                    isinstance(node.func, ast.Attribute) and node.func.attr == "MCPServer")):
                raise self._error(node, "builds an MCPServer of its own; the exported script makes its server "
                                  "from the %%mcp_* cells. Tag this cell mcp-skip, or, for a notebook written "
                                  "in script style, copy its cells into a .py file instead of exporting")
        self._check_unbound(tree)
        starts = [s.lineno for s in ast.walk(tree) if isinstance(s, ast.stmt)]
        for stmt, _ in found:
            sharing = sum(stmt.lineno <= n <= (stmt.end_lineno or stmt.lineno) for n in starts)
            if lines[stmt.lineno - 1][: stmt.col_offset].strip() or sharing > 1:
                raise self._error(stmt, "mixes IPython-only code with other statements")
        return found

    def _check_unbound(self, tree: ast.Module) -> None:
        """Refuse a name whose only binding the script lacks (:attr:`unbound`); a name this cell binds is no
        longer theirs."""
        bound = {name for stmt in tree.body for name in bound_names(stmt)}
        for node in sorted(ast.walk(tree), key=lambda n: getattr(n, "lineno", 0)):
            if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in self.unbound
                    and node.id not in bound):
                number, what, left_out = self.unbound[node.id]
                where = " in a cell the script keeps" if left_out else ""
                raise self._error(node, f"uses {node.id!r}, which only cell {number} binds, {what}: bind {node.id!r} "
                                  f"in plain Python{where}, or tag this cell mcp-skip too")
        for name in bound:
            self.unbound.pop(name, None)
        self.kept |= bound

    def _error(self, node: ast.AST, text: str) -> _Untranslatable:
        return _Untranslatable(f"line {getattr(node, 'lineno', 1) + self.offset} {text}")

    def _in_function(self, call: ast.Call) -> str:
        """A magic or ``!cmd`` line in a function's body: dropping it would change what the function does
        when called, so ``%env NAME=value`` becomes ``os.environ["NAME"] = "value"`` and anything else is
        refused, naming the line."""
        method = call.func.attr  # type: ignore[attr-defined]
        args = [a.value if isinstance(a, ast.Constant) else None for a in call.args]
        if method == "run_line_magic" and len(args) >= 2 and isinstance(args[0], str):
            line = str(args[1] or "")  # as IPython passes it: %env reads a leading space
            handling = line_magic(args[0], line, transform=self.transformer.transform_cell)
            if handling.kind == "code":  # %env, %time, %cd: what IPython does, in Python
                return _Code(handling.text)
            what = f"%{args[0]} {line.strip()}".rstrip()
        else:
            what = ("!" if method == "system" else "!!") + str(args[0]) if method in ("system", "getoutput") \
                else ast.unparse(call)
        raise self._error(call, f"runs IPython syntax inside a function ({shorten(what)}), which a script cannot run: "
                          "the function would do without it when called; rewrite it in Python (os.environ[NAME] = "
                          "VALUE for %env, subprocess.run([...]) for !cmd) or tag the cell mcp-skip")

    def _nested(self, call: ast.Call, what: str) -> _Untranslatable:
        return self._error(call, f"runs {shorten(what)} inside a block (if, for, with, try): the export applies "
                                 "it whether or not the block would run it; move it to the top level of a cell")

    def _ipython(self, call: ast.Call, nested: bool = False) -> str:
        """The comment replacing ``get_ipython().<method>(...)``; applies ``%config NanohubMCP``."""
        method = call.func.attr  # type: ignore[attr-defined]
        args = [a.value if isinstance(a, ast.Constant) else None for a in call.args]
        if method == "run_line_magic" and len(args) >= 2 and isinstance(args[0], str):
            given = str(args[1] or "")  # as IPython passes it to the magic
            what = f"%{args[0]} {given}".rstrip()
            if args[0] == "automagic":  # as IPython's %automagic reads its line: on, off, else a toggle
                on, off = given.lower() in ("on", "1", "true"), given.lower() in ("off", "0", "false")
                self.automagic = on or (not off and not self.automagic)
            line = given.strip()
            if args[0] == "config" and re.match(r"NanohubMCP\b", line):
                if nested:
                    raise self._nested(call, what)
                try:
                    placed = self.settings.apply(line)
                except SettingRefused as exc:  # name the line refused, not only the cell's first
                    raise self._error(call, str(exc)) from None
                if placed is None:
                    self.dropped.append(f"cell {self.number}: %config {line}")
                    return f"{shorten(what)}: dropped (it only displays the settings)"
                note, shown = placed
                if shown:  # a token never shown, a state URL's password as ***
                    what = f"%config {shown}"
                return f"{shorten(what)}: {note}"
            if args[0] == "load_ext" and line == "nanohubmcp":
                return f"{what}: not needed, the script imports nanohubmcp"
            kind, _, rest = line.partition(" ")
            if args[0] == "mcp" and ((kind == "remove" and rest.strip()) or kind in SOURCE_KINDS) and nested:
                raise self._nested(call, what)
            if args[0] == "mcp" and kind == "remove" and rest.strip():
                return self._remove(shorten(what), rest.strip())
            if args[0] == "mcp" and kind in SOURCE_KINDS:
                try:
                    parsed = parse_source_line(kind, rest)
                except ValueError as exc:
                    raise self._error(call, str(exc)) from None
                self.sources.append(f"{kind} {parsed.path}")
                return _Code(parsed.code())
            if args[0] != "mcp":
                handling = line_magic(args[0], given, transform=self.transformer.transform_cell)
                if handling.kind == "code":
                    return _Code(handling.text)
                if handling.kind == "refuse":
                    raise self._error(call, handling.text)
                if handling.text != "IPython only":
                    self.dropped.append(f"cell {self.number}: {shorten(what)} ({handling.text})")
                    return f"dropped ({handling.text}): {shorten(what)}"
        elif method in ("system", "getoutput") and args and isinstance(args[0], str):
            what = ("!" if method == "system" else "!!") + args[0]
        else:
            what = ast.unparse(call)
        self.dropped.append(f"cell {self.number}: {shorten(what)}")
        return f"dropped (IPython only): {shorten(what)}"
