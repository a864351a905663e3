"""What the ``rappture``, ``sim2l`` and ``hub-tools`` commands tell clients and registries about the server they
make, and the one refusal of what they are given together: two tools of one name (:func:`one_name_each`).

The server's ``instructions=`` (sent to clients at ``initialize``; its first line is the description in
the discovery documents: server card, ``server.json``) is the operator's ``--instructions`` text, else
made from the tools served (:func:`instructions_for`): one tool's first line says what it does (a Sim2L's
DESCRIPTION; a Rappture tool's title and the first paragraph of its ``<about>``), then its whole description and
what it is; several tools' names. Without it a discovery document described such a server as "Python
functions". The server's version is the tool's revision as the registry sorts it (:func:`version_for`).
"""

from __future__ import annotations

import re

from ..errors import RegistrationError

__all__ = ["DEFAULT_VERSION", "instructions_for", "one_name_each", "version_for"]


def instructions_for(kind: str, tools: list[tuple[str, str]], *, titled: bool) -> str:
    """``instructions=`` for a server of ``tools``, each ``(title or name, description)``, of one ``kind``
    (``"Rappture tool"``, ``"Sim2L"``).

    One tool: the first line is the first paragraph of its description (whitespace made single spaces), after
    its title and a colon when ``titled`` (a Rappture tool's title names it; a Sim2L's name is its file's),
    then the whole description and a line saying what it is. A tool with no description (or one that is only
    its title: a Sim2L's first markdown cell ``# name``) says what it is in the first line.

    Example:
        ``instructions_for("Sim2L", [("decay", "Radioactive decay: atoms left after a time")], titled=False)``
        is ``"Radioactive decay: atoms left after a time\n\ndecay: a Sim2L served with nanohubmcp"``;
        with no description, ``"decay: a Sim2L served with nanohubmcp"``.
    """
    if len(tools) == 1:
        title, about = " ".join(tools[0][0].split()), tools[0][1].strip()
        what = f"{title}: a {kind} served with nanohubmcp"
        summary = " ".join(re.split(r"\n\s*\n", about, maxsplit=1)[0].split())
        if not summary or summary.casefold() == title.casefold():  # it says no more than the title
            first, what = what, ""
        else:
            first = f"{title}: {summary}" if titled else summary
        rest = about if " ".join(about.split()) != summary else ""  # more than the first line says
        return "\n\n".join(part for part in (first, rest, what) if part)
    names = ", ".join(" ".join(title.split()) for title, _ in tools)
    return f"{kind}s served with nanohubmcp: {names}"


_NUMBERED = re.compile(r"r?([0-9]+)")
_SEMVER = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:[-+][0-9A-Za-z.+-]+)?")
_SHORT = re.compile(r"(0|[1-9][0-9]*)(?:\.(0|[1-9][0-9]*))?")


DEFAULT_VERSION = "1.0.0"
"""The version of a server whose tools give none (``MCPServer``'s default)."""


def version_for(revisions: list[str | None]) -> str:
    """The server's version (``server.json``'s and the card's ``version``) for tools of ``revisions``: one tool's
    revision as a semantic version, which the MCP Registry sorts by (a nanoHUB revision ``r12`` or ``12`` is
    ``12.0.0``; a version ``2.1`` is ``2.1.0``; ``2.1.3`` and ``2.1.3-beta`` stay as they are);
    :data:`DEFAULT_VERSION` for several tools, none, or any other text (``local``, ``dev``: the registry
    would take it but not sort it, and ``1.x`` is a range it refuses).

    Source: the MCP Registry's versioning guide (a version is unique per publication, SHOULD be semantic,
    MUST NOT be a range).
    """
    if len(revisions) != 1 or not revisions[0]:
        return DEFAULT_VERSION
    revision = revisions[0].strip().removeprefix("v")  # (v2.1.3: a tag's spelling)
    if _SEMVER.fullmatch(revision):
        return revision
    numbered = _NUMBERED.fullmatch(revision)
    if numbered:
        return f"{int(numbered.group(1))}.0.0"
    short = _SHORT.fullmatch(revision)
    if short:
        return f"{int(short.group(1))}.{int(short.group(2) or 0)}.0"
    return DEFAULT_VERSION


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
