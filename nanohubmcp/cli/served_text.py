"""What the ``rappture`` and ``sim2l`` commands tell clients and registries about the server they make.

The server's ``instructions=`` (sent to clients at ``initialize``; its first line is the description in
the discovery documents: server card, ``server.json``) is the operator's ``--instructions`` text, else
made from the tools served: one tool's title and what it is, then its own description; several tools'
names. Without it a discovery document described such a server as "Python functions".
"""

from __future__ import annotations

__all__ = ["instructions_for"]


def instructions_for(kind: str, tools: list[tuple[str, str]]) -> str:
    """``instructions=`` for a server of ``tools``, each ``(title or name, description)``, of one ``kind``
    (``"Rappture tool"``, ``"Sim2L"``).

    Example:
        ``instructions_for("Rappture tool", [("Fermi-Dirac occupancy", "Occupancy of ...")])`` is
        ``"Fermi-Dirac occupancy: a Rappture tool served with nanohubmcp\\n\\nOccupancy of ..."``.
    """
    if len(tools) == 1:
        title, about = tools[0]
        first = f"{' '.join(title.split())}: a {kind} served with nanohubmcp"
        return f"{first}\n\n{about.strip()}" if about.strip() else first
    names = ", ".join(" ".join(title.split()) for title, _ in tools)
    return f"{kind}s served with nanohubmcp: {names}"
