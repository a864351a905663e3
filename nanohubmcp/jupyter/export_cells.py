"""A notebook's code cells, one after another, as the blocks of its exported script; each cell by its kind.

- a plain cell: its code (:mod:`.export_statements`); a one-line cell IPython runs as a magic without its
  ``%`` (automagic, :mod:`.automagic`) is that magic, while the notebook's ``%automagic`` lines leave it on;
  a cell reading the notebook's running server (``%mcp`` as a value, a check of its tools) is left out whole;
- a ``%%mcp_tool`` / ``%%mcp_resource`` / ``%%mcp_prompt`` cell: its code, with the decorator registering the
  function the magic picks (:mod:`.cellspec` reads the magic's line, as the live magic does);
- a ``%%mcp_view URI`` cell: its code, its last expression passed to ``server.add_app_view``;
- a ``%%time`` / ``%%capture`` / ``%%prun`` cell: its body's code (:data:`.script_magics.CELL_KEEPS_BODY`);
  a ``%%capture [options]`` line above a ``%%mcp_*`` cell magic (a Voilà app hiding the server's status): that
  component's cell, as without the capture;
- any other cell magic: a comment; the names it bound stay unbound (:mod:`.export_bindings`).

:class:`Cells` composes the parts and holds what the whole notebook adds up to: the blocks, the ``%config``
settings, the ``__future__`` imports, what is registered, what was dropped. The notebook around the cells
(which cells, the file around the blocks) is :mod:`.translate`'s.
"""

from __future__ import annotations

import ast
from typing import Any

from ..protocol import ast_guard
from . import cellspec
from .automagic import automagic_call
from .cellsource import uncalled_function
from .export_bindings import Bindings
from .export_magic_lines import MagicLines
from .export_outcomes import Cursor, ReadsServer, TopLevelAwait, Untranslatable
from .export_registrations import Registrations, check_tool
from .export_settings import ExportSettings
from .export_statements import Statements
from .notebook_cells import RUNS_ITS_BODY, SKIP_TAG, bound_names, cell_magic, leading_blank_lines, magic_bound_names
from .script_magics import CELL_KEEPS_BODY
from .script_text import call_arguments, code_lines, literal, shorten

__all__ = ["Cells"]

_COMPONENTS = {"mcp_tool": "tool", "mcp_resource": "resource", "mcp_prompt": "prompt"}


