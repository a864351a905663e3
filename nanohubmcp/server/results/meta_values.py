"""The ``_meta`` of a component's result and of its blocks, held to what JSON can write before it is sent.

``ToolResult(meta=...)``, ``ResourceResult``'s, ``PromptResult``'s and a content block's ``meta`` have their
keys checked where they are made (:func:`~nanohubmcp.protocol.wire.check_meta`); their values are checked
here, once the result is in wire form. A value JSON cannot hold (a set, an object of the application's, an
int of over 4,300 digits) is the component's own error, naming the key and what to write instead: a tool's
``isError`` result, a resource's or a prompt's failure. It was found only when the message was written:
-32603, with a log line that called it a bug of nanohubmcp (review r22 L1). numpy and pandas values are
converted first, as in a tool's other values.
"""

from __future__ import annotations

from typing import Any

from ...protocol import jsonenc
from . import convert

__all__ = ["check_meta_values"]

_ITEMS = (("content", False), ("contents", False), ("messages", True))
"""The lists of a result whose items carry a ``_meta`` (for ``messages``: each message's ``content`` block)."""


def check_meta_values(wire: dict[str, Any], what: str) -> None:
    """Check every ``_meta`` of ``wire`` (a ``CallToolResult``, ``ReadResourceResult`` or ``GetPromptResult``):
    its own (named ``what``: ``"ToolResult meta"``), each block's or item's (``content[0] meta``), an embedded
    resource's and each prompt message's block's. One holding a numpy or pandas value is replaced in ``wire``
    by its JSON-ready copy.

    Raises:
        TypeError: ``"<where> meta cannot be sent: <what> at meta.<key> has no JSON form; <what to write>"``.
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

        raise TypeError(f"{what} cannot be sent: {json_form_problem(meta, [], root='meta', texts=False) or failed}")


def _unwritable(meta: object) -> Exception | None:
    try:
        jsonenc.dumps(meta)
    except (TypeError, ValueError) as exc:
        return exc
    return None
