"""A client's value quoted by a refusal stays on one line whatever line break it holds (trial F5).

JSON escapes the control characters below U+0020 (``\\n`` is written ``\\\\n``), but with ``ensure_ascii=False``
it writes U+0085 (NEL), U+2028 (LINE SEPARATOR) and U+2029 (PARAGRAPH SEPARATOR) raw: ``str.splitlines``, a log
reader and a terminal break the answer and the log line there, and the client's text reads as lines of the server's.
"""

from __future__ import annotations

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.sources.units_text import shown

pytestmark = pytest.mark.timeout(60)

BREAKS = "a\nb\x85c\u2028d\u2029e\x1cf"
"""Every line break of ``str.splitlines`` JSON writes raw, beside two it escapes."""


def test_a_refusal_quoting_a_value_with_unicode_line_breaks_is_one_line() -> None:
    server = MCPServer("line-breaks")

    @server.tool()
    def count(n: int) -> int:
        """Counts."""
        return n

    server.start(port=0)
    try:
        answer = server.call("count", {"n": BREAKS})
    finally:
        server.stop()
    text = answer["content"][0]["text"]
    assert text == ("Invalid arguments for tool 'count': arguments.n: "
                    '"a\\nb\\u0085c\\u2028d\\u2029e\\u001cf" is not of type "integer"')
    assert text.splitlines() == [text]


def test_a_unit_texts_quote_is_one_line() -> None:
    assert shown("2\u2028m") == '"2\\u2028m"'
