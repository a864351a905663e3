"""A served Sim2L notebook as it is now: its code (for the run's identity and provenance) and whether
its ``%%yaml INPUTS``/``OUTPUTS`` declarations are still the ones the tool was registered with.

A call runs with the declarations read at registration: the schema clients were given, the defaults,
units and limits its arguments are checked and converted with, the outputs its result is read from.
papermill injects the call's values into the notebook as the file is now; when its declarations were
edited meanwhile (an input renamed, a default or unit changed), the run would silently ignore an
argument or use it in the wrong units. Such a call is refused (:func:`refuse_edited`), as a Rappture
tool whose ``<input>`` section was edited is; so is one whose notebook no longer reads as a Sim2L (a
half-written save) or is gone. Edits to the other cells are new code, run as such.
"""

from __future__ import annotations

import os
from typing import TypedDict

from ...errors import RegistrationError, ToolError
from ...server.provenance.code_files import bundle, entry, read_entry
from .notebook import Sim2LSpec, read_sim2l

__all__ = ["NotebookNow", "notebook_code", "refuse_edited"]


class NotebookNow(TypedDict):
    """What one reading of the notebook found (``WatchedCode``'s ``detail``; a dict, as provenance reads a
    file-backed tool's ``detail["version"]``).

    Keys:
        digest: :attr:`.Sim2LSpec.digest` (a notebook that does not read as a Sim2L: its bytes' SHA-256,
            or ``"missing"``); a stored run's identity names it.
        declared: :attr:`.Sim2LSpec.declared`, or None when the notebook does not read as a Sim2L.
        problem: why it does not (the reader's message), else None.
        version: the version a provenance record gives the tool: the notebook's revision (``simTool_info``
            ``revision``, or a hub's ``/apps/<name>/rNN/`` path), else None (never nanohub-mcp's own).
    """

    digest: str
    declared: str | None
    problem: str | None
    version: str | None


def notebook_code(path: str) -> tuple[str, list[str], NotebookNow]:
    """``(code text, [path], NotebookNow)`` of the Sim2L notebook at ``path`` as it is now: its code cells
    (:attr:`.Sim2LSpec.code`) and their digest; a notebook that no longer reads as a Sim2L counts by its bytes."""
    try:
        spec = read_sim2l(path)
    except RegistrationError as exc:
        found = read_entry(path, os.path.basename(path))
        digest = found["sha256"] if found is not None else "missing"
        return bundle("sim2l", [found] if found is not None else []), [path], NotebookNow(
            digest=digest, declared=None, problem=str(exc), version=None)
    code = entry(os.path.basename(path).removesuffix(".ipynb") + ".py", spec.code.encode())
    return bundle("sim2l", [code]), [path], NotebookNow(
        digest=spec.digest, declared=spec.declared, problem=None,
        version=None if spec.revision == "local" else spec.revision)


def refuse_edited(spec: Sim2LSpec, now: NotebookNow, tool: str) -> None:
    """Raise unless the notebook ``now`` declares what ``spec`` (the registered reading) does.

    Raises:
        ToolError: its ``%%yaml INPUTS``/``OUTPUTS`` cells were edited since registration, or it no
            longer reads as a Sim2L (the message names the notebook and says to serve it again).
    """
    if now["declared"] == spec.declared:
        return
    if now["declared"] is None:
        raise ToolError(
            f"the Sim2L tool '{tool}': {spec.path} no longer reads as a Sim2L since the server registered it "
            f"({now['problem']}): restore the notebook, or restart the server once it is whole")
    raise ToolError(
        f"the Sim2L tool '{tool}': the %%yaml INPUTS or OUTPUTS cell of {spec.path} was edited after the server "
        "registered the tool, and a call is checked against the inputs registered (the schema clients have, "
        "the defaults, units and limits) while papermill would run the edited notebook, which may ignore an "
        "argument: restart the server (serve the notebook again) to use the edited declarations, or undo the edit")
