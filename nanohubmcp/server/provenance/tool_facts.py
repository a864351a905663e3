"""The facts a tool's provenance records share in this process: what :mod:`.code_facts` found of its code,
and the host and process the calls ran in (:func:`.rows.facts_of`: one JSON text, stored once per tool and
process, that each record refers to by its key).

Made once per tool, process and change of the code's answer, and kept in ``Tool.extra`` (:data:`FACTS`).
The process id is read once and again in a forked child only (a system call per record cost more than the
rest of the look-up).
"""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING, Any

from .rows import facts_of

if TYPE_CHECKING:
    from ..registry.components import Tool
    from .handover import Facts

HOST = socket.gethostname()
"""This machine's host name, as the records name it."""
_pid = os.getpid()
"""This process's id: set again in a forked child."""


def _forked() -> None:
    global _pid
    _pid = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)

FACTS = "provenance_facts"
"""``Tool.extra`` key: ``(code_of's answer, pid, facts)`` (made again after a fork or a change)."""


def facts_for(tool: Tool, code: dict[str, Any]) -> Facts:
    """The facts of ``tool``'s records in this process, ``(key, JSON text)``, where ``code`` is what
    :func:`.code_facts.code_of` found (made once per tool, process and change of that answer)."""
    known = tool.extra.get(FACTS)
    pid = _pid
    if known is None or known[0] is not code or known[1] != pid:
        known = (code, pid, facts_of(code, HOST, pid))
        tool.extra[FACTS] = known
    facts: Facts = known[2]
    return facts