class Cells:
    """Translates code cells, in the notebook's order, into :attr:`blocks` (one per cell)."""

    def __init__(self) -> None:
        from IPython.core.inputtransformer2 import TransformerManager

        self._transform = TransformerManager().transform_cell
        self.cursor = Cursor()
        self.blocks: list[str] = []
        self.settings = ExportSettings()
        self.futures: list[str] = []
        """``from __future__`` names the cells import, moved to the top of the script."""
        self.registrations = Registrations(self.blocks, self.cursor)
        self._bindings = Bindings()
        self._magic_lines = MagicLines(self.cursor, self.settings, self.registrations, self._transform)
        self._statements = Statements(self.cursor, self._magic_lines, self._bindings, self.futures)

    def add(self, number: int, text: str) -> None:
        """Translate cell ``number`` (its source ``text``), adding its block.

        Raises:
            Untranslatable, SettingRefused, RegistrationError: what is wrong with the cell
                (:func:`.translate.translate` names the cell).
        """
        self.cursor.number = number
        code = self._transform(text)
        # a one-line cell IPython runs as a magic without its %: cd /data is %cd /data, not a division
        if self._magic_lines.automagic:
            code = automagic_call(code, self._bindings.known()) or code
        self.cursor.offset = leading_blank_lines(text)
        magic = cell_magic(code)
        if magic is None:
            self.blocks.append(self._plain(text, code))
        elif magic[0] == "capture" and (captured := self._captured(magic[1], magic[2])) is not None:
            self.blocks.append(captured)
        elif magic[0] in CELL_KEEPS_BODY:
            self.blocks.append(self._keep_body(*magic))
        else:
            self.blocks.append(self._serving(magic) or self._drop_cell_magic(*magic))

    def _serving(self, magic: tuple[str, str, str]) -> str | None:
        """The block of a ``%%mcp_tool`` / ``%%mcp_resource`` / ``%%mcp_prompt`` / ``%%mcp_view`` cell, else None."""
        if magic[0] in _COMPONENTS:
            return self._component(*magic)
        if magic[0] == "mcp_view":
            return self._view(magic[1], magic[2])
        return None

    def _captured(self, line: str, body: str) -> str | None:
        """A ``%%capture [options]`` cell whose next line is ``%%mcp_tool`` (or another component's magic: how a
        Voilà app hides the server's status): that component's block, as without the capture, ``%%capture
        NAME``'s NAME left unbound (refused if used later); None for any other ``%%capture`` cell."""
        inner = cell_magic(self._transform(body))
        if inner is None or not (inner[0] in _COMPONENTS or inner[0] == "mcp_view"):
            return None
        self.cursor.offset += 1 + leading_blank_lines(body)
        certain, _ = magic_bound_names("capture", line)
        self._bindings.leave_unbound(certain, self.cursor.number,
                                     "a %%capture cell, whose capture the script drops", left_out=False)
        what = shorten(f"%%capture {line}".rstrip())
        return f"# {what}: the cell's {inner[0][4:]} is served, without the capture\n{self._serving(inner)}"

    def _plain(self, text: str, code: str) -> str:
        try:
            return self._statements.script_code(code)
        except TopLevelAwait as exc:  # (notebook.md: a check of an async tool awaits; its cell is to be tagged)
            raise Untranslatable(f"{exc}; or, a check of the notebook's tools, tag the cell {SKIP_TAG} "
                                 "(the export leaves it out)") from None
        except ReadsServer:
            first = shorten(next(line for line in text.splitlines() if line.strip()).strip())
            self.cursor.drop(f"{first} (the cell reads the notebook's running server: a check, left out)")
            what = "a cell reading the notebook's running server (%mcp as a value) that the script leaves out"
            self._bindings.leave_unbound((name for s in ast_guard.parse(code).body for name in bound_names(s)),
                                         self.cursor.number, what, left_out=True)
            return (f"# cell {self.cursor.number} left out: it reads the notebook's running server (%mcp used as "
                    f"a value, a check of its tools): {first}")

    def _drop_cell_magic(self, magic: str, line: str, body: str) -> str:
        """Leave a ``%%magic`` cell out with a comment; remember the names it bound (refused if used later)."""
        what = f"%%{magic} {line}".rstrip()
        why = " (the script does not write the file: keep it with the script)" if magic == "writefile" else ""
        self.cursor.drop(f"{what}{why}")
        certain, likely = magic_bound_names(magic, line)
        if magic in RUNS_ITS_BODY:
            try:
                tree = ast_guard.parse(self._transform(body))
            except SyntaxError:
                tree = ast.Module(body=[], type_ignores=[])
            certain += [name for stmt in tree.body for name in bound_names(stmt)]
        # A word of an unknown magic's line (%%sql x, %%R -i x) may name a value kept code bound: not a binding.
        names = certain + [name for name in likely if name not in self._bindings.kept]
        self._bindings.leave_unbound(names, self.cursor.number,
                                     f"a %%{magic} cell (a cell magic, IPython only) that the script leaves out",
                                     left_out=True)
        return f"# dropped a cell (IPython only): {shorten(what)}{why}"

    def _keep_body(self, magic: str, line: str, body: str) -> str:
        """A ``%%time`` / ``%%capture`` / ``%%prun`` cell: its body runs, as in the notebook (without the
        timing, capture or profile); ``%%capture NAME``'s NAME stays unbound (refused if used later)."""
        what = shorten(f"%%{magic} {line}".rstrip())
        self.cursor.offset += 1 + leading_blank_lines(body)
        code = self._statements.script_code(self._transform(body))
        certain, _ = magic_bound_names(magic, line)
        self._bindings.leave_unbound(certain, self.cursor.number,
                                     f"a %%{magic} cell, whose capture the script drops", left_out=False)
        return f"# {what}: the cell's code runs, without the {magic} magic\n{code}"

    def _component(self, magic: str, line: str, body: str) -> str:
        """A ``%%mcp_tool`` / ``%%mcp_resource`` / ``%%mcp_prompt`` cell: its code, the decorator above the
        function the magic registers."""
        kind = _COMPONENTS[magic]
        spec: Any = getattr(cellspec, f"parse_{kind}_line")(line)
        self.cursor.offset += 1 + leading_blank_lines(body)
        code = self._statements.script_code(self._transform(body))
        info, _ = cellspec.pick_function(code, spec.name, kind=kind)
        options = call_arguments([spec.uri] if kind == "resource" else [], spec.registration_options())
        method = "async_tool" if kind == "tool" and spec.background else kind
        decorator = f"@server.{method}({options})"
        if kind == "tool" and spec.main:
            decorator += "  # --main (the kernel's thread) applies in notebooks only"
        key = spec.uri if kind == "resource" else spec.name or info.name
        if kind == "tool":  # the script would stop at import, where registration refuses these
            check_tool(key, spec, self.settings.values.get("job_executor"), uncalled_function(code, info))
        self.registrations.register(kind, key, decorator)
        lines = code_lines(code)
        lines.insert(info.lineno - 1, decorator)
        return "\n".join(lines)

    def _view(self, line: str, body: str) -> str:
        """A ``%%mcp_view`` cell: its code, its last expression passed to ``server.add_app_view``."""
        spec = cellspec.parse_view_line(line)
        self.cursor.offset += 1 + leading_blank_lines(body)
        code = self._transform(body)
        try:
            before, last = cellspec.split_last_expression(code)
        except SyntaxError:
            return self._statements.script_code(code)  # raises, naming the line
        if last is None:
            raise Untranslatable("a %%mcp_view cell must end with the view's HTML (an expression)")
        options = call_arguments([], spec.registration_options())
        self.registrations.add_view(spec.uri)
        arguments = ", ".join(part for part in (literal(spec.uri), last, options) if part)
        return self._statements.script_code(f"{before}server.add_app_view({arguments})")
