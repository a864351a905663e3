"""The nanoHUB tools installed on a hub: Rappture tools and Sim2Ls under ``/apps``.

A hub installs each tool under ``/apps/<tool>/<revision>/`` where ``<revision>`` is ``rNN`` (an
installed revision), ``current`` (the published one, usually a link to an ``rNN``) or ``dev``:

- a **Rappture tool** has ``/apps/<tool>/<revision>/rappture/tool.xml``;
- a **Sim2L** has ``/apps/<name>/<revision>/simtool/<name>.ipynb``.

:func:`find_hub_tools` lists them (one :class:`HubTool` per tool and kind, with the revision served
by default: ``current``, else the highest ``rNN``, else ``dev``); :func:`pick` finds the ones a
user named (``NAME`` or ``NAME/REVISION``) and :func:`served_names` the MCP tool name each is served
under, distinct when one tool is asked for at several revisions or in both kinds, and made from the
directory's name when that is not a tool name (``sp ace`` -> ``sp_ace``). Reading a listing
touches only directory entries, never the files themselves.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from ..server.registry.components import is_tool_name, name_like

__all__ = [
    "DEFAULT_ROOT", "HubTool", "ServedNames", "find_hub_tools", "name_keepers", "pick", "same_as", "served_name",
    "served_names", "was_cut",
]

DEFAULT_ROOT = "/apps"
"""Where a hub installs its tools."""

_REVISION = re.compile(r"^r([0-9]+)$")  # ASCII digits: r٣ is no revision


@dataclass(frozen=True)
class HubTool:
    """One installed tool of one kind.

    Attributes:
        name: the tool's name (its directory under the root).
        kind: ``"rappture"`` or ``"sim2l"``.
        revision: the revision served by default.
        path: the ``tool.xml`` or the notebook of that revision.
        revisions: every installed revision of this kind, by revision name -> path.
    """

    name: str
    kind: str
    revision: str
    path: str
    revisions: dict[str, str] = field(default_factory=dict)


def _revision_folder(tool: HubTool, revision: str) -> str:
    """``<root>/<tool>/<revision>``: two levels above the revision's ``tool.xml`` or notebook."""
    return os.path.dirname(os.path.dirname(tool.revisions[revision]))


def same_as(tool: HubTool, revision: str) -> str | None:
    """The other installed revision that ``revision`` of ``tool`` is a link to (``current`` -> ``r2``, as
    a hub publishes one), or None when it is a folder of its own or links elsewhere."""
    folder = _revision_folder(tool, revision)
    if not os.path.islink(folder):
        return None
    target = os.path.realpath(folder)
    for other in tool.revisions:
        if other != revision and os.path.realpath(_revision_folder(tool, other)) == target:
            return other
    return None


def _order(revision: str) -> tuple[int, int]:
    """Which revision serves by default: current first, then the highest rNN, then dev."""
    if revision == "current":
        return (2, 0)
    match = _REVISION.match(revision)
    if match:
        return (1, int(match.group(1)))
    return (0, 0)


def _revisions(folder: str) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return [e.name for e in entries if e.is_dir() and (e.name in ("current", "dev") or _REVISION.match(e.name))]
    except OSError:  # unreadable, or gone meanwhile
        return []


def _tools_of(root: str, name: str) -> list[HubTool]:
    folder = os.path.join(root, name)
    found: dict[str, dict[str, str]] = {"rappture": {}, "sim2l": {}}
    for revision in _revisions(folder):
        xml = os.path.join(folder, revision, "rappture", "tool.xml")
        notebook = os.path.join(folder, revision, "simtool", f"{name}.ipynb")
        if os.path.isfile(xml):
            found["rappture"][revision] = xml
        if os.path.isfile(notebook):
            found["sim2l"][revision] = notebook
    tools = []
    for kind, revisions in found.items():
        if revisions:
            best = max(revisions, key=_order)
            ordered = dict(sorted(revisions.items(), key=lambda item: _order(item[0]), reverse=True))
            tools.append(HubTool(name, kind, best, revisions[best], ordered))
    return tools


def find_hub_tools(root: str | os.PathLike[str] = DEFAULT_ROOT, names: list[str] | None = None) -> list[HubTool]:
    """The Rappture tools and Sim2Ls installed under ``root``, sorted by name (then kind).

    Args:
        root: the hub's tool directory (default ``/apps``).
        names: only these tool names (without revisions); None for all.

    Returns:
        An empty list when ``root`` does not exist or holds no tool.
    """
    base = os.fspath(root)
    if names is not None:
        candidates = sorted(set(names))
    else:
        try:
            with os.scandir(base) as entries:
                candidates = sorted(e.name for e in entries if e.is_dir() and not e.name.startswith("."))
        except OSError:
            return []
    tools: list[HubTool] = []
    for name in candidates:
        if os.sep in name or name in ("", ".", ".."):
            continue
        tools.extend(_tools_of(base, name))
    return tools


