"""What the ``rappture`` and ``sim2l`` commands tell clients and registries about the server they make, and
the one refusal of what they are given together: two tools of one name (:func:`one_name_each`).

The server's ``instructions=`` (sent to clients at ``initialize``; its first line is the description in
the discovery documents: server card, ``server.json``) is the operator's ``--instructions`` text, else
made from the tools served: one tool's title and what it is, then its own description; several tools'
names. Without it a discovery document described such a server as "Python functions".
"""

from __future__ import annotations

from ..errors import RegistrationError

__all__ = ["instructions_for", "one_name_each"]


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


def one_name_each(command: str, add: str, tools: list[tuple[str, str]]) -> None:
    """Refuse ``tools`` (each ``(name, path)``) of which two share a name: a server serves one tool of a
    name, so one of them would be dropped (two revisions of a hub tool, ``/apps/foo/r12`` and ``r13``,
    share their tool's name). ``command`` (``"rappture"``) and ``add`` (``"add_rappture_tool"``) word the
    ways that work.

    Raises:
        RegistrationError: naming the name and both paths.
    """
    seen: dict[str, str] = {}
    for name, path in tools:
        if name in seen:
            raise RegistrationError(
                f"{seen[name]} and {path} are both the tool {name!r}, and a server serves one tool of a name: "
                f"serve each with its own command and a name (nanohubmcp {command} PATH --name NAME), or both "
                f"from an app file, naming each (server.{add}(PATH, name=NAME))")
        seen[name] = path
