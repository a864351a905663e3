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
- A kept cell whose saved outputs hold an error (it failed when the notebook ran it: a ``%%mcp_tool`` cell run
  before ``%load_ext nanohubmcp``, "Cell magic not found") is exported all the same, with a note naming it and
  the error (:attr:`Script.notes`): the script would serve what the notebook never served.
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

This module owns the notebook as a whole (which cells, its language, a notebook serving nothing, the
:class:`Script` summary) and composes the parts, each a module of its own:

- :mod:`.export_cells`: each code cell by its kind (plain code, ``%%mcp_*`` cell, kept or dropped cell
  magic), holding what the cells add up to;
- :mod:`.export_statements`: a cell's code statement by statement (what is replaced, what is refused);
- :mod:`.export_magic_lines`: what each ``%magic`` / ``!cmd`` line becomes (``%config NanohubMCP``,
  ``%automagic``, ``%mcp`` lines; the rest per :mod:`.script_magics`);
- :mod:`.export_registrations`: what the script serves (re-registered and removed names, the checks a
  tool must pass);
- :mod:`.export_bindings`: names only a left-out cell bound;
- :mod:`.export_outcomes`: the replacement and refusal types they share;
- :mod:`.ipython_builtins`: the imports of IPython's builtins (``display``) the kept code reads.
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import NanohubMCPError, RegistrationError
from .earlier_export import looks_exported
from .export_cells import Cells
from .export_outcomes import Untranslatable
from .export_settings import SettingRefused
from .ipython_builtins import builtin_imports
from .notebook_cells import SKIP_TAG, cell_tags, cell_text, doc_from, failed_when_run, looks_like_sim2l, name_from
from .script_frame import EXPORT_MARKER, frame
from .script_text import format_script

__all__ = ["EXPORT_MARKER", "SKIP_TAG", "Script", "looks_exported", "translate"]

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
            (a notebook host other machines reach: the script binds 127.0.0.1; a kept cell whose saved
            outputs show it failed when the notebook ran it, such as a ``%%mcp_tool`` cell run before
            ``%load_ext nanohubmcp``: the script runs it and serves what it defines).
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
    cells = Cells()
    failures: list[str] = []
    sim2l = (f"; the notebook looks like a Sim2L (%%yaml INPUTS/OUTPUTS cells, simtool): serve it as one tool "
             f"with `nanohubmcp sim2l {source}` instead") if looks_like_sim2l(notebook) else ""
    for number, cell in enumerate(notebook.get("cells", []), 1):
        text = cell_text(cell.get("source", ""))
        if cell.get("cell_type") != "code" or SKIP_TAG in cell_tags(cell) or not text.strip():
            continue
        try:
            cells.add(number, text)
        except (Untranslatable, SettingRefused, RegistrationError) as exc:
            first = first_line(text)
            reason = re.sub(r"^%%mcp_\w+: ", "", str(exc))
            raise NanohubMCPError(f"{source}, cell {number} ({first}): {reason}{sim2l}") from None
        failed = failed_when_run(cell)
        if failed is not None:  # the script would run (and serve) what never ran in the notebook: say so
            failures.append(f"cell {number} ({first_line(text)}) failed when the notebook ran it ({failed}), but "
                            f"the script runs it and serves what it defines: fix it and run it again, or tag it "
                            f"{SKIP_TAG} to leave it out")
    served = cells.registrations
    if refuse_empty and not (served.sources or any(served.found.values())):
        raise NanohubMCPError(
            f"{source}: nothing to serve: no %%mcp_tool, %%mcp_resource, %%mcp_prompt or %%mcp_view cell and no "
            f"%mcp rappture or %mcp sim2l line, so the script would serve 0 tools, 0 resources and 0 prompts"
            + (sim2l or "; start the cell of each function to serve with %%mcp_tool"))
    name = cells.settings.values.get("name") or name_from(source)
    output = output or os.path.join(os.path.dirname(source), "start_mcp.py")
    folder = notebook_folder(source, output)
    blocks = [*builtin_imports(cells.blocks), *cells.blocks]
    text = frame(cells.settings, blocks, cells.futures, source=source, file=os.path.basename(output),
                 name=name, doc=doc_from(notebook), day=exported_on or datetime.date.today(), notebook_folder=folder)
    formatter = None
    if format_code:
        text, formatter = format_script(text, output)
    compile(text, source, "exec")  # valid whenever every cell is; a failure here is a bug
    found = served.found
    elsewhere = () if folder == "." else (
        f"{os.path.basename(output)} is not beside the notebook: its cells run in the notebook's folder ({folder} "
        "from the script's), as in the notebook; move the two together, or export beside the notebook",)
    return Script(text, name, tuple(found["tool"]), tuple(found["resource"]), tuple(found["prompt"]),
                  tuple(cells.cursor.dropped), formatter, (*cells.settings.notes(), *elsewhere, *failures),
                  tuple(served.sources), cells.settings.token_required)


def first_line(text: str) -> str:
    """A cell's first non-blank line, cut to 60 characters, to name it in a message."""
    first = next(line for line in text.splitlines() if line.strip()).strip()
    return first if len(first) <= 60 else first[:57] + "..."


def notebook_folder(source: str, output: str) -> str:
    """The folder of the notebook ``source`` relative to that of the script ``output`` (both paths as given,
    relative to the working directory), with ``/`` between folders: ``"."`` when the script is beside it."""
    notebook = os.path.realpath(os.path.dirname(source) or ".")
    try:
        return Path(os.path.relpath(notebook, os.path.realpath(os.path.dirname(output) or "."))).as_posix()
    except ValueError:  # another drive (Windows): no relative path leads there
        return notebook
