"""A provenance record's result text written by orjson, when the ``fast`` extra is installed: the same text to
the byte as :func:`.result_text.result_text` (the wire's), made for less.

:func:`orjson_kept` gives what :func:`.result_text.kept_and_digest` and :func:`.result_text.resource_links` give
(the text kept, else its digest, and the resource links' URIs) for a result orjson writes as the wire writes it,
and None for any other, which the record then makes the long way. orjson writes plain JSON values (dicts, lists,
tuples, ``str``, ``int`` up to 64 bits, ``float``, ``bool``, None) as the wire's encoder does (compact, keys in the
dict's order, text as UTF-8 with the same escapes, NaN and the infinities as ``null``) except:

- a float below 1e-4 in magnitude: orjson spells ``1e-05`` as ``0.00001`` and ``1e-07`` as ``1e-7``; a text holding
  ``0.0000`` or ``e-`` and a lone digit (:data:`SPELLED_OTHERWISE`, looked for in orjson's bytes: a string holding
  it too goes the long way, never a wrong text) is not taken;
- an integer beyond 64 bits, a lone surrogate, a dict key that is not a ``str``, a ``str``/``int``/``dict``/``list``
  subclass (a table's known text), a dataclass, a date or time, nesting past 254 levels, anything else orjson has
  no form for: orjson refuses them (``TypeError``);
- pre-encoded data (an array's or table's ``structuredContent``, whose text the wire splices): not asked of orjson;
- an :class:`enum.Enum` that is not also a ``str``, ``int`` or ``float``: orjson writes its value, where the wire
  refuses the result (its client got an error, -32603) and the long way writes its ``str``. Only a middleware's
  result can hold one (the result converters make plain values).

Measured (bench/provenance.md, eighteenth pass, instructions): a structured result (``structuredContent`` of three
members and its text block) 34.5k the long way, 9.1k here; the commonest result, one text block, 6.6k by
:func:`.result_text.one_text_block`, 6.0k here (orjson's call ~2.9k, the text's checks: a ``str``'s ``in`` costs a
quarter of a ``bytes``' one, a regular expression's search more than orjson's whole call).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from ...protocol.accelerator import accelerator
from .result_text import MAX_KEPT_RESULT_BYTES, pre_encoded, resource_links

__all__ = ["SPELLED_OTHERWISE", "orjson_kept"]

SPELLED_OTHERWISE = re.compile(r"e-\d(?!\d)|0\.0000")
"""What orjson's text of a float below 1e-4 holds and Python's does not (``0.00001``, ``1e-7``; Python's exponent
has two digits at least). Python's spelling of the others is orjson's (checked over two million floats: every
float of either spelling of those is caught, bench/provenance.md)."""
_dumps: Callable[..., bytes] | None = None
_options = 0
_looked = False


def orjson_kept(result: dict[str, Any]) -> tuple[str | None, str | None, list[str]] | None:
    """``(text kept, digest, resource links)`` of ``result`` (a ``CallToolResult`` without ``_meta``): the text
    (:func:`.result_text.result_text`) when its UTF-8 form is at most :data:`.result_text.MAX_KEPT_RESULT_BYTES`
    long (the digest None: made when read), else None and ``"sha256:"`` and its hex SHA-256; None when orjson is
    not in use or may write the result otherwise than the wire (see the module)."""
    dumps = _dumps if _looked else _look_up()
    if dumps is None:
        return None
    structured = result.get("structuredContent")
    if structured is not None and pre_encoded(structured):
        return None
    try:
        data = dumps(result, option=_options)
    except TypeError:  # (orjson.JSONEncodeError is one)
        return None
    text = data.decode()  # (a str's `in` costs a quarter of a bytes' one)
    if ("e-" in text or "0.0000" in text) and SPELLED_OTHERWISE.search(text) is not None:
        return None
    links = resource_links(result) if '"resource' in text else []  # ("resource_link", "resource" blocks)
    if len(data) <= MAX_KEPT_RESULT_BYTES:
        return text, None, links
    return None, "sha256:" + hashlib.sha256(data).hexdigest(), links


def _look_up() -> Callable[..., bytes] | None:
    """``orjson.dumps`` when orjson is installed and in use (looked up once, at the first record: the writer
    thread imports it, never a call's path), else None."""
    global _dumps, _options, _looked
    orjson = accelerator()
    if orjson is not None:
        _dumps = orjson.dumps
        _options = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
    else:
        _dumps = None
    _looked = True
    return _dumps
