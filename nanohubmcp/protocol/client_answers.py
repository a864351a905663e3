"""The shapes of a client's answers to what a server asks it: elicitation, sampling, roots.

A server asks its client three things (``elicitation/create``, ``sampling/createMessage``,
``roots/list``). In the handshake era the answer is the ``result`` of a JSON-RPC response to the
server's request (``server/wire/pending``, for every transport); in 2026-07-28 it is a value of a
retried request's ``inputResponses`` or of a task's ``tasks/update`` (``server/asks/input_requests``).
Both hold it to :func:`answer_problem` before the function that asked sees it, so a tool never
reads ``answer["action"]`` off an answer that has none. Each text names what is wrong and what the
spec asks for; a client's value named back is cut short (:func:`short`).

Only the members the spec defines are checked; others (``_meta``, a newer revision's fields) pass,
and so does an elicitation's ``content`` where the spec has none with a refusal (declined, cancelled)
or null: it means nothing there.
An elicitation's accepted ``content`` is held to the requested schema besides, by the caller
(``server/asks/context_asks``).

A client may refuse instead, with a JSON-RPC ``error``; :func:`error_problem` holds that member to
JSON-RPC's shape (an object with an integer ``code`` and a string ``message``), so a malformed one
is named as such rather than read as a refusal.

Source: JSON-RPC 2.0 § 5 and § 5.1 (a response has ``result`` or ``error``, never both; the error
object); MCP 2025-11-25 schema (and 2026-07-28, unchanged): ``ElicitResult`` (``action``; ``content``
"only present when action is accept and mode was form", values string, number, boolean or string
array), ``CreateMessageResult`` (``role``, ``content``: a block or a list of blocks, each text,
image, audio, tool_use or tool_result with its members, ``model``, ``stopReason``?),
``ListRootsResult`` (``roots``: ``Root`` with a ``file://`` ``uri``, ``name``?); RFC 3986 § 3.1 (a
scheme in any case: ``FILE:///work`` is a file URI).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from .message_values import show
from .uris import fold_scheme

ELICIT: Final = "elicitation/create"
SAMPLE: Final = "sampling/createMessage"
ROOTS: Final = "roots/list"

ACTIONS: Final = ("accept", "decline", "cancel")
"""The three answers a user gives to an elicitation."""

SHAPES: Final = {
    ELICIT: '{"action": "accept"|"decline"|"cancel", "content"?: {...}}',
    SAMPLE: '{"role": "user"|"assistant", "content": {"type": ...}, "model": "...", "stopReason"?: "..."}',
    ROOTS: '{"roots": [{"uri": "file:///...", "name"?: "..."}]}',
}
"""Each method's result as the spec writes it, for error texts."""

SHOWN_CHARACTERS: Final = 60
"""How much of a client's value an error text names back, at most."""


def short(value: object) -> str:
    """``value`` in JSON (:func:`~.message_values.show`), cut to :data:`SHOWN_CHARACTERS`."""
    if isinstance(value, (dict, list)) and len(value) > SHOWN_CHARACTERS:
        return "{...}" if isinstance(value, dict) else "[...]"  # never write out a huge answer to cut it
    if isinstance(value, str) and len(value) > SHOWN_CHARACTERS:
        value = value[:SHOWN_CHARACTERS]
    text = show(value)
    return text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + "..."


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "an object" if isinstance(value, Mapping) else type(value).__name__