def pick(root: str | os.PathLike[str], wanted: list[str]) -> list[HubTool]:
    """The tools named in ``wanted`` (``NAME`` or ``NAME/REVISION``); each kind a name has. A name
    that is no tool directory also names the tools served under it (:func:`served_name`: ``uni``
    for a directory ``ünï``), as the listing shows them.

    Raises:
        LookupError: a name with no installed tool, a revision that is not installed (the message
            lists what is, or the names that come close), or one that is no revision name (``rNN``, ``current``,
            ``dev``).
    """
    chosen: list[HubTool] = []
    for word in wanted:
        name, _, revision = word.partition("/")
        tools = find_hub_tools(root, [name])
        if not tools:  # the name it is served under (``uni`` for the directory ``ünï``), listed so
            tools = [t for t in find_hub_tools(root) if t.name != name and served_name(t.name) == name]
        if not tools:
            everything = sorted({t.name for t in find_hub_tools(root)})  # a tool with both kinds once
            close = difflib.get_close_matches(name, everything, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise LookupError(f"no Rappture tool or Sim2L named {name!r} is installed under {os.fspath(root)}{hint}")
        for tool in tools:
            if not revision:
                chosen.append(tool)
            elif revision in tool.revisions:
                chosen.append(HubTool(tool.name, tool.kind, revision, tool.revisions[revision], tool.revisions))
        if revision and not any(revision in t.revisions for t in tools):
            if revision not in ("current", "dev") and not _REVISION.match(revision):
                raise LookupError(f"{name}/{revision}: {revision!r} is not a revision name (rNN, current or dev)")
            installed = sorted({r for t in tools for r in t.revisions}, key=_order, reverse=True)
            raise LookupError(f"{name} has no revision {revision!r} (installed: {', '.join(installed)})")
    return chosen


class ServedNames(NamedTuple):
    """What :func:`served_names` found: the tools with their MCP tool names, and the ones that
    cannot be served, each with why."""

    named: list[tuple[HubTool, str]]
    skipped: list[tuple[HubTool, str]]


def served_name(name: str) -> str:
    """The MCP tool name a tool directory ``name`` is served under: ``name`` itself when it is one
    (SEP-986: 1-128 of ``A-Z a-z 0-9 _ - .``), else one made from it: accents dropped, each run of
    other characters ``_``, ``_`` at either end dropped (``sp ace`` -> ``sp_ace``); ``""`` when
    nothing is left."""
    return name if is_tool_name(name) else name_like(name, fallback="")


def was_cut(name: str) -> bool:
    """Whether the name a directory ``name`` is served under was cut to 128 characters."""
    return served_name(name) != name and len(name_like(name, fallback="", limit=None)) > 128


def name_keepers(names: list[str]) -> dict[str, str]:
    """For each directory name of ``names``, the directory whose tool its served name
    (:func:`served_name`) is when all are served together: the directory named as that tool name,
    else the first by name (two names over 128 characters cut alike); ``""`` for one that cannot be
    served. :func:`served_names` gives the names in this order."""
    keepers: dict[str, str] = {}
    for name in sorted(names, key=_keeps_first):
        made = served_name(name)
        keepers.setdefault(made, name)
    return {name: keepers[served_name(name)] if served_name(name) else "" for name in names}


def _keeps_first(name: str) -> tuple[bool, str]:
    return (served_name(name) != name, name)


def served_names(tools: list[HubTool]) -> ServedNames:
    """Each of ``tools`` (as :func:`pick` chose them) with the MCP tool name it is served under:
    :func:`served_name` of its directory, then ``_<kind>`` when both kinds of it are served, then
    ``_<revision>`` when several of its revisions (of that kind) are, so that two revisions asked for
    side by side are both served (``cooling_current``, ``cooling_r1``). A tool asked for twice at one
    revision is served once. A tool whose name has no character a tool name can hold, whose name
    would be too long, or whose name another of ``tools`` already has (``sp ace`` beside ``sp_ace``)
    is skipped, with why; of two made alike (two names over 128 characters cut to the same), the
    first by directory name is served."""
    unique = list({(t.name, t.kind, t.revision): t for t in tools}.values())
    kinds: dict[str, set[str]] = {}
    revisions: dict[tuple[str, str], int] = {}
    for tool in unique:
        kinds.setdefault(tool.name, set()).add(tool.kind)
        revisions[tool.name, tool.kind] = revisions.get((tool.name, tool.kind), 0) + 1
    names: dict[int, str] = {}  # by index in unique
    why: dict[int, str] = {}
    taken: dict[str, HubTool] = {}
    own_first = sorted(range(len(unique)), key=lambda i: _keeps_first(unique[i].name))
    for index in own_first:  # a directory named as a tool name keeps it before one made into it (name_keepers)
        tool = unique[index]
        name = served_name(tool.name)
        if len(kinds[tool.name]) > 1:
            name += f"_{tool.kind}"
        if revisions[tool.name, tool.kind] > 1:
            name += f"_{tool.revision}"
        if not served_name(tool.name):
            why[index] = f"{tool.name!r} has no character an MCP tool name can hold (ASCII letters, digits, '_-.')"
        elif len(name) > 128:
            why[index] = f"its tool name {name[:40]}... would be over 128 characters"
        elif name in taken:
            why[index] = f"its tool name {name!r} is that of {taken[name].path}, served already"
        else:
            taken[name] = tool
            names[index] = name
    return ServedNames([(t, names[i]) for i, t in enumerate(unique) if i in names],
                  [(t, why[i]) for i, t in enumerate(unique) if i in why])
