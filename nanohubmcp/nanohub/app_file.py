"""What is wrong with an app file, said in one line: the checks :func:`~.child.load_app` makes
before and while it imports one (``nanohubmcp run``, ``server-json``, ``desktop-config``, ``start_mcp
--app``).

A path of the wrong kind — a directory, a notebook, a Rappture ``tool.xml``, any file Python does not
import — is a :class:`~nanohubmcp.errors.UsageError` naming what to give instead (the command that
takes a notebook or a ``tool.xml``); a missing file is a ``ConfigurationError``; an exception the
file raises while imported becomes an :class:`AppImportError` whose message names the exception,
its text and the line of the app's own code that raised it.
"""

from __future__ import annotations

import ast
import os
import sys
import traceback
from pathlib import Path

from ..errors import ConfigurationError, UsageError

__all__ = ["AppImportError", "checked_app_file", "import_failure", "serving_keywords", "skipped_keywords_note"]

PACKAGE_DIR = Path(__file__).resolve().parents[1]


class AppImportError(ConfigurationError):
    """The app file raised while imported. The message is one line (:func:`import_failure`); the
    app's own exception is ``__cause__`` (``start_mcp`` prints its traceback)."""


def checked_app_file(path: str | os.PathLike[str]) -> Path:
    """``path`` resolved, once it names a file Python imports (a ``.py`` file).

    Raises:
        UsageError: ``path`` is a directory (naming its ``start_mcp.py`` when it has one), a
            notebook (naming ``nanohubmcp export`` and ``nanohubmcp sim2l``), a ``.xml`` file
            (naming ``nanohubmcp rappture``) or another file that is not Python.
        ConfigurationError: nothing is at ``path``.
    """
    shown = os.fspath(path)
    file = Path(path).resolve()
    if file.is_dir():
        if (file / "start_mcp.py").is_file():
            raise UsageError(f"{shown} is a directory: give the app's Python file "
                             f"({os.path.join(shown, 'start_mcp.py')}?)")
        raise UsageError(f"{shown} is a directory: give the app's Python file, the .py that defines "
                         "`server = MCPServer(...)`")
    if not file.is_file():
        raise ConfigurationError(f"app file {shown!r} does not exist")
    if file.suffix == ".ipynb":
        script = os.path.join(os.path.dirname(shown), "start_mcp.py")
        raise UsageError(f"{shown} is a notebook: export it to a script first (nanohubmcp export {shown} writes "
                         f"{script}; give that), or serve a Sim2L notebook with nanohubmcp sim2l {shown}")
    if file.suffix == ".xml":
        raise UsageError(f"{shown} is not a Python file: serve a Rappture tool.xml with nanohubmcp rappture {shown}")
    if file.suffix != ".py":
        raise UsageError(f"{shown} is not a Python file: give the app's .py file")
    return file


def import_failure(file: Path, exc: BaseException, shown: str) -> str:
    """One line for ``exc``, raised while ``file`` was imported: its type and first line of text,
    where (the file and line of the app's own code: the deepest frame in ``file``'s folder outside
    this package; for a ``SyntaxError``, its own), a hint for a module not installed, and the command
    that shows the whole traceback (``shown`` is the path as the user gave it)."""
    if isinstance(exc, SyntaxError):
        text, where = exc.msg, _place(file, exc.filename, exc.lineno)
    else:
        text, where = str(exc), None
        for frame in reversed(traceback.extract_tb(exc.__traceback__)):
            where = _place(file, frame.filename, frame.lineno)
            if where is not None:
                break
    line = text.strip().splitlines()[0] if text.strip() else ""
    details = [where] if where else []
    if isinstance(exc, ModuleNotFoundError):
        details.append(f"is it installed for {sys.executable}?")
    head = f"{type(exc).__name__}: {line}" if line else type(exc).__name__
    place = f" ({'; '.join(details)})" if details else ""
    return f"importing {file.name} failed: {head}{place}; python {shown} shows the traceback"


def _place(file: Path, filename: str | None, lineno: int | None) -> str | None:
    """``"helper.py, line 3"`` for a frame in the app's folder (not this package's), else None."""
    if not filename or filename.startswith("<"):
        return None
    where = Path(filename).resolve()
    if not where.is_relative_to(file.parent) or where.is_relative_to(PACKAGE_DIR):
        return None
    return f"{where.relative_to(file.parent)}, line {lineno}"


def serving_keywords(file: Path) -> dict[str, int]:
    """The keyword arguments the app file passes to ``server.run(...)`` / ``server.start(...)``, each with
    the line of its call, read from the source without running it (guarded by ``if __name__ ==
    "__main__":`` or not). A command that serves the file's ``server`` itself does not make that call,
    so it can say which of them it leaves out. Arguments it cannot name are keyed :data:`UNREAD`
    (``**options``, or a value passed by position). Empty when the file cannot be read or parsed.
    """
    try:
        tree = ast.parse(file.read_text(encoding="utf-8", errors="replace"), filename=str(file))
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("run", "start")
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "server"):
            for keyword in node.keywords:
                if keyword.arg is None and _exported_options(keyword.value):
                    continue  # an exported script's own command line (host, port, transport, token)
                found.setdefault(keyword.arg if keyword.arg is not None else UNREAD, node.lineno)
            if node.args:
                found.setdefault(UNREAD, node.lineno)
    return found


def _exported_options(value: ast.expr) -> bool:
    """``**_command_line_options()``: what an exported notebook's script passes from its own command line,
    which the commands give by their own options; not an argument left out."""
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id == "_command_line_options")


UNREAD = "*"
""":func:`serving_keywords`' key for arguments the source does not name (``**options``, by position)."""


_UNNAMED = ("port", "quiet")
"""Keywords no note names: the banner shows the port served; ``quiet`` changes nothing served."""
_FROM_VARIABLES = ("public_url", "path_prefix", "allowed_origins", "token")
"""Keywords whose options default to an ``MCP_*`` environment variable."""


def skipped_keywords_note(file: Path, command: str, options: dict[str, str], given: set[str]) -> str | None:
    """The note saying which keywords of ``file``'s ``server.run(...)`` call ``command`` leaves out (it
    serves the server itself), with the options that give them (``options``: keyword -> option), leaving
    out those the command line gives (``given``) and port/quiet; None when it leaves out none.
    """
    left = {k: line for k, line in serving_keywords(file).items() if k not in given and k not in _UNNAMED}
    unread = left.pop(UNREAD, None)
    if not left:
        if unread is None:
            return None
        return (f"{file.name} passes arguments to server.run() that this note cannot name (line {unread}: by position "
                f"or **options); {command} serves the server itself and does not make that call: give the options "
                "for those that must apply (see --help)")
    names = ", ".join(f"{k}=" for k in left) + (" and arguments it cannot name (by position or **)" if unread else "")
    note = (f"{file.name} passes {names} to server.run() (line {min(left.values())}); {command} serves the server "
            "itself and does not make that call")
    with_option = [options[k] for k in left if k in options]
    if with_option:
        variables = " (or the MCP_* variables they default to)" if any(k in _FROM_VARIABLES for k in left) else ""
        note += f": give {', '.join(with_option)}{variables} for them to apply"
    without = [f"{k}=" for k in left if k not in options]
    if without:
        note += f"{'; it has no option for ' if with_option else ', and has no option for '}{', '.join(without)}"
    return note
