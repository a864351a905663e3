"""What a session keeps of what its client said about itself at ``initialize``: its ``capabilities``
(at most :data:`MAX_CLIENT_CAPABILITIES_BYTES` of JSON, else the ``initialize`` is refused) and of its
``clientInfo`` only ``name``, ``title`` and ``version`` (each at most :data:`MAX_CLIENT_INFO_CHARS`).

A session lives up to an idle hour, in the process's memory or in Redis, and one principal may hold
1,000 of them: kept whole, a client's 10 MB ``initialize`` made each session cost 10 MB (trial40 S6).
The capabilities are read all along (what the server may ask the client, ``ctx.client_capabilities``),
so too large ones are refused with a message rather than cut; the server uses nothing of
``clientInfo``, so the rest of it (``icons``, which may be ``data:`` URIs, ``websiteUrl``...) is not kept.
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidParams
from ...protocol import jsonenc

__all__ = ["MAX_CLIENT_CAPABILITIES_BYTES", "MAX_CLIENT_INFO_CHARS", "kept_capabilities", "kept_client_info"]

MAX_CLIENT_CAPABILITIES_BYTES = 16 * 1024
"""Bytes of compact JSON an ``initialize``'s ``params.capabilities`` may have, at most (real clients
send well under 1 KiB); more is invalid params (-32602) naming the limit."""
MAX_CLIENT_INFO_CHARS = 256
"""Characters a session keeps of each of ``clientInfo``'s ``name``, ``title`` and ``version``."""
_INFO_KEPT = ("name", "title", "version")


def kept_capabilities(capabilities: object) -> dict[str, Any]:
    """``capabilities`` as a session keeps them: the dict itself (anything else: ``{}``).

    Raises:
        InvalidParams: their compact JSON is over :data:`MAX_CLIENT_CAPABILITIES_BYTES` bytes (a lone
            surrogate, ``"\\ud800"``, counted as its escape's six; it is kept as sent).
    """
    if not isinstance(capabilities, dict):
        return {}
    if not capabilities:
        return capabilities
    # A cheap lower bound first (stops early), so a 10 MB object is never written out to be measured.
    if _at_least_over(capabilities, MAX_CLIENT_CAPABILITIES_BYTES) or \
            _json_bytes(capabilities) > MAX_CLIENT_CAPABILITIES_BYTES:
        raise InvalidParams(
            f"Invalid params: params.capabilities is over {MAX_CLIENT_CAPABILITIES_BYTES} bytes of JSON; a "
            f"session keeps at most {MAX_CLIENT_CAPABILITIES_BYTES}: send only the capabilities the client has",
            {"limit": MAX_CLIENT_CAPABILITIES_BYTES})
    return capabilities


def kept_client_info(info: object) -> dict[str, str]:
    """``clientInfo``'s ``name``, ``title`` and ``version`` (those that are strings), each cut to
    :data:`MAX_CLIENT_INFO_CHARS` characters; ``{}`` for anything but a dict."""
    if not isinstance(info, dict):
        return {}
    return {key: value[:MAX_CLIENT_INFO_CHARS] for key in _INFO_KEPT if isinstance(value := info.get(key), str)}


def _json_bytes(value: object) -> int:
    """Bytes of ``value``'s compact JSON as UTF-8, a lone surrogate (``"\\ud800"``: valid JSON a client may
    send, with no UTF-8 form) counted as its six-character escape, the form a store keeps it in."""
    text = jsonenc.dumps(value)
    try:
        return len(text.encode())
    except UnicodeEncodeError:
        from ...protocol.lone_surrogates import utf8_storable  # (only for such text: not loaded at start)

        return len(utf8_storable(text).encode())


def _at_least_over(value: object, limit: int) -> bool:
    """Whether ``value``'s compact JSON is surely over ``limit`` bytes: its strings' and keys' characters
    and two quotes each, a byte per member and container, counted until the count passes ``limit``
    (a lower bound of the real size: escapes and UTF-8 only add to it)."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 1 + len(item)
            if total > limit:  # (before walking a huge object's members)
                return True
            for key, member in item.items():
                total += len(key) + 2 if isinstance(key, str) else 1
                stack.append(member)
        elif isinstance(item, list):
            total += 1 + len(item)
            stack.extend(item)
        else:
            total += 1
        if total > limit:
            return True
    return False
