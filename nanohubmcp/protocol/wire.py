"""Shared ground of the public wire types: the ``UNSET`` marker, the ``WireType`` base and
input checks that raise ``TypeError``/``ValueError`` with a message naming the field.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, TypeAlias, TypeGuard

Wire = dict[str, Any]

JSONValue: TypeAlias = str | int | float | bool | Mapping[str, "JSONValue"] | Sequence["JSONValue"] | None
"""A JSON value as Python reads it: what a validator or an encoder takes."""


class _Unset:
    """Type of :data:`UNSET`."""

    _instance: ClassVar[_Unset | None] = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = _Unset()
"""Marks "no structured content" (``None`` is a JSON value, so it cannot)."""


def type_name(value: object) -> str:
    return type(value).__name__


def optional_str(value: object, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{what} must be a str or None, not {type_name(value)}")
    return value


def check_meta(value: object, what: str) -> dict[str, Any] | None:
    """``value`` as a dict, or None for None.

    Raises:
        TypeError: ``value`` is not a mapping (``"<what> meta must be a dict with str keys, not list"``), or
            one of its keys is not text (``"<what> meta keys must be str: the key 1 is of type int; write it
            as text, e.g. '1'"``).
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} meta must be a dict with str keys, not {type_name(value)}")
    for key in value:
        if not isinstance(key, str):
            raise TypeError(f"{what} meta keys must be str: the key {key!r:.60} is of type {type_name(key)}; "
                            f"write it as text, e.g. {str(key)!r:.60}")
    return dict(value)



def check_annotations(value: object, what: str) -> dict[str, Any] | None:
    """Check ``{audience?: ["user"|"assistant"], priority?: 0..1, lastModified?: ISO 8601 text}``.

    .. versionchanged:: 1.0
       ``lastModified`` is read as an ISO 8601 date and time (``"yesterday"`` or a 13th month was kept).
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} annotations must be a dict, not {type_name(value)}")
    audience = value.get("audience")
    if audience is not None and (
        not isinstance(audience, (list, tuple)) or any(a not in ("user", "assistant") for a in audience)
    ):
        raise ValueError(f"{what} annotations.audience must list 'user'/'assistant', got {audience!r}")
    priority = value.get("priority")
    if priority is not None and (
        isinstance(priority, bool) or not isinstance(priority, (int, float)) or not 0 <= priority <= 1
    ):
        raise ValueError(f"{what} annotations.priority must be a number from 0 to 1, got {priority!r}")
    modified = value.get("lastModified")
    if modified is not None and not (isinstance(modified, str) and _iso_8601(modified)):
        raise ValueError(f"{what} annotations.lastModified must be an ISO 8601 text like '2025-01-12T15:00:58Z', "
                         f"got {modified!r:.60}")
    out = dict(value)
    if audience is not None:
        out["audience"] = [str(a) for a in audience]
    return out


def _iso_8601(text: str) -> bool:
    """Whether ``text`` is an ISO 8601 date, or date and time (``2025-01-12T15:00:58Z``), that exists.

    A final ``Z`` (UTC) is read as ``+00:00``: ``datetime.fromisoformat`` takes it only from Python 3.11 on."""
    from datetime import datetime

    if text[-1:] in ("Z", "z") and text[-2:-1].isdigit():  # (after the time's last digit only)
        text = text[:-1] + "+00:00"
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def check_mime(mime_type: object, mimeType: object, what: str) -> str | None:
    if mime_type is not None and mimeType is not None and mime_type != mimeType:
        raise ValueError(f"{what}: mime_type={mime_type!r} and mimeType={mimeType!r} disagree; give one")
    mime = optional_str(mime_type if mime_type is not None else mimeType, f"{what} mime_type")
    if mime is not None and "/" not in mime:
        raise ValueError(f"{what} mime_type must look like 'type/subtype', got {mime!r}")
    return mime


def is_bytes(value: object) -> TypeGuard[bytes | bytearray | memoryview]:
    return isinstance(value, (bytes, bytearray, memoryview))


def to_base64(data: object, what: str) -> tuple[str, bytes]:
    """Return ``(base64 text, first decoded bytes)`` for bytes or base64 text."""
    if is_bytes(data):
        raw = bytes(data)
        return base64.b64encode(raw).decode("ascii"), raw[:16]
    if isinstance(data, str):
        text = "".join(data.split())
        try:
            head = base64.b64decode(text, validate=True)[:16]
        except (binascii.Error, ValueError):
            raise ValueError(
                f"{what} must be bytes or base64 text; the text given is not base64 "
                "(to read a file, use Image(path=...) or Audio(path=...))"
            ) from None
        return text, head
    raise TypeError(f"{what} must be bytes or base64 text, not {type_name(data)}")


def as_list(value: object) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def finish(wire: Wire, annotations: dict[str, Any] | None, meta: dict[str, Any] | None) -> Wire:
    if annotations:
        wire["annotations"] = annotations
    if meta:
        wire["_meta"] = meta
    return wire


class WireType:
    """Equality by wire shape, and a short repr."""

    def to_wire(self) -> Wire:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, WireType)
        return self.to_wire() == other.to_wire()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        # Image data can be megabytes: keep each field short.
        shown = ((k, repr(v)) for k, v in vars(self).items() if v is not None and not k.startswith("_"))
        fields = ", ".join(f"{k}={r if len(r) <= 48 else r[:45] + '...'}" for k, r in shown)
        return f"{type(self).__name__}({fields})"


# ---------------------------------------------------------------- content blocks
