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
- ``%config NanohubMCP.<setting> = <literal>`` (last value wins): name, version, instructions and
  tool_timeout go to ``MCPServer(...)``; host and port become the ``--host``/``--port`` defaults;
  path_prefix, allowed_origins and public_url go to ``server.run(...)``; mode is notebook-only.
- Other magics, shell escapes, other cell magics, and top-level statements that only display a
  value (``df``, ``display(x)``) become a comment saying what was dropped.
- A cell that cannot be translated raises :class:`~nanohubmcp.errors.NanohubMCPError` in one line
  naming the cell (number and first line): syntax errors, top-level ``await``, a component cell
  without a usable function or with bad options, IPython syntax used as a value (``x = !ls``), a
  non-literal ``%config`` value, or a cell binding the name ``server``.

The script ends with ``if __name__ == "__main__": server.run(...)`` taking ``--host``/``--port``
(then ``$MCP_PORT``, then the notebook's port); ``start_mcp --app`` imports it and runs ``server``
itself. An installed ``ruff`` (else ``black``) formats the result.
"""

from __future__ import annotations

import ast
import datetime
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._version import __version__
from ..errors import NanohubMCPError, RegistrationError
from . import cellspec

__all__ = ["EXPORT_MARKER", "SKIP_TAG", "Script", "looks_exported", "translate"]

SKIP_TAG = "mcp-skip"
"""Cell tag: leave this code cell out of the script (ad-hoc test calls, plots)."""
EXPORT_MARKER = "by nanohubmcp"
"""Text on the ``Exported:`` line of every script's header (see :func:`looks_exported`)."""

_WHERE = {"name": "ctor", "version": "ctor", "instructions": "ctor", "tool_timeout": "ctor",
          "max_inline_bytes": "ctor", "figure_dpi": "ctor", "host": "cli",
          "port": "cli", "path_prefix": "run", "allowed_origins": "run", "public_url": "run"}
_NOTE = {"ctor": "applied in MCPServer(...) at the top of the file",
         "cli": "the default of --{} (end of the file)",
         "run": "passed to server.run(...) at the end of the file",
         None: "a notebook-only setting, dropped"}
_RESERVED = ("server", "_command_line_options")
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
    import os

    parser = argparse.ArgumentParser(description={description})
    parser.add_argument("--host", default={host}, help={host_help})
    parser.add_argument("--port", type=int, default=None, help={port_help})
    args = parser.parse_args(argv)
    port = args.port if args.port is not None else os.environ.get("MCP_PORT") or {port}{zero_note}
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
    """

    text: str
    server_name: str
    tools: tuple[str, ...]
    resources: tuple[str, ...]
    prompts: tuple[str, ...]
    dropped: tuple[str, ...]
    formatter: str | None


class _Untranslatable(Exception):
    """Internal: why a cell cannot become script code (``translate`` adds which cell)."""


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
        text = _text(cell.get("source", ""))
        if cell.get("cell_type") != "code" or SKIP_TAG in _tags(cell) or not text.strip():
            continue
        builder.number = number
        try:
            builder.add_cell(text)
        except (_Untranslatable, RegistrationError) as exc:
            first = next(line for line in text.splitlines() if line.strip()).strip()
            first = first if len(first) <= 60 else first[:57] + "..."
            reason = re.sub(r"^%%mcp_\w+: ", "", str(exc))
            raise NanohubMCPError(f"{source}, cell {number} ({first}): {reason}") from None
    name = builder.settings.get("name") or _name_from(source)
    output = output or os.path.join(os.path.dirname(source), "start_mcp.py")
    text = builder.script(source, os.path.basename(output), name, _doc_from(notebook),
                          exported_on or datetime.date.today())
    formatter = None
    if format_code:
        text, formatter = _format(text, output)
    compile(text, source, "exec")  # valid whenever every cell is; a failure here is a bug
    found = builder.found
    return Script(text, name, tuple(found["tool"]), tuple(found["resource"]), tuple(found["prompt"]),
                  tuple(builder.dropped), formatter)


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

    def add_cell(self, text: str) -> None:
        code = self.transformer.transform_cell(text)
        self.offset = _leading_blank_lines(text)
        magic = _cell_magic(code)
        if magic is None:
            self.blocks.append(self._code(code))
        elif magic[0] in _COMPONENTS:
            self.blocks.append(self._component(*magic))
        else:
            what = f"%%{magic[0]} {magic[1]}".rstrip()
            self.dropped.append(f"cell {self.number}: {what}")
            self.blocks.append(f"# dropped a cell (IPython only): {_short(what)}")

    def _component(self, magic: str, line: str, body: str) -> str:
        kind = _COMPONENTS[magic]
        spec: Any = getattr(cellspec, f"parse_{kind}_line")(line)
        self.offset += 1 + _leading_blank_lines(body)
        code = self._code(self.transformer.transform_cell(body))
        info, _ = cellspec.pick_function(code, spec.name, kind=kind)
        options = _arguments([spec.uri] if kind == "resource" else [], spec.registration_options())
        method = "async_tool" if kind == "tool" and spec.background else kind
        decorator = f"@server.{method}({options})"
        if kind == "tool" and spec.main:
            decorator += "  # --main (the kernel's thread) applies in notebooks only"
        self.found[kind].append(spec.uri if kind == "resource" else spec.name or info.name)
        lines = code.splitlines()
        lines.insert(info.lineno - 1, decorator)
        return "\n".join(lines)

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
            lines[stmt.lineno - 1 : stmt.end_lineno] = [f"{indent}{'pass  ' if indent else ''}# {comment}"]
        return "\n".join(lines)

    def _replacements(self, tree: ast.Module, lines: list[str]) -> list[tuple[ast.stmt, str]]:
        """The statements to replace, each with its comment; raises for what cannot be dropped."""
        found: list[tuple[ast.stmt, str]] = []
        covered: set[int] = set()
        for stmt in ast.walk(tree):
            if isinstance(stmt, ast.Expr) and _ipython_call(stmt.value):
                covered.add(id(stmt.value.func.value))  # type: ignore[attr-defined]
                found.append((stmt, self._ipython(stmt.value)))  # type: ignore[arg-type]
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _is_name(node.func, "get_ipython") and id(node) not in covered:
                raise self._error(node, "uses IPython syntax (%magic, !cmd or get_ipython()) as a value, "
                                  "which a script cannot run: rewrite it in Python or tag the cell mcp-skip")
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                self.futures.extend(a.name for a in stmt.names if a.name not in self.futures)
                found.append((stmt, "moved to the top of the file: " + ast.unparse(stmt)))
            elif isinstance(stmt, ast.Expr) and _displays_only(stmt.value):
                what = _short(ast.unparse(stmt))
                self.dropped.append(f"cell {self.number}: {what} (display only)")
                found.append((stmt, f"dropped (display only): {what}"))
            for name in set(_bound_names(stmt)) & set(_RESERVED):
                raise self._error(stmt, f"binds the name {name!r}, which the exported script uses for its "
                                  "own MCPServer; rename it or tag the cell mcp-skip")
        for node in ast.walk(tree):
            # A server built in code would be a second one (and its run() would block the script's).
            if isinstance(node, ast.Call) and (_is_name(node.func, "MCPServer") or (
                    isinstance(node.func, ast.Attribute) and node.func.attr == "MCPServer")):
                raise self._error(node, "builds an MCPServer of its own; the exported script makes its server "
                                  "from the %%mcp_* cells. Tag this cell mcp-skip, or, for a notebook written "
                                  "in script style, copy its cells into a .py file instead of exporting")
        starts = [s.lineno for s in ast.walk(tree) if isinstance(s, ast.stmt)]
        for stmt, _ in found:
            sharing = sum(stmt.lineno <= n <= (stmt.end_lineno or stmt.lineno) for n in starts)
            if lines[stmt.lineno - 1][: stmt.col_offset].strip() or sharing > 1:
                raise self._error(stmt, "mixes IPython-only code with other statements")
        return found

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
                return f"{_short(what)}: {self._config(line)}"
            if args[0] == "load_ext" and line == "nanohubmcp":
                return f"{what}: not needed, the script imports nanohubmcp"
        elif method in ("system", "getoutput") and args and isinstance(args[0], str):
            what = ("!" if method == "system" else "!!") + args[0]
        else:
            what = ast.unparse(call)
        self.dropped.append(f"cell {self.number}: {_short(what)}")
        return f"dropped (IPython only): {_short(what)}"

    def _config(self, line: str) -> str:
        """Record ``NanohubMCP.<setting> = <value>`` (checked like the kernel would); where it went."""
        from traitlets import TraitError

        from .config import NanohubMCP

        try:
            target = ast.parse("cfg." + line).body[0]
        except SyntaxError:
            target = None
        if not isinstance(target, ast.Assign) or not isinstance(target.targets[0], ast.Attribute):
            self.dropped.append(f"cell {self.number}: %config {line}")
            return "dropped (it only displays the settings)"
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
        self.settings[setting] = value
        return _NOTE[_WHERE.get(setting)].format(setting)

    def script(self, source: str, file: str, name: str, doc: str, day: datetime.date) -> str:
        """The whole file: header, ``server``, the cells, the command line and ``__main__``."""
        values = {where: {k: v for k, v in self.settings.items() if _WHERE.get(k) == where and k != "name"}
                  for where in ("ctor", "run")}
        host, port = self.settings.get("host", "0.0.0.0"), self.settings.get("port", 8000)
        origin = " as in the notebook" if "port" in self.settings else ""
        parts = [
            _HEADER.format(doc=_escape(doc or name), source=_escape(source), day=day.isoformat(), port=port,
                           marker=EXPORT_MARKER, version=__version__, file=_escape(file), host=host),
            f"from __future__ import {', '.join(self.futures)}" if self.futures else "",
            f"from nanohubmcp import MCPServer\n\nserver = MCPServer({_arguments([name], values['ctor'])})",
            *(_tidy(block) for block in self.blocks),
            _FOOTER.format(
                description=_literal(f"Serve {name} over MCP."), host=_literal(host),
                host_help=_literal(f"interface to bind (default: {host})"), port=repr(port),
                port_help=_literal(f"TCP port (default: $MCP_PORT, else {port}{origin}; 0 = any free port)"),
                run="".join(f", {k}={_literal(v)}" for k, v in values["run"].items() if v not in (None, "")),
                zero_note=_ZERO_PORT_NOTE if port == 0 else "",
            ),
        ]
        return "\n\n\n".join(part for part in parts if part.strip()) + "\n"


# -- reading cells -------------------------------------------------------------------------
def _text(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def _tags(cell: Mapping[str, Any]) -> list[str]:
    return list((cell.get("metadata") or {}).get("tags") or [])


def _leading_blank_lines(text: str) -> int:
    """How many blank lines IPython's transformer strips from the start of ``text``."""
    lines = text.splitlines()
    return next((i for i, line in enumerate(lines) if line.strip()), len(lines))


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _ipython_call(node: ast.expr) -> bool:
    """``get_ipython().<method>(...)``, the form IPython turns magics and ``!cmd`` into."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Call) and _is_name(node.func.value.func, "get_ipython"))


def _cell_magic(code: str) -> tuple[str, str, str] | None:
    """``(name, line, body)`` when IPython turned the cell into ``run_cell_magic(...)``."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return None
    if len(body) != 1 or not isinstance(body[0], ast.Expr) or not _ipython_call(body[0].value):
        return None
    call: Any = body[0].value
    values = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if call.func.attr != "run_cell_magic" or len(values) != 3:
        return None
    return values[0], values[1], values[2]


def _displays_only(node: ast.expr) -> bool:
    """A top-level expression kept only for its displayed value: no calls, or just ``display(...)``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return False  # a string used as a comment
    if isinstance(node, ast.Call) and _is_name(node.func, "display"):
        return True
    effects = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)
    return not any(isinstance(child, effects) for child in ast.walk(node))


def _bound_names(stmt: ast.stmt) -> list[str]:
    """Module-level names a top-level statement binds."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in stmt.names]
    targets: list[Any] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        targets = [stmt.target]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _name_from(source: str) -> str:
    """The live default name: the notebook's file name, other characters turned into '-'."""
    stem = re.split(r"[\\/]", source)[-1].rsplit(".ipynb", 1)[0]
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in stem).strip("-") or "notebook"


