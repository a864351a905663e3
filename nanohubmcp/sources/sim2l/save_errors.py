"""A Sim2L run that failed saving an output as a file, said as what happened and what to fix.

simtool's ``DB.save`` checks, inside the notebook, an output saved as a file (``file=``, or a value that is a string
``"file://<path>"``, a ``Text`` argument echoed too): a path that is not there, not a file, absolute or starting with
``..`` raises ``FileNotFoundError`` with one of three messages (``File "<path>" does not exist.``, ``File "<path>"
is not a file.``, ``File must be in the local directory.``), after gluing the output as ``null``. The run then
fails in that cell, and its bare exception does not say that the file must be one of the run.
:func:`save_failure` recognises such a failure (the exception's name, one of the three messages exactly, and
simtool's ``save`` in the traceback: a notebook's own ``FileNotFoundError`` is left as it is) and says it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

__all__ = ["save_failure"]

_MESSAGES = (
    re.compile(r'File "(?P<path>.*)" does not exist\.', re.DOTALL),
    re.compile(r'File "(?P<path>.*)" is not a file\.', re.DOTALL),
    re.compile(r"File must be in the local directory\."),
)
_SAVE_FRAME = re.compile(r"simtool[/\\]db\.py\b.*\bsave\b")
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")
_NULL = "null"
"""What simtool glues as the output whose save failed (its encoding of None)."""


def save_failure(
    ename: str, evalue: str, traceback: Sequence[str], directory: str, notebook: str, declared: Sequence[str]
) -> str | None:
    """What to tell the client of a run whose cell raised ``ename: evalue`` (with ``traceback``, the kernel's lines)
    when it is simtool refusing an output saved as a file; None when it is not.

    Args:
        ename, evalue, traceback: the exception the cell raised, as the kernel reported it.
        directory: the run directory (the notebook's working directory), which a relative path is resolved in.
        notebook: the executed notebook papermill wrote (its scraps name the output simtool glued as ``null``).
        declared: the names of the Sim2L's outputs.

    Returns:
        ``"its output 'label' was saved as the file './../../etc/hostname', which is outside the run: an output
        saved as a file must be a file inside the run ... (simtool: FileNotFoundError: ...)"``, or None.
    """
    if ename != "FileNotFoundError":
        return None
    found = next((m for m in (pattern.fullmatch(evalue) for pattern in _MESSAGES) if m is not None), None)
    if found is None or not any(_SAVE_FRAME.search(_COLOUR.sub("", line)) for line in traceback):
        return None
    path = found.groupdict().get("path")
    failed = _glued_null(notebook, declared)
    what = f"its output '{failed}'" if failed else "an output"
    rule = "an output saved as a file must be a file inside the run"
    if path is None or _outside(directory, path):
        named = f"the file {path!r}" if path is not None else "a file by an absolute path or one starting with '..'"
        said = (f"{what} was saved as {named}, which is outside the run: {rule} (a file the notebook wrote in its "
                "working folder, named by a relative path; a text value starting with 'file://' is taken for such "
                "a file: write such text to a file and save that with file=)")
    elif evalue.endswith("does not exist."):
        said = f"{what} was saved as the file {path!r}, which the run did not write: {rule}: write it before saving it"
    else:
        said = f"{what} was saved as {path!r}, which is not a regular file: {rule}"
    return f"{said} (simtool: {ename}: {evalue})"


def _failed_output(scraps: Sequence[tuple[str, object]], declared: Sequence[str]) -> str | None:
    """The declared output whose save failed: the last of ``scraps`` (name and data, in the order glued) that simtool
    glued as ``null``; None when there is none."""
    names = [name for name, data in scraps if name in declared and data == _NULL]
    return names[-1] if names else None


def _glued_null(notebook: str, declared: Sequence[str]) -> str | None:
    try:
        import scrapbook

        scraps = scrapbook.read_notebook(notebook).scraps
        return _failed_output([(name, scrap.data) for name, scrap in scraps.items()], declared)
    except Exception:  # unreadable: the message names no output
        return None


def _outside(directory: str, path: str) -> bool:
    if os.path.isabs(path):
        return True
    root = os.path.normpath(directory)
    return not os.path.normpath(os.path.join(root, path)).startswith(root + os.sep)
