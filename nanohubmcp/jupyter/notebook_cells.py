"""Reading a notebook for the exporter: cell text and tags, the cell magic IPython turned a cell
into, what a top-level statement binds or only displays, and the defaults a notebook gives.

Pure functions over ``ast`` and the notebook's JSON; nothing here imports IPython.
"""

from __future__ import annotations

import ast
import itertools
import keyword
import os
import re
import shlex
from collections.abc import Mapping
from typing import Any

from ..protocol import ast_guard
from .source_lines import KINDS as SOURCE_KINDS

SKIP_TAG = "mcp-skip"
"""Cell tag: leave this code cell out of the script (ad-hoc test calls, plots)."""


def cell_text(source: str | list[str]) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def cell_tags(cell: Mapping[str, Any]) -> list[str]:
    return list((cell.get("metadata") or {}).get("tags") or [])


def failed_when_run(cell: Mapping[str, Any]) -> str | None:
    """The error a code cell's saved outputs show it raised when the notebook last ran it (``UsageError: Cell magic
    `%%mcp_tool` not found.``: a cell run before ``%load_ext nanohubmcp``), its first line cut to 100
    characters; None when it shows none (never run, or run without an error)."""
    for output in cell.get("outputs") or ():
        if not isinstance(output, Mapping):
            continue
        if output.get("output_type") == "error":
            text = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
        elif (output.get("output_type") == "stream" and output.get("name") == "stderr"
              and cell_text(output.get("text") or "").startswith("UsageError: ")):
            # IPython fails a cell with a UsageError written to stderr, not as an error output
            text = cell_text(output.get("text") or "")
        else:
            continue
        lines = text.strip().splitlines()
        first = lines[0] if lines else "an error"
        return first if len(first) <= 100 else first[:97] + "..."
    return None


def leading_blank_lines(text: str) -> int:
    """How many blank lines IPython's transformer strips from the start of ``text``."""
    lines = text.splitlines()
    return next((i for i, line in enumerate(lines) if line.strip()), len(lines))


def is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def ipython_call(node: ast.expr) -> bool:
    """``get_ipython().<method>(...)``, the form IPython turns magics and ``!cmd`` into."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Call) and is_name(node.func.value.func, "get_ipython"))


def reads_server(node: ast.AST) -> bool:
    """``get_ipython().run_line_magic("mcp", "call ...")``: an ``%mcp`` line (not one registering a
    source, ``%mcp rappture PATH``) whose value reads the notebook's running server."""
    if not (isinstance(node, ast.Call) and ipython_call(node) and len(node.args) == 2):
        return False
    method, (magic, line) = node.func.attr, node.args  # type: ignore[attr-defined]
    return (method == "run_line_magic" and isinstance(magic, ast.Constant) and magic.value == "mcp"
            and isinstance(line, ast.Constant) and str(line.value).split(" ")[0] not in SOURCE_KINDS)


def cell_magic(code: str) -> tuple[str, str, str] | None:
    """``(name, line, body)`` when IPython turned the cell into ``run_cell_magic(...)``."""
    try:
        body = ast_guard.parse(code).body
    except SyntaxError:
        return None
    if len(body) != 1 or not isinstance(body[0], ast.Expr) or not ipython_call(body[0].value):
        return None
    call: Any = body[0].value
    values = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if call.func.attr != "run_cell_magic" or len(values) != 3:
        return None
    return values[0], values[1], values[2]


def displays_only(node: ast.expr) -> bool:
    """A top-level expression kept only for its displayed value: no calls, or just ``display(...)``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return False  # a string used as a comment
    if isinstance(node, ast.Call) and is_name(node.func, "display"):
        return True
    effects = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)
    return not any(isinstance(child, effects) for child in ast.walk(node))


def bound_names(stmt: ast.stmt) -> list[str]:
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


SHOWS_OR_WRITES = frozenset({"writefile", "file", "html", "javascript", "js", "latex", "markdown", "svg", "timeit"})
"""Cell magics that bind no name: they write a file, show something, or time code in a namespace of their own."""
RUNS_ITS_BODY = frozenset({"capture", "time", "prun", "debug"})
"""Cell magics that run their body in the notebook's namespace: what the body binds, the notebook has."""
SCRIPT_MAGICS = frozenset({"script", "sh", "bash", "perl", "ruby", "python", "python2", "python3", "pypy"})
"""IPython's script magics, whose ``--out``/``--err``/``--proc NAME`` bind NAME."""


def magic_bound_names(magic: str, line: str) -> tuple[list[str], list[str]]:
    """The names a ``%%magic line`` cell binds in the notebook, beside its body's: ``(certain, likely)``.

    Certain: ``%%capture NAME`` and a script magic's ``--out``/``--err``/``--proc NAME`` (``%%bash --out
    listing``). Likely, for a magic not known here: the first word of its line that is not an option, when
    it is a Python name (``%%yaml INPUTS``, as simtool's magic binds it). The magics of
    :data:`SHOWS_OR_WRITES` and :data:`RUNS_ITS_BODY` bind none of their line's words.
    """
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    plain = [word for word in words if not word.startswith("-")]
    if magic == "capture":
        return [word for word in plain[-1:] if _python_name(word)], []
    if magic in SCRIPT_MAGICS:
        options = ("--out", "--err", "--proc")
        return [value for option, value in itertools.pairwise(words) if option in options and _python_name(value)], []
    if magic in SHOWS_OR_WRITES or magic in RUNS_ITS_BODY:
        return [], []
    return [], [word for word in plain[:1] if _python_name(word)]


def _python_name(word: str) -> bool:
    return word.isidentifier() and not keyword.iskeyword(word)


def looks_like_sim2l(notebook: Mapping[str, Any]) -> bool:
    """A code cell starts ``%%yaml INPUTS`` or ``%%yaml OUTPUTS``, or imports ``simtool``: a Sim2L notebook."""
    for cell in notebook.get("cells", []):
        text = cell_text(cell.get("source", ""))
        if cell.get("cell_type") == "code" and (re.match(r"\s*%%yaml\s+(INPUTS|OUTPUTS)\b", text)
                                                or re.search(r"^\s*(from|import)\s+simtool\b", text, re.M)):
            return True
    return False


def name_from(source: str) -> str:
    """The live default name: the notebook's file name, other characters turned into '-'."""
    stem = re.split(r"[\\/]", source)[-1].rsplit(".ipynb", 1)[0]
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in stem).strip("-") or "notebook"


def told_notebook_name() -> str:
    """The notebook's file name as Jupyter Server tells its kernel (``JPY_SESSION_NAME``, its path), as the export
    names its script's server (:func:`name_from`); '' when not told."""
    told = os.environ.get("JPY_SESSION_NAME", "")
    return name_from(told) if told.strip() else ""


def doc_from(notebook: Mapping[str, Any]) -> str:
    """The first cell's text when it is markdown (heading marks removed), else ''."""
    cells = [c for c in notebook.get("cells", []) if cell_text(c.get("source", "")).strip()]
    if not cells or cells[0].get("cell_type") != "markdown":
        return ""
    lines = cell_text(cells[0]["source"]).strip().splitlines()
    return "\n".join(re.sub(r"^#+\s*", "", line.rstrip()) for line in lines)