def _elicitation(answer: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    if "action" not in answer:
        return 'has no "action" (accept, decline or cancel)'
    action = answer["action"]
    if not isinstance(action, str) or action not in ACTIONS:
        return f'has "action" {short(action)}: it must be "accept", "decline" or "cancel"'
    content = answer.get("content")
    if content is None or action != "accept":
        # The spec has content only with "accept", and its prose says it is "typically omitted"
        # otherwise: a client that sends it with a refusal (or null) is not refused for it; it means
        # nothing there, and the function that asked reads "action" first.
        return None
    if params.get("mode") == "url":
        return 'carries "content" in URL mode: what the user enters there never passes through the client'
    if not isinstance(content, Mapping):
        return f'has "content" {short(content)}: it must be an object of the form\'s values'
    for name, value in content.items():
        if not _form_value(value):
            return (f"has content.{str(name)[:SHOWN_CHARACTERS]} {short(value)}: a form's value is a string, "
                    "a number, a boolean or a list of strings")
    return None


def _form_value(value: object) -> bool:
    if isinstance(value, (str, bool, int, float)):
        return True
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _sampling(answer: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    role = answer.get("role")
    if not isinstance(role, str) or role not in ("user", "assistant"):
        if "role" not in answer:
            return 'has no "role" ("assistant" or "user")'
        return f'has "role" {short(role)}: it must be "assistant" or "user"'
    if "content" not in answer:
        return 'has no "content" (a content block {"type": "text", "text": ...} or a list of blocks)'
    content = answer["content"]
    blocks = content if isinstance(content, list) else [content]
    for index, block in enumerate(blocks):
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            return (f'has "content" {short(content)}: it must be a content block {{"type": "text", "text": ...}} '
                    "or a list of blocks")
        problem = _block_problem(f"content[{index}]" if isinstance(content, list) else "content", block)
        if problem is not None:
            return problem
    if not isinstance(answer.get("model"), str):
        if "model" not in answer:
            return 'has no "model" (the name of the model that answered)'
        return f'has "model" {short(answer["model"])}: it must be the name of the model that answered, a string'
    if "stopReason" in answer and not isinstance(answer["stopReason"], str):
        return f'has "stopReason" {short(answer["stopReason"])}: it must be a string ("endTurn", ...)'
    return None


SAMPLED_BLOCKS: Final[dict[str, dict[str, type]]] = {
    "text": {"text": str},
    "image": {"data": str, "mimeType": str},
    "audio": {"data": str, "mimeType": str},
    "tool_use": {"id": str, "name": str, "input": Mapping},
    "tool_result": {"toolUseId": str, "content": list},
}
"""The content blocks of a sampling answer (``SamplingMessageContentBlock``; the two tool blocks since
2025-11-25, with ``sampling.tools``) and the members each must have, of these types."""

_SPELLED: Final[dict[type, str]] = {str: "a string", Mapping: "an object", list: "a list"}


def _block_problem(where: str, block: Mapping[str, Any]) -> str | None:
    kind = block["type"]
    members = SAMPLED_BLOCKS.get(kind)
    if members is None:
        kinds = ", ".join(f'"{name}"' for name in SAMPLED_BLOCKS)
        return f"has {where}.type {short(kind)}: a sampled block's type is one of {kinds}"
    for name, of in members.items():
        if name not in block:
            shape = ", ".join(f'"{member}": ...' for member in members)
            article = "an" if kind[0] in "aeiou" else "a"
            return f'has {where} without "{name}": {article} {kind} block is {{"type": "{kind}", {shape}}}'
        if not isinstance(block[name], of):
            return f"has {where}.{name} {short(block[name])}: it must be {_SPELLED[of]}"
    return None


def _roots(answer: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    if not isinstance(answer.get("roots"), list):
        if "roots" not in answer:
            return 'has no "roots" (a list of {"uri": "file:///...", "name"?: ...})'
        return f'has "roots" {short(answer["roots"])}: it must be a list of {{"uri": "file:///...", "name"?: ...}}'
    for index, root in enumerate(answer["roots"]):
        where = f"roots[{index}]"
        if not isinstance(root, Mapping):
            return f'has {where} {short(root)}: a root is an object {{"uri": "file:///...", "name"?: ...}}'
        uri = root.get("uri")
        if not isinstance(uri, str):
            return f'has {where} without a "uri" string' if "uri" not in root else \
                f"has {where}.uri {short(uri)}: it must be a file:// URI, a string"
        if not fold_scheme(uri).startswith("file://"):  # FILE:/// too: a scheme has no case (RFC 3986 § 3.1)
            return f"has {where}.uri {short(uri)}: a root is a file:// URI"
        if "name" in root and not isinstance(root["name"], str):
            return f"has {where}.name {short(root['name'])}: it must be a string"
    return None


_CHECKS: Final[dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], str | None]]] = {
    ELICIT: _elicitation,
    SAMPLE: _sampling,
    ROOTS: _roots,
}


ERROR_SHAPE: Final = '{"code": <integer>, "message": "...", "data"?: ...}'
"""A JSON-RPC error object as the specification writes it, for error texts."""


def error_problem(method: str, reply: Mapping[str, Any]) -> str | None:
    """What is wrong with the ``error`` member of the client's ``reply`` to ``method``; None when
    it is a JSON-RPC error object (the client refused, and says why in its ``message``).

    Args:
        method: the server's request the client answered.
        reply: the client's response, a JSON-RPC message with an ``error`` member.
    Returns:
        One sentence, e.g. ``the client's answer to roots/list has error.code "x": it must be an
        integer``, or None.
    """
    error = reply.get("error")
    if "result" in reply:
        problem = 'has both "result" and "error": a JSON-RPC response carries one of them'
    elif not isinstance(error, Mapping):
        problem = f'has "error" {short(error)}: a JSON-RPC error is an object {ERROR_SHAPE}'
    elif "code" not in error:
        problem = f'has an "error" without "code": a JSON-RPC error is an object {ERROR_SHAPE}'
    elif not isinstance(error["code"], int) or isinstance(error["code"], bool):
        problem = f"has error.code {short(error['code'])}: it must be an integer"
    elif "message" not in error:
        problem = f'has an "error" without "message": a JSON-RPC error is an object {ERROR_SHAPE}'
    elif not isinstance(error["message"], str):
        problem = f"has error.message {short(error['message'])}: it must be a string"
    else:
        return None
    return f"the client's answer to {method} {problem}"


def answer_problem(method: str, answer: object, params: Mapping[str, Any] | None = None) -> str | None:
    """What is wrong with ``answer`` as the client's result for ``method``; None when nothing is.

    Args:
        method: ``"elicitation/create"``, ``"sampling/createMessage"`` or ``"roots/list"``
            (another method: None, nothing to check).
        answer: the client's result, parsed JSON.
        params: the params the server sent (an elicitation's ``mode``); None: none.
    Returns:
        One sentence, e.g. ``the client's answer to elicitation/create has no "action" (accept,
        decline or cancel)``, or None.
    """
    check = _CHECKS.get(method)
    if check is None:
        return None
    problem: str | None
    if not isinstance(answer, Mapping):
        problem = f"is {_kind(answer)}, not an object {SHAPES[method]}"
    else:
        problem = check(answer, params or {})
    return None if problem is None else f"the client's answer to {method} {problem}"
