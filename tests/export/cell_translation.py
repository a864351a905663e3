"""Code cells translated in process, as ``nanohubmcp export`` translates a notebook (nothing written or run): the
script, or the message of the refusal. The notebook is named ``nb.ipynb`` (what a refusal's "nb.ipynb, cell N"
names), its code is not formatted, and one that serves nothing is refused."""

from __future__ import annotations

import nbformat
import pytest

from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import Script, translate


def translated(*cells: str) -> Script:
    """The script of a notebook of the code ``cells`` (raises what ``translate`` raises)."""
    made = nbformat.v4.new_notebook()
    made.cells = [nbformat.v4.new_code_cell(cell) for cell in cells]
    return translate(made, source="nb.ipynb", format_code=False, refuse_empty=True)


def refusal(*cells: str) -> str:
    """The message of the ``NanohubMCPError`` translating the code ``cells`` raises (the test fails if none)."""
    with pytest.raises(NanohubMCPError) as caught:
        translated(*cells)
    return str(caught.value)
