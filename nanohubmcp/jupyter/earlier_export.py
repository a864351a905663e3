"""Whether an export may write over the file already where it writes: only over an earlier export of the
same notebook.

``nanohubmcp export`` and ``jupyter nbconvert --to mcp`` keep a hand-written ``start_mcp.py`` (the name
nanoHUB tools give their own server) and the export of another notebook — two notebooks exported in one
folder, or ``nbconvert --to mcp A.ipynb B.ipynb --output-dir out``, where both would be ``out/start_mcp.py``:
each refuses in one line (its own, naming its options) unless forced. A notebook is known by its file name,
which the script's header gives (``An MCP server exported from the Jupyter notebook PATH.``).
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from .script_frame import EXPORT_MARKER

__all__ = ["Refusal", "exported_notebook", "looks_exported", "refusal"]

_HEAD = 4000
"""How much of a file is read for its header."""
_FROM = re.compile(r"An MCP server exported from the Jupyter notebook (.+)\.\nExported: .*" + re.escape(EXPORT_MARKER))


def looks_exported(text: str) -> bool:
    """True when ``text`` starts like a script an export wrote (so replacing it loses nothing of the user's)."""
    return re.search(r"Exported: .*" + re.escape(EXPORT_MARKER), text[:_HEAD]) is not None


def exported_notebook(text: str) -> str | None:
    """The file name of the notebook an exported script's header names (``"analysis.ipynb"``, without its
    folder), or None when ``text`` is no export."""
    found = _FROM.search(text[:_HEAD])
    if found is None:
        return None
    path = found.group(1).replace('\\"', '"').replace("\\\\", "\\")  # as the header escapes it
    return re.split(r"[/\\]", path)[-1]


class Refusal(NamedTuple):
    """Why an export must not replace the file where it writes (:func:`refusal`)."""

    reason: str
    """Said after the file's name: ``"exists and is not an earlier export"``, ``"is the export of A.ipynb, not
    of B.ipynb"``."""
    other_notebook: bool
    """The file is another notebook's export (so another output name is the likely way out)."""


def refusal(text: str, notebook: str) -> Refusal | None:
    """Why the export of ``notebook`` (its path) must not replace a file holding ``text``; None when the
    file is an earlier export of the same notebook (or of one its header does not name)."""
    if not looks_exported(text):
        return Refusal("exists and is not an earlier export", other_notebook=False)
    named, mine = exported_notebook(text), os.path.basename(notebook)
    if named is not None and named != mine:
        return Refusal(f"is the export of {named}, not of {mine}", other_notebook=True)
    return None