def _doc_from(notebook: Mapping[str, Any]) -> str:
    """The first cell's text when it is markdown (heading marks removed), else ''."""
    cells = [c for c in notebook.get("cells", []) if _text(c.get("source", "")).strip()]
    if not cells or cells[0].get("cell_type") != "markdown":
        return ""
    lines = _text(cells[0]["source"]).strip().splitlines()
    return "\n".join(re.sub(r"^#+\s*", "", line.rstrip()) for line in lines)


# -- writing code --------------------------------------------------------------------------
def _literal(value: Any) -> str:
    """Python source for a plain value: strings in double quotes when possible, sets sorted."""
    if isinstance(value, str):
        text = repr(value)
        return f'"{text[1:-1]}"' if text.startswith("'") and '"' not in value else text
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(_literal(v) for v in value)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _arguments(positional: list[Any], options: dict[str, Any]) -> str:
    return ", ".join([_literal(v) for v in positional] + [f"{k}={_literal(v)}" for k, v in options.items()])


def _short(text: str, limit: int = 100) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def _escape(text: str) -> str:
    """Text safe inside a triple-quoted docstring."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _tidy(block: str) -> str:
    """No trailing spaces, no outer blank lines, at most two blank lines in a row."""
    text = "\n".join(line.rstrip() for line in block.splitlines()).strip("\n")
    return re.sub(r"\n{4,}", "\n\n\n", text)


def _format(text: str, path: str) -> tuple[str, str | None]:
    """Format with ``ruff format``, else ``black``, when installed; else return ``text`` unchanged."""
    ruff = _find_ruff()
    if ruff is not None:
        try:
            done = subprocess.run([ruff, "format", "--stdin-filename", path, "-"], input=text,
                                  capture_output=True, text=True, timeout=60, check=False)
            if done.returncode == 0 and done.stdout.strip():
                return done.stdout, "ruff"
        except (OSError, subprocess.TimeoutExpired):
            pass
    try:
        import black

        return black.format_str(text, mode=black.Mode()), "black"
    except Exception:  # not installed, or it refused the code: the unformatted script is still right
        return text, None


def _find_ruff() -> str | None:
    try:
        from ruff.__main__ import find_ruff_bin

        return str(find_ruff_bin())
    except Exception:  # not installed as a Python package
        return shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
