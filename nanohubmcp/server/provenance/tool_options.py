"""A tool's provenance and cache options (``provenance=``, ``cache=``, ``cache_ttl=``), checked
at registration and kept in ``Tool.extra``, and the ``Tool.extra`` keys they are kept under.

The keys live here, not beside the layers that read them (:mod:`.layer`, :mod:`.cache_layer`,
:mod:`.tool_facts`, :mod:`.code_facts`), so registering a tool imports none of the provenance machinery: it is loaded
with the first call a layer records or caches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import RegistrationError
from ...protocol.seconds import limit_seconds

if TYPE_CHECKING:
    from ..registry.components import Tool

OFF = "provenance_off"
"""``Tool.extra`` key: True when the tool's calls leave no record (``provenance=False``)."""
SOURCE = "provenance_source"
"""``Tool.extra`` key: the text a tool's code hash is taken of, when not its function's source."""
CACHE = "cache"
"""``Tool.extra`` key: ``"private"`` or ``"shared"`` for a cached tool."""
CACHE_TTL = "cache_ttl"
"""``Tool.extra`` key: seconds an entry stays (None: until evicted)."""
RUN_VALUES = "run_values"
"""``Tool.extra`` key: a function from a call's checked arguments to the values the tool runs with
(a Rappture tool: each input's text in its declared units, defaults filled in), which the result
cache's key is made of instead of the arguments; it raises ``InvalidArguments`` (the call is
refused as uncached) or ``schema.CheckPending`` (what it needs is loaded off the loop first)."""
SHARED = "shared"
PRIVATE = "private"
DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
"""Bytes of results the result cache keeps by default (``cache_max_bytes=``)."""


def apply(
    tool: Tool, *, provenance: bool | None = None, cache: object = False, cache_ttl: object = None,
    source: str | None = None,
) -> None:
    """Record ``tool``'s options.

    Args:
        provenance: False: the tool's calls leave no provenance record (None/True: the server's setting).
        cache: True (or ``"private"``): cache results per caller; ``"shared"``: one entry for
            every caller (results that do not depend on who asks); False: no cache.
        cache_ttl: seconds a cached result stays (None, ``inf`` or a number past any wait, ``1e308``,
            ``10**400``: until evicted; :func:`~nanohubmcp.protocol.seconds.limit_seconds`).
        source: the text the tool's code hash is taken of (a notebook tool's defining cell).

    Raises:
        RegistrationError: a value of the wrong kind (the message names the tool).
    """
    if provenance is not None and not isinstance(provenance, bool):
        raise RegistrationError(f"tool '{tool.name}': provenance must be True or False")
    if provenance is False:
        tool.extra[OFF] = True
    check_cache(tool.name, cache, cache_ttl, background=tool.background)
    if cache:
        tool.extra[CACHE] = SHARED if cache == SHARED else PRIVATE
        tool.extra[CACHE_TTL] = limit_seconds(cache_ttl, "cache_ttl")  # checked above: a float, or None
    if source is not None:
        tool.extra[SOURCE] = source


def check_cache(name: str, cache: object, cache_ttl: object, *, background: bool) -> None:
    """Refuse ``cache=`` / ``cache_ttl=`` values a tool named ``name`` cannot take (an ``@async_tool`` job
    is never cached); what registration checks, and a notebook's export before it writes a script.

    Raises:
        RegistrationError: the message names the tool and what to change.
    """
    if not (cache is None or isinstance(cache, bool) or (isinstance(cache, str) and cache in (PRIVATE, SHARED))):
        raise RegistrationError(f"tool '{name}': cache must be True, False, 'private' or 'shared', not {cache!r}")
    limit_seconds(cache_ttl, f"tool '{name}': cache_ttl", RegistrationError)
    if cache and background:
        raise RegistrationError(f"tool '{name}': cache= is for tools that answer in the call, not @async_tool jobs")
    if not cache and cache_ttl is not None:
        raise RegistrationError(f"tool '{name}': cache_ttl= needs cache=True")


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
