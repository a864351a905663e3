"""What the exported script serves: the components its cells register, what a later cell changes of them, and
the tools of other formats (``%mcp rappture`` / ``%mcp sim2l`` lines).

The notebook's way to edit a component is to run a cell registering its name again: the later definition is
the one served. The script does the same by leaving the earlier cell's decorator out, a comment in its place,
so the earlier function is defined but not served. ``%mcp remove NAME`` does that with no later cell; a view's
URI becomes ``server.remove_resource(URI)``, and another name, in a notebook with ``%mcp rappture``/``sim2l``
lines, ``server.remove_tool(NAME)`` (a tool named in those files). :func:`check_tool` refuses, before the script
is written, what registering a tool would refuse when the script starts.

How a cell becomes a decorated function is :mod:`.export_cells`'; this module keeps the books.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import RegistrationError
from .export_outcomes import Code, Cursor
from .script_text import literal

if TYPE_CHECKING:
    from collections.abc import Callable

    from .cell_specs import ToolSpec

__all__ = ["Registrations", "check_tool"]


class Registrations:
    """The names (URIs for resources) the script registers, by kind, in the order the notebook lists them.

    Args:
        blocks: the script's blocks so far, one per cell, shared with their builder: a block registering a
            name again or removed is edited in place.
        cursor: the cell being translated.
    """

    def __init__(self, blocks: list[str], cursor: Cursor) -> None:
        self._blocks = blocks
        self._cursor = cursor
        self.found: dict[str, list[str]] = {"tool": [], "resource": [], "prompt": []}
        """Kind (``tool``, ``resource``, ``prompt``) -> the names served (:attr:`.translate.Script.tools`...)."""
        self.sources: list[str] = []
        """``"<kind> <path>"`` of each ``%mcp rappture`` / ``%mcp sim2l`` line (:attr:`.translate.Script.sources`)."""
        self._decorators: dict[tuple[str, str], tuple[int, str]] = {}
        """(kind, name or URI) -> (its block, its decorator line): a cell registering it again replaces it."""

    def register(self, kind: str, key: str, decorator: str) -> None:
        """Note that the block about to be added registers ``key`` with the line ``decorator``; an earlier
        cell registering it is left undecorated (the later definition is served, as in the notebook)."""
        if not self._unregister(kind, key, f"is registered again in cell {self._cursor.number}"):
            self.found[kind].append(key)  # (else it keeps its place in the counts, as in the notebook's list)
        self._decorators[(kind, key)] = (len(self._blocks), decorator)

    def add_view(self, uri: str) -> None:
        """A ``%%mcp_view`` cell's resource (added by ``server.add_app_view``, no decorator)."""
        self.found["resource"].append(uri)

    def add_source(self, kind: str, path: str) -> None:
        """A ``%mcp rappture`` / ``%mcp sim2l`` line's file, whose tool names the script reads when it runs."""
        self.sources.append(f"{kind} {path}")

    def remove(self, what: str, target: str) -> str:
        """``%mcp remove NAME`` (tool, prompt or resource, as the magic looks them up), shown as ``what``: the
        earlier cell registering it is kept undecorated, so the script does not serve it either. Returns the
        line's replacement (:class:`.export_outcomes.Code` or a comment's text)."""
        for kind in ("tool", "prompt", "resource"):
            if self._unregister(kind, target, f"is removed in cell {self._cursor.number}: %mcp remove {target}"):
                self.found[kind].remove(target)
                return f"{what}: applied, the {kind}'s cell above is left undecorated (not served)"
        if target in self.found["resource"]:  # a %%mcp_view cell's resource, added by server.add_app_view
            self.found["resource"].remove(target)
            return Code(f"server.remove_resource({literal(target)})  # {what}")
        if self.sources:  # a tool of a %mcp rappture / sim2l line, named in its file
            return Code(f"server.remove_tool({literal(target)})  # {what}")
        self._cursor.drop(f"{what} (no earlier cell registers {target!r})")
        return f"dropped: {what} (no earlier cell registers {target!r})"

    def _unregister(self, kind: str, key: str, why: str) -> bool:
        """Leave the decorator of an earlier cell registering ``key`` out, replaced by a comment saying
        ``why``; False when no earlier cell registers it."""
        earlier = self._decorators.pop((kind, key), None)
        if earlier is None:
            return False
        block, line = earlier
        self._blocks[block] = self._blocks[block].replace(line, f"# ({kind} {key!r} {why})", 1)
        return True


def check_tool(key: str, spec: ToolSpec, job_executor: str | None, fn: Callable[..., Any] | None) -> None:
    """Refuse what registering the tool ``key`` would refuse, as the notebook refused it: a reserved or
    uncallable name, a generator function (``fn``: the cell's function compiled but not run; None: not known),
    a view that is not ``ui://``, a cache the tool cannot have, executor options its executor
    (``spec.executor``, else ``job_executor``: ``%config NanohubMCP.job_executor``) does not take.

    Raises:
        RegistrationError: naming the tool and what is wrong.
    """
    from ..errors import ConfigurationError
    from ..server.executors import check_options
    from ..server.provenance.tool_options import check_cache
    from ..server.registry.checks import RESERVED_TOOL_NAMES, reserved_name
    from ..server.registry.components import check_tool_name
    from ..server.registry.generators import refuse_generator
    from ..server.registry.mcp_apps import check_view_uri

    if key in RESERVED_TOOL_NAMES:
        raise reserved_name(key)
    check_tool_name(key, given=bool(spec.name))
    if fn is not None:
        refuse_generator(fn, key)
    if spec.view is not None:
        check_view_uri(spec.view, f"tool {key!r}")
    check_cache(key, {"private": True, "shared": "shared"}.get(spec.cache or ""), spec.cache_ttl,
                background=spec.background)
    if spec.executor_options:
        try:
            check_options(spec.executor or job_executor, spec.executor_options)
        except ConfigurationError as exc:
            raise RegistrationError(f"tool '{key}': {exc}") from None
