"""What each IPython magic of a notebook becomes in its exported ``start_mcp.py``.

One table, :func:`line_magic` for ``%magic line`` and :data:`CELL_KEEPS_BODY` for the ``%%magic`` cells
whose body runs as code; the export applies it wherever the line stands (a cell's top level, a block, a
function's body: :mod:`.export_magic_lines`; a cell: :mod:`.export_cells`). A magic is *translated* when
plain Python does what IPython does, *dropped* with a comment when it only shows, times, installs or edits
the notebook's session, and *refused* when it sets state or binds names the script cannot reproduce — never
dropped silently when later code may rely on it:

=====================================  ===================================================================
``%env NAME=value``, ``%set_env``      ``os.environ["NAME"] = "value"``, split as IPython splits it (refused
                                       with ``$x``/``{x}``, which IPython expands, and where IPython refuses
                                       the line: ``%env B x=y``, ``%env =x``); ``%env`` / ``%env NAME`` only
                                       show: dropped
``%time STATEMENT``                    ``STATEMENT`` (it runs once, as in the notebook; the timing is not shown)
``%timeit STATEMENT``                  dropped: IPython runs it many times inside a function of its own,
                                       so it binds nothing in the notebook
``%cd PATH``                           ``os.chdir(os.path.expanduser(PATH))``; ``%cd`` alone: the home
                                       folder; options, ``-`` and bookmarks are refused
``%run``, ``%store -r``                refused: they bind names from a file or IPython's store
``%store NAME``, ``%pip``, ``%conda``  dropped (they save or install; install the packages with the script)
``%matplotlib``, ``%load_ext``,        dropped (the notebook's session only)
``%autoreload``, ``%aimport``, others
=====================================  ===================================================================

``%config NanohubMCP``, ``%load_ext nanohubmcp`` and ``%mcp`` lines are :mod:`.export_magic_lines`' own.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .script_text import literal, shorten

__all__ = ["CELL_KEEPS_BODY", "MagicHandling", "line_magic"]

CELL_KEEPS_BODY = frozenset({"time", "capture", "prun"})
"""Cell magics whose body runs once in the notebook's namespace: the script runs the body (without the timing,
the capture or the profile); ``%%capture NAME``'s NAME stays unbound, so a later use of it is refused."""


@dataclass(frozen=True)
class MagicHandling:
    """What one magic line becomes.

    Attributes:
        kind: "code" (``text`` is the Python statement to write, one line or more, unindented),
            "drop" (``text`` is why it is left out) or "refuse" (``text`` is why it cannot be exported).
    """

    kind: Literal["code", "drop", "refuse"]
    text: str


def line_magic(name: str, line: str, *, transform: Callable[[str], str] | None = None) -> MagicHandling:
    """What ``%<name> <line>`` becomes in the script (``line`` as IPython passes it to the magic: a space
    after the one ending the magic's name is part of it, which ``%env`` reads).

    Args:
        transform: IPython's ``TransformerManager.transform_cell`` (or any str -> str), applied to
            ``%time``'s statement as IPython applies it; None keeps the statement as written.
    """
    if name in ("env", "set_env"):
        return _env(name, line)
    line = line.strip()
    what = shorten(f"%{name} {line}".rstrip())
    if name == "time":
        return _time(line, what, transform)
    if name == "timeit":
        return MagicHandling("drop", "IPython runs it many times inside a function of its own: it binds nothing")
    if name == "cd":
        return _cd(line)
    if name == "run":
        return MagicHandling("refuse", f"runs a file in the notebook's namespace ({what}), which the export does "
                             "not translate: import what the cells need from it in Python, or tag the cell mcp-skip")
    if name == "store" and "-r" in line.split():
        return MagicHandling("refuse", f"restores names from IPython's store ({what}), which a script cannot "
                             "read: load them in Python (json, pickle, a file), or tag the cell mcp-skip")
    return MagicHandling("drop", "IPython only")


def _env(name: str, line: str) -> MagicHandling:
    """IPython's ``OSMagics.env`` and ``OSMagics.set_env`` (IPython 9), step by step: the line splits at its
    first '=' when it has one, else at its first ' '; the name and the value are the halves, stripped."""
    what = shorten(f"%{name} {line}".rstrip())
    split = "=" if "=" in line else " "
    if name == "env" and (not line.strip() or len(line.split(split)) == 1):
        return MagicHandling("drop", "it only shows the environment")  # `%env` lists it, `%env NAME` shows one
    if re.search(r"[${}]", line):  # IPython expands $x and {x} from the notebook's names first
        return MagicHandling("refuse", f"sets an environment variable from notebook names ({what}), which the "
                             "export does not expand: write os.environ[NAME] = VALUE in Python")
    halves = line.split(split, 1)
    if len(halves) < 2 or not line.strip():
        return _unset(what, "it needs a name and a value: %set_env NAME=VALUE")
    variable, value = halves[0].strip(), halves[1].strip()
    if re.search(r"\s", variable):
        return _unset(what, f"it splits {line!r} at its first {split!r}, and the name {variable!r} has whitespace")
    if not variable:
        return _unset(what, f"it splits {line!r} at its first {split!r}, and the name is empty")
    if "\0" in line:
        return _unset(what, "the line holds a NUL character")
    return MagicHandling("code", f"import os; os.environ[{literal(variable)}] = {literal(value)}  # %{name} {line}")


def _unset(what: str, why: str) -> MagicHandling:
    return MagicHandling("refuse", f"sets an environment variable that IPython refuses to set ({what}: {why}), so "
                         "the notebook's cell stopped at it: fix the line (or write os.environ[NAME] = VALUE in "
                         "Python), or tag the cell mcp-skip")


def _time(line: str, what: str, transform: Callable[[str], str] | None) -> MagicHandling:
    if not line:
        return MagicHandling("drop", "IPython only")
    statement = transform(line) if transform else line
    try:
        compile(statement, "<%time>", "exec", dont_inherit=True)
    except SyntaxError:
        statement = ""
    if not statement.strip() or "get_ipython()" in statement:
        return MagicHandling("refuse", f"times IPython syntax ({what}), which a script cannot run: rewrite the "
                             "statement in Python, or tag the cell mcp-skip")
    return MagicHandling("code", f"{statement.rstrip()}  # {what} (run without the timing)")


def _cd(line: str) -> MagicHandling:
    try:
        words = shlex.split(line)
    except ValueError:
        words = ["-"]
    if len(words) > 1 or any(word.startswith("-") or re.search(r"[${}]", word) for word in words):
        return MagicHandling("refuse", f"changes the working folder in a way the export does not translate "
                             f"(%cd {shorten(line)}: options, bookmarks, history or $names): write "
                             "os.chdir(PATH) in Python")
    path = words[0] if words else "~"
    return MagicHandling("code", f"import os; os.chdir(os.path.expanduser({literal(path)}))  # %cd {line}".rstrip())
