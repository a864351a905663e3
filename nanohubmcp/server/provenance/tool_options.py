"""A tool's provenance and cache options (``provenance=``, ``cache=``, ``cache_ttl=``), checked
at registration and kept in ``Tool.extra``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import RegistrationError
from .cache_layer import CACHE, CACHE_TTL, PRIVATE, SHARED
from .capture import SOURCE
from .layer import OFF

if TYPE_CHECKING:
    from ..registry.components import Tool


def apply(
    tool: Tool, *, provenance: bool | None = None, cache: object = False, cache_ttl: object = None,
    source: str | None = None,
) -> None:
    """Record ``tool``'s options.

    Args:
        provenance: False: the tool's calls leave no provenance record (None/True: the server's setting).
        cache: True (or ``"private"``): cache results per caller; ``"shared"``: one entry for
            every caller (results that do not depend on who asks); False: no cache.
        cache_ttl: seconds a cached result stays (None: until evicted).
        source: the text the tool's code hash is taken of (a notebook tool's defining cell).

    Raises:
        RegistrationError: a value of the wrong kind (the message names the tool).
    """
    if provenance is not None and not isinstance(provenance, bool):
        raise RegistrationError(f"tool '{tool.name}': provenance must be True or False")
    if provenance is False:
        tool.extra[OFF] = True
    if cache not in (False, None, True, PRIVATE, SHARED):
        raise RegistrationError(f"tool '{tool.name}': cache must be True, False, 'private' or 'shared', not {cache!r}")
    if cache_ttl is not None and (
        isinstance(cache_ttl, bool) or not isinstance(cache_ttl, (int, float)) or not cache_ttl > 0
    ):
        raise RegistrationError(f"tool '{tool.name}': cache_ttl must be a positive number of seconds, or None")
    if cache:
        if tool.background:
            raise RegistrationError(
                f"tool '{tool.name}': cache= is for tools that answer in the call, not @async_tool jobs"
            )
        tool.extra[CACHE] = SHARED if cache == SHARED else PRIVATE
        tool.extra[CACHE_TTL] = float(cache_ttl) if cache_ttl is not None else None
    elif cache_ttl is not None:
        raise RegistrationError(f"tool '{tool.name}': cache_ttl= needs cache=True")
    if source is not None:
        tool.extra[SOURCE] = source


def cached(tool: Tool) -> bool:
    """Whether ``tool`` was registered with ``cache=``."""
    return bool(tool.extra.get(CACHE))


ENV_VAR = "NANOHUBMCP_PROVENANCE"
_FALSE = ("0", "false", "no", "off")
_TRUE = ("1", "true", "yes", "on")


def resolve_enabled(argument: bool | None, configured: bool | None = None) -> bool:
    """Whether provenance is on: ``argument``, else ``$NANOHUBMCP_PROVENANCE`` (1/0, true/false,
    on/off, yes/no), else ``configured`` (``c.NanohubMCP.provenance``), else on.

    Raises:
        ConfigurationError: the environment variable holds something else.
    """
    if argument is not None:
        return bool(argument)
    import os

    value = os.environ.get(ENV_VAR)
    if value is not None and value.strip():
        word = value.strip().lower()
        if word in _FALSE:
            return False
        if word in _TRUE:
            return True
        from ...errors import ConfigurationError

        raise ConfigurationError(f"{ENV_VAR} must be 1 or 0 (true/false, on/off), not {value!r}")
    return True if configured is None else bool(configured)
