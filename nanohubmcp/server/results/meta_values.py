"""The ``_meta`` of a component's result and of its blocks, held to what JSON can write before it is sent.

``ToolResult(meta=...)``, ``ResourceResult``'s, ``PromptResult``'s and a content block's ``meta`` have their
keys checked where they are made (:func:`~nanohubmcp.protocol.wire.check_meta`); their values are checked
here, once the result is in wire form. A value JSON cannot hold (a set, an object of the application's, an
int of over 4,300 digits) is the component's own error, naming the key and what to write instead: a tool's
``isError`` result, a resource's or a prompt's failure. It was found only when the message was written:
-32603, with a log line that called it a bug of nanohubmcp (review r22 L1). numpy and pandas values are
converted first, as in a tool's other values. A ``meta`` nested more than
:data:`~nanohubmcp.protocol.nesting.MAX_JSON_DEPTH` levels deep (the ``meta`` itself is one) is refused too, as
a tool's result is: it was sent, and the official client could not parse the answer (trial 45, T45-16).

The error is a :class:`MetaNotSendable`: the author's mistake, said in full by its message (logged as one
line, no traceback of the server's frames: T45-8).
"""

from __future__ import annotations

from typing import Any

from ...protocol import jsonenc, nesting
from ...protocol.nesting import MAX_JSON_DEPTH
from . import convert

__all__ = ["MetaNotSendable", "check_meta_values"]


class MetaNotSendable(TypeError):
    """A result's or block's ``meta`` that cannot be sent; the message names where, the key path and what to
    write instead. The component's author must fix it: no bug of the server's."""

_ITEMS = (("content", False), ("contents", False), ("messages", True))
"""The lists of a result whose items carry a ``_meta`` (for ``messages``: each message's ``content`` block)."""


def check_meta_values(wire: dict[str, Any], what: str) -> None:
    """Check every ``_meta`` of ``wire`` (a ``CallToolResult``, ``ReadResourceResult`` or ``GetPromptResult``):
    its own (named ``what``: ``"ToolResult meta"``), each block's or item's (``content[0] meta``), an embedded
    resource's and each prompt message's block's. One holding a numpy or pandas value is replaced in ``wire``
    by its JSON-ready copy.

    Raises:
        MetaNotSendable: ``"<where> meta cannot be sent: <what> at meta.<key> has no JSON form; <what to
            write>"``, or ``"... the value at meta.<key>… nests more than 128 levels deep ..."`` for one
            nested deeper than :data:`~nanohubmcp.protocol.nesting.MAX_JSON_DEPTH` (a TypeError).
    """
    _check(wire, what)
    for key, in_message in _ITEMS:
        items = wire.get(key)
        if type(items) is not list:
            continue
        for index, item in enumerate(items):
            block = item.get("content") if in_message and type(item) is dict else item
            if type(block) is not dict:
                continue
            where = f"{key}[{index}]{' content' if in_message else ''}"
            _check(block, f"{where} meta")
            inner = block.get("resource")
            if type(inner) is dict:
                _check(inner, f"{where} resource meta")


def _check(holder: dict[str, Any], what: str) -> None:
    meta = holder.get("_meta")
    if not meta:
        return
    failed = _unwritable(meta)
    if isinstance(failed, TypeError):  # numpy and pandas values, as in a tool's other values
        converted = convert.jsonable(meta)
        failed = _unwritable(converted)
        if failed is None:
            holder["_meta"] = converted
    if failed is not None:  # (ValueError: an int past Python's text limit, a dict holding itself, too deep)
        from ...schema.json_form import json_form_problem  # (the words for it: imported only to say it)

        raise MetaNotSendable(
            f"{what} cannot be sent: {json_form_problem(meta, [], root='meta', texts=False) or failed}")


def _unwritable(meta: object) -> Exception | None:
    """Why ``meta`` cannot be written (the writer's error, or a :class:`~.nesting.NestedTooDeep` past
    :data:`MAX_JSON_DEPTH` levels), or None."""
    try:
        text = jsonenc.dumps(meta)
    except (TypeError, ValueError) as exc:
        return exc
    if len(text) > 2 * MAX_JSON_DEPTH and nesting.nested_deeper_than(text, MAX_JSON_DEPTH):  # (most skip the look)
        return nesting.too_deep("the meta")
    return None
