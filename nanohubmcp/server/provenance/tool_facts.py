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

from ..wire.fork_safe import after_fork_in_child
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


after_fork_in_child(_forked)

FACTS = "provenance_facts"
"""``Tool.extra`` key: :data:`KnownFacts` (made again after a fork or a change)."""
KnownFacts = tuple[dict[str, Any], int, "Facts", "tuple[str, str] | None"]
"""``(code_of's answer, pid, facts, (code hash, source) or None)``: the facts a tool's records refer to and the
code source they keep, for the answer and process they were made for."""


def process_id() -> int:
    """This process's id (read once, and again in a forked child)."""
    return _pid


def known_facts(tool: Tool, code: dict[str, Any]) -> KnownFacts:
    """What ``tool``'s records share in this process: its :data:`FACTS`, made once per tool, process and change
    of ``code`` (what :func:`.code_facts.code_of` found), the facts ``(key, JSON text)`` and the ``(code hash,
    source)`` its records keep (None without a source). A record reads ``Tool.extra[FACTS]`` itself and calls
    this only when it is missing or stale (one look-up a record: bench/provenance.md, twelfth pass)."""
    known: KnownFacts | None = tool.extra.get(FACTS)
    pid = _pid
    if known is None or known[0] is not code or known[1] != pid:
        source = code["source"]
        known = (code, pid, facts_of(code, HOST, pid), (code["hash"], source) if source is not None else None)
        tool.extra[FACTS] = known
    return known
