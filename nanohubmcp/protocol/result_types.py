"""The result types users may return: ``ToolResult``, ``ResourceResult``, ``PromptResult`` and
``Message``, with the 0.4.x aliases (``CallToolResult``, ``ReadResourceResult``,
``GetPromptResult``, ``PromptMessage``).

Source: MCP 2025-11-25, Server § Tools (CallToolResult), § Resources (ReadResourceResult),
§ Prompts (GetPromptResult, PromptMessage).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import jsondec, jsonenc
from .content import ResourceContent, Role, content_item, is_wire_block, to_content_block
from .wire import UNSET, Wire, WireType, as_list, check_meta, finish, is_bytes, optional_str, type_name

# ---------------------------------------------------------------- results


class ToolResult(WireType):
    """Full control over a tool's answer (MCP ``CallToolResult``).

    Args:
        content: None, a str, a content object/helper/wire dict, or a list of those.
        is_error: report a tool failure the model should see.
        meta: the result's ``_meta``.
        structured_content: any JSON value for ``structuredContent`` (leave unset for none).

    Wire: ``{"content": [...], "isError", "structuredContent"?, "_meta"?}``; with structured content and
    no content, a text block holding its JSON is added (the spec's backward-compatibility SHOULD).
    """

    def __init__(
        self,
        content: object = None,
        is_error: bool = False,
        meta: Mapping[str, Any] | None = None,
        structured_content: object = UNSET,
    ) -> None:
        if not isinstance(is_error, bool):
            raise TypeError(f"ToolResult is_error must be a bool, not {type_name(is_error)}")
        self.content: list[Any] = [content_item(i) for i in as_list(content)]
        self.is_error = is_error
        self.meta = check_meta(meta, "ToolResult")
        self.structured_content = structured_content

    @property
    def has_structured_content(self) -> bool:
        """Whether ``structured_content`` was given (``None`` counts: it is JSON null)."""
        return self.structured_content is not UNSET

    def to_wire(self) -> Wire:
        """Return the ``CallToolResult`` object (without the 2026 ``resultType``).

        Raises:
            TypeError: ``structured_content`` cannot be written as JSON.
            NestedTooDeep: ``structured_content`` nests more than ``nesting.MAX_JSON_DEPTH`` (128)
                levels deep (a ValueError).
            LongInteger: ``structured_content`` holds an int of more than 4,300 digits (``protocol.long_ints``;
                a ValueError).
        """
        content = [to_content_block(c) for c in self.content]
        wire: Wire = {"content": content, "isError": self.is_error}
        if self.has_structured_content:
            text = jsonenc.dumps_within_depth(self.structured_content, "structured_content")
            wire["structuredContent"] = jsondec.loads(text)
            if not content:
                content.append({"type": "text", "text": text})
        return finish(wire, None, self.meta)


class ResourceResult(WireType):
    """Full control over a resource read (MCP ``ReadResourceResult``).

    Args:
        contents: a ``ResourceContent``, str (text), bytes (blob), wire dict ``{uri?, text|blob, ...}``,
            or a list of those.
        meta: the result's ``_meta``.
    """

    def __init__(self, contents: object = None, meta: Mapping[str, Any] | None = None) -> None:
        self.contents: list[ResourceContent] = [_resource_item(i) for i in as_list(contents)]
        self.meta = check_meta(meta, "ResourceResult")

    def to_wire(
        self, *, uri: str | None = None, mime_type: str | None = None, meta: Mapping[str, Any] | None = None
    ) -> Wire:
        """Return ``{"contents": [...], "_meta"?}``; the keywords fill what items lack."""
        items = [c.to_wire(uri=uri, mime_type=mime_type, meta=meta) for c in self.contents]
        return finish({"contents": items}, None, self.meta)


def _resource_item(item: object) -> ResourceContent:
    if isinstance(item, ResourceContent):
        return item
    if isinstance(item, str):
        return ResourceContent(content=item)
    if is_bytes(item):
        return ResourceContent(content=bytes(item))
    if isinstance(item, Mapping) and ("text" in item or "blob" in item):
        unknown = set(item) - {"uri", "mimeType", "text", "blob", "_meta"}
        if unknown:
            raise ValueError(f"resource contents dict has unknown keys {sorted(unknown)}")
        return ResourceContent(
            item.get("uri"),
            text=item.get("text"),
            blob=item.get("blob"),
            mime_type=item.get("mimeType"),
            meta=item.get("_meta"),
        )
    raise TypeError(
        f"cannot use a {type_name(item)} as resource contents; use ResourceContent, str, bytes "
        "or {'uri', 'text'|'blob', 'mimeType'?}"
    )


class Message(WireType):
    """One prompt message (MCP ``PromptMessage``): ``{"role", "content": <one content block>}``.

    Args:
        content: a str (text), a content object/helper, or a wire-shaped block dict (``{"text": ...}``
            alone is read as text).
        role: ``"user"`` (default) or ``"assistant"``, or a :class:`Role`.

    Raises:
        ValueError: another role, or an invalid block dict. TypeError: another kind of content.
    """

    def __init__(self, content: object, role: str | Role = "user") -> None:
        if role not in ("user", "assistant"):
            raise ValueError(f"message role must be 'user' or 'assistant', got {role!r}")
        self.role = str(Role(role))
        if isinstance(content, Mapping) and set(content) == {"text"}:
            content = content["text"]
        self.content = content_item(content)

    def to_wire(self) -> Wire:
        """Return ``{"role", "content"}``."""
        return {"role": self.role, "content": to_content_block(self.content)}


class PromptResult(WireType):
    """Full control over a prompt (MCP ``GetPromptResult``).

    Args:
        messages: a list (or one) of :class:`Message`, str (a user message), content objects (user
            messages), or ``{"role"?, "content"}`` dicts whose content is a str, a block, or a list of
            those (one message each).
        description: the result's ``description``.
        meta: the result's ``_meta``.
    """

    def __init__(
        self, messages: object = None, description: str | None = None, meta: Mapping[str, Any] | None = None
    ) -> None:
        self.messages: list[Message] = [m for item in as_list(messages) for m in _messages(item)]
        self.description = optional_str(description, "PromptResult description")
        self.meta = check_meta(meta, "PromptResult")

    def to_wire(self) -> Wire:
        """Return ``{"description"?, "messages": [...], "_meta"?}``."""
        wire: Wire = {"messages": [m.to_wire() for m in self.messages]}
        if self.description is not None:
            wire["description"] = self.description
        return finish(wire, None, self.meta)


def _messages(item: object) -> list[Message]:
    if isinstance(item, Message):
        return [item]
    if isinstance(item, Mapping) and not is_wire_block(item):
        if "content" not in item:
            raise ValueError(f"a prompt message dict needs 'content' (and maybe 'role'), got {dict(item)!r}")
        role, content = item.get("role", "user"), item["content"]
        parts = content if isinstance(content, (list, tuple)) else [content]
        return [Message(part, role) for part in parts]
    return [Message(item)]


CallToolResult = ToolResult
ReadResourceResult = ResourceResult
GetPromptResult = PromptResult
PromptMessage = Message

__all__ = [
    "CallToolResult",
    "GetPromptResult",
    "Message",
    "PromptMessage",
    "PromptResult",
    "ReadResourceResult",
    "ResourceResult",
    "ToolResult",
]
