"""``%config NanohubMCP.path_prefix`` / ``public_url`` are checked as ``nanohubmcp run``'s ``--path-prefix`` /
``--public-url`` are: a query, a space or a user name and password is refused in one line naming the setting,
the setting keeps its value and a running server keeps serving at its URL. ``/x?y=1`` was served (its URL sent
clients to ``/x`` with a query), and ``ftp://x/`` stopped the running server (trial30 T8), as a line break or a
space in the host did (trial33 W2)."""

from __future__ import annotations

import pytest
from kernels import LiveKernel

pytestmark = pytest.mark.slow

TOOL = "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b"


@pytest.mark.parametrize(
    ("setting", "why"),
    [
        ("path_prefix = '/x?y=1'", "NanohubMCP.path_prefix: '/x?y=1' is not a URL path: give the path alone, e.g. "
                                   "/tools (no scheme, host, query, spaces, '.'/'..' segments or empty ones "
                                   "('//')); the setting is unchanged"),
        ("path_prefix = 'a b'", "NanohubMCP.path_prefix: 'a b' is not a URL path"),
        ("public_url = 'https://u:p@h/x/'", "NanohubMCP.public_url: 'https://u:p@h/x/': give the base URL only "
                                            "(scheme, host, optional port and path), without user, query or fragment"),
        ("public_url = 'ftp://x/'", "NanohubMCP.public_url: 'ftp://x/' is not an http:// or https:// URL with a host"),
        # trial32 V6: a space or a line break in the path was taken (a line break made every 401 a 500), and a
        # dot segment in the prefix served a URL a client normalizes to another path.
        ("public_url = 'https://h/ x'", "NanohubMCP.public_url: 'https://h/ x' holds a space"),
        ("public_url = 'https://h/x\\r\\nX-Injected: 1'", "NanohubMCP.public_url: 'https://h/x\\r\\nX-Injected: 1' "
                                                         "holds a control character (U+000D)"),
        # trial33 W2: in the host it was taken, and the server stopped when it restarted with it
        ("public_url = 'https://h\\n.com/'", "NanohubMCP.public_url: 'https://h\\n.com/' holds a control character"),
        ("public_url = 'https://h .com/'", "NanohubMCP.public_url: 'https://h .com/' holds a space"),
        ("path_prefix = '/x/../y'", "NanohubMCP.path_prefix: '/x/../y' is not a URL path"),
        ("path_prefix = '/%2e%2e/y'", "NanohubMCP.path_prefix: '/%2e%2e/y' is not a URL path"),
    ],
)
def test_the_value_is_refused_and_the_server_keeps_serving(kernel: LiveKernel, setting: str, why: str) -> None:
    kernel.run_ok(TOOL)
    url = kernel.run_ok("u = %mcp url\nprint(u)").text
    before = kernel.run_ok("%config NanohubMCP").text
    cell = kernel.run_ok(f"%config NanohubMCP.{setting}")
    assert cell.stderr.startswith(f"UsageError: {why}"), cell.stderr
    assert "restart" not in cell.text
    assert kernel.run_ok("%config NanohubMCP").text == before
    assert "serving on" in kernel.run_ok("%mcp status").text
    assert kernel.run_ok("u = %mcp url\nprint(u)").text == url
    assert kernel.run_ok('r = %mcp call add {\"a\": 2, \"b\": 3}\nprint(r.text)').text.strip() == "5"


def test_a_good_value_is_taken(kernel: LiveKernel) -> None:
    kernel.run_ok(TOOL)
    kernel.run_ok("%config NanohubMCP.path_prefix = '/calc'")
    assert kernel.run_ok("u = %mcp url\nprint(u)").text.strip().endswith("/calc/mcp")
