"""Names the exported script leaves unbound though the notebook bound them: a kept cell reading one is refused.

A cell the script leaves out (one reading the notebook's running server, a dropped cell magic such as
``%%yaml OUTPUTS`` or ``%%bash --out listing``) or whose capture it drops (``%%capture out``) bound names in
the notebook that the script never binds. A later kept cell reading one would stop the script with a
NameError, so the export refuses it, naming the cell that bound the name. A name a kept cell binds at its top
level is the script's again.

Which names a cell binds is :mod:`.notebook_cells`' (``bound_names``, ``magic_bound_names``); which cells
are left out is :mod:`.export_cells`'.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from .export_outcomes import Cursor
from .notebook_cells import bound_names

__all__ = ["Bindings"]


class Bindings:
    """The names of the script's top level so far, and those only a left-out cell bound."""

    def __init__(self) -> None:
        self.kept: set[str] = set()
        """The names the kept cells bind at their top level."""
        self._unbound: dict[str, tuple[int, str, bool]] = {}
        """Name -> the cell that last bound it in a way the script does not, what that cell is, and whether the
        script leaves the cell out or keeps its code (a ``%%capture NAME`` cell, whose capture it drops)."""

    def known(self) -> set[str]:
        """Every name a cell bound so far, kept or not: a word IPython would not run as an automagic."""
        return self.kept | self._unbound.keys()

    def leave_unbound(self, names: Iterable[str], number: int, what: str, *, left_out: bool) -> None:
        """Note that cell ``number`` (``what`` it is, for the refusal) bound ``names`` in a way the script does
        not; ``left_out``: the script leaves the whole cell out (else it keeps the cell's code)."""
        self._unbound.update((name, (number, what, left_out)) for name in names)

    def check(self, tree: ast.Module, cursor: Cursor) -> None:
        """Refuse the first name ``tree`` (a kept cell's code) reads whose only binding the script lacks; a name
        the cell binds itself is no longer unbound, and its top-level names become :attr:`kept`.

        Raises:
            Untranslatable: ``"line N uses 'x', which only cell M binds, ..."``.
        """
        bound = {name for stmt in tree.body for name in bound_names(stmt)}
        for node in sorted(ast.walk(tree), key=lambda n: getattr(n, "lineno", 0)):
            if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in self._unbound
                    and node.id not in bound):
                number, what, left_out = self._unbound[node.id]
                where = " in a cell the script keeps" if left_out else ""
                raise cursor.error(node, f"uses {node.id!r}, which only cell {number} binds, {what}: bind "
                                   f"{node.id!r} in plain Python{where}, or tag this cell mcp-skip too")
        for name in bound:
            self._unbound.pop(name, None)
        self.kept |= bound
