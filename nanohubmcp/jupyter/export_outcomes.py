"""What translating one statement of a cell can come to, shared by the parts of the export (:mod:`.translate`).

A statement a script cannot run as it is gets a replacement: :class:`Code` (script code, ``%env NAME=value``
-> ``os.environ["NAME"] = "value"``) or a plain ``str`` (the text of a comment saying what was dropped). A
statement that cannot become script code raises :class:`Untranslatable` (the cell is refused, :func:`.translate`
names it) or :class:`ReadsServer` (the cell is left out whole). :class:`Cursor` is where the translation is
(the cell, the lines before the code being checked) and what it dropped so far.

No rule lives here: the modules that return and raise these own them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

__all__ = ["Code", "Cursor", "ReadsServer", "TopLevelAwait", "Untranslatable"]


class Code(str):
    """A replacement that is code for the script (``%mcp rappture PATH`` -> ``server.add_rappture_tool``),
    not a comment."""

    __slots__ = ()


class Untranslatable(Exception):
    """Why a cell cannot become script code, naming the line where one is known (:func:`.translate` adds
    which cell)."""


class TopLevelAwait(Untranslatable):
    """The code awaits outside a function (a check of an async tool: ``await current().server.call_async(...)``);
    a plain cell's refusal adds that tagging it ``mcp-skip`` leaves it out (:mod:`.export_cells`)."""


class ReadsServer(Exception):
    """The cell uses ``%mcp ...`` as a value (it reads the notebook's running server, a check of its tools):
    the script leaves it out whole."""


@dataclass
class Cursor:
    """The cell being translated and the notes of what the translation dropped."""

    number: int = 0
    """The cell, counted from 1 (markdown cells included)."""
    offset: int = 0
    """Lines before the code being checked that IPython stripped (a magic line, blank lines), for messages."""
    dropped: list[str] = field(default_factory=list)
    """One line per dropped item, ``"cell 3: %matplotlib inline"`` (:attr:`.translate.Script.dropped`)."""

    def drop(self, what: str) -> None:
        """Note that the current cell's ``what`` is left out of the script."""
        self.dropped.append(f"cell {self.number}: {what}")

    def error(self, node: ast.AST, text: str) -> Untranslatable:
        """The refusal of ``node`` (a statement or expression of the code being checked), naming its line in
        the cell: ``"line 3 <text>"``."""
        return Untranslatable(f"line {getattr(node, 'lineno', 1) + self.offset} {text}")
