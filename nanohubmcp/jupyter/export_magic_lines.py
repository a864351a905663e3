"""The ``%magic`` and ``!cmd`` lines of kept code, each as script code, a comment, or a refusal.

IPython's input transformer turns such a line into a call, ``get_ipython().run_line_magic(NAME, LINE)``,
``.system(CMD)`` or ``.getoutput(CMD)``; :class:`MagicLines` says what the statement holding one becomes:

- at a cell's top level (:meth:`MagicLines.at_top`): the package's own lines are applied —
  ``%config NanohubMCP.<setting> = <literal>`` goes to :mod:`.export_settings`, ``%load_ext nanohubmcp`` is not
  needed, ``%mcp remove`` / ``%mcp rappture`` / ``%mcp sim2l`` go to :mod:`.export_registrations` — and
  ``%automagic`` is followed (on, off, else a toggle, as IPython's magic reads its line); every other magic is
  what :mod:`.script_magics` says (``%env NAME=value`` -> ``os.environ``, ``%run`` refused, ...); a shell
  escape is dropped with a comment. One of the package's lines inside a block (``if``, ``for``...) is refused:
  the export would apply it whether or not the block ran it.
- in a function's body (:meth:`MagicLines.in_function`): what :mod:`.script_magics` translates to code, else
  refused (dropped, it would change what the function does when called).

Finding these statements in a cell is :mod:`.export_statements`'.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from .export_outcomes import Code, Cursor, Untranslatable
from .export_registrations import Registrations
from .export_settings import ExportSettings, SettingRefused
from .script_magics import line_magic
from .script_text import shorten
from .source_lines import KINDS as SOURCE_KINDS
from .source_lines import parse_source_line

__all__ = ["MagicLines"]


class MagicLines:
    """The replacements of a notebook's IPython lines, cell after cell (``%automagic`` holds until changed).

    Args:
        cursor: the cell being translated (its drop notes, its refusals).
        settings: where ``%config NanohubMCP`` lines go.
        registrations: where ``%mcp remove`` / ``rappture`` / ``sim2l`` lines go.
        transform: IPython's ``TransformerManager.transform_cell``, for ``%time``'s statement.
    """

    def __init__(self, cursor: Cursor, settings: ExportSettings, registrations: Registrations,
                 transform: Callable[[str], str]) -> None:
        self._cursor = cursor
        self._settings = settings
        self._registrations = registrations
        self._transform = transform
        self.automagic = True
        """Whether IPython's automagic is on (its default), as the notebook's ``%automagic`` lines set it."""

    def at_top(self, call: ast.Call, *, nested: bool = False) -> str:
        """The replacement of the statement ``call`` (``get_ipython().<method>(...)``) outside any function;
        ``nested``: inside a block. Returns :class:`.export_outcomes.Code` or a comment's text.

        Raises:
            Untranslatable: naming the line (a refused magic, a refused ``%config`` value, a line of the
                package's own inside a block).
        """
        method = call.func.attr  # type: ignore[attr-defined]
        args = [a.value if isinstance(a, ast.Constant) else None for a in call.args]
        if method == "run_line_magic" and len(args) >= 2 and isinstance(args[0], str):
            given = str(args[1] or "")  # as IPython passes it to the magic
            replacement = self._line_magic(call, args[0], given, nested)
            if replacement is not None:
                return replacement
            what = f"%{args[0]} {given}".rstrip()
        elif method in ("system", "getoutput") and args and isinstance(args[0], str):
            what = ("!" if method == "system" else "!!") + args[0]
        else:
            what = ast.unparse(call)
        self._cursor.drop(shorten(what))
        return f"dropped (IPython only): {shorten(what)}"

    def in_function(self, call: ast.Call) -> str:
        """A magic or ``!cmd`` line in a function's body: dropping it would change what the function does
        when called, so ``%env NAME=value`` becomes ``os.environ["NAME"] = "value"`` (any magic
        :mod:`.script_magics` translates to code) and anything else is refused, naming the line.

        Raises:
            Untranslatable: the line is not translated.
        """
        method = call.func.attr  # type: ignore[attr-defined]
        args = [a.value if isinstance(a, ast.Constant) else None for a in call.args]
        if method == "run_line_magic" and len(args) >= 2 and isinstance(args[0], str):
            line = str(args[1] or "")  # as IPython passes it: %env reads a leading space
            handling = line_magic(args[0], line, transform=self._transform)
            if handling.kind == "code":  # %env, %time, %cd: what IPython does, in Python
                return Code(handling.text)
            what = f"%{args[0]} {line.strip()}".rstrip()
        else:
            what = ("!" if method == "system" else "!!") + str(args[0]) if method in ("system", "getoutput") \
                else ast.unparse(call)
        raise self._cursor.error(call, f"runs IPython syntax inside a function ({shorten(what)}), which a script "
                                 "cannot run: the function would do without it when called; rewrite it in Python "
                                 "(os.environ[NAME] = VALUE for %env, subprocess.run([...]) for !cmd) or tag the "
                                 "cell mcp-skip")

    def _line_magic(self, call: ast.Call, name: str, given: str, nested: bool) -> str | None:
        """``%<name> <given>`` at a cell's top level; None: dropped as IPython only (:meth:`at_top` says so)."""
        what = f"%{name} {given}".rstrip()
        line = given.strip()
        if name == "automagic":  # as IPython's %automagic reads its line: on, off, else a toggle
            on, off = given.lower() in ("on", "1", "true"), given.lower() in ("off", "0", "false")
            self.automagic = on or (not off and not self.automagic)
        if name == "config" and re.match(r"NanohubMCP\b", line):
            return self._config(call, what, line, nested)
        if name == "load_ext" and line == "nanohubmcp":
            return f"{what}: not needed, the script imports nanohubmcp"
        if name == "mcp":
            return self._mcp(call, what, line, nested)
        handling = line_magic(name, given, transform=self._transform)
        if handling.kind == "code":
            return Code(handling.text)
        if handling.kind == "refuse":
            raise self._cursor.error(call, handling.text)
        if handling.text == "IPython only":
            return None
        self._cursor.drop(f"{shorten(what)} ({handling.text})")
        return f"dropped ({handling.text}): {shorten(what)}"

    def _config(self, call: ast.Call, what: str, line: str, nested: bool) -> str:
        """``%config NanohubMCP...``: a setting placed in the script, or a line that only displays them."""
        if nested:
            raise self._nested(call, what)
        try:
            placed = self._settings.apply(line)
        except SettingRefused as exc:  # name the line refused, not only the cell's first
            raise self._cursor.error(call, str(exc)) from None
        if placed is None:
            self._cursor.drop(f"%config {line}")
            return f"{shorten(what)}: dropped (it only displays the settings)"
        note, shown = placed
        if shown:  # a token never shown, a state URL's password as ***
            what = f"%config {shown}"
        return f"{shorten(what)}: {note}"

    def _mcp(self, call: ast.Call, what: str, line: str, nested: bool) -> str | None:
        """``%mcp remove NAME``, ``%mcp rappture PATH ...``, ``%mcp sim2l PATH ...``; None for another ``%mcp``
        line (the notebook's session only)."""
        kind, _, rest = line.partition(" ")
        if not ((kind == "remove" and rest.strip()) or kind in SOURCE_KINDS):
            return None
        if nested:
            raise self._nested(call, what)
        if kind == "remove":
            return self._registrations.remove(shorten(what), rest.strip())
        try:
            parsed = parse_source_line(kind, rest)
        except ValueError as exc:
            raise self._cursor.error(call, str(exc)) from None
        self._registrations.add_source(kind, parsed.path)
        return Code(parsed.code())

    def _nested(self, call: ast.Call, what: str) -> Untranslatable:
        return self._cursor.error(call, f"runs {shorten(what)} inside a block (if, for, with, try): the export "
                                  "applies it whether or not the block would run it; move it to the top level of "
                                  "a cell")
