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

import os
import sys
import traceback
from pathlib import Path

from ..errors import ConfigurationError, UsageError

__all__ = ["AppImportError", "checked_app_file", "import_failure", "refuse_object_form"]

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
        ConfigurationError: nothing is at ``path`` (a relative one is said with the working directory it was
            looked for in).
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
        refuse_object_form(shown)
        # A desktop client starts the server in a directory of its own (often /): say which one was searched.
        where = "" if os.path.isabs(shown) else (
            f" (relative to {os.getcwd()}, the working directory: give an absolute path)")
        raise ConfigurationError(f"app file {shown!r} does not exist{where}")
    if file.suffix == ".ipynb":
        script = os.path.join(os.path.dirname(shown), "start_mcp.py")
        raise UsageError(f"{shown} is a notebook: export it to a script first (nanohubmcp export {shown} writes "
                         f"{script}; give that), or serve a Sim2L notebook with nanohubmcp sim2l {shown}")
    if file.suffix == ".xml":
        raise UsageError(f"{shown} is not a Python file: serve a Rappture tool.xml with nanohubmcp rappture {shown}")
    if file.suffix != ".py":
        raise UsageError(f"{shown} is not a Python file: give the app's .py file")
    return file


def refuse_object_form(shown: str) -> None:
    """Refuse ``FILE.py:OBJECT`` (uvicorn's and fastmcp's form), which names no file, saying how to serve an
    object not named ``server``: nanohubmcp serves a file's module-level ``server``.

    Raises:
        UsageError: ``shown`` is ``FILE.py:OBJECT`` and ``FILE.py`` is a file.
    """
    file, colon, name = shown.rpartition(":")
    if colon and name.isidentifier() and file.endswith(".py") and Path(file).is_file():
        fix = f"give {file}" if name == "server" else f"add `server = {name}` to it and give {file}"
        raise UsageError(f"{shown}: there is no FILE:OBJECT form; nanohubmcp serves the module-level `server` of "
                         f"{file}: {fix}")


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
