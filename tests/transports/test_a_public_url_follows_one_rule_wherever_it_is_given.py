"""A public URL is checked by one rule (``transports.public_url.checked_public_url``) wherever it is given:
``run(public_url=...)``, ``--public-url`` / ``$MCP_PUBLIC_URL``, ``%config NanohubMCP.public_url``, the export
of a notebook setting it, ``start_mcp --public-url``. A space or a control character in the HOST (not the
path) passed ``%config`` and the export, which looked at the path only, while ``run()`` refused it: the
notebook's running server stopped when it restarted with it, and the exported script exited at start
(trial33 W2). A value the rule refuses is refused by every one of them, one line naming the setting. Port 0, a
``%`` not followed by two hex digits and an empty or hyphen-bounded DNS label were taken (trial35 Y14), as were a
DNS label over 63 octets and a host ending in a number that is no IPv4 address, ``1.2.3.999`` (trial38 T3)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from traitlets import TraitError

from nanohubmcp import ConfigurationError
from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.jupyter.translate import translate
from nanohubmcp.nanohub.proxy import detect_proxy, override
from nanohubmcp.transports.config import TransportConfig
from nanohubmcp.transports.proxy_option import public_url
from nanohubmcp.transports.public_url import checked_public_url

IN_THE_HOST = ["https://h\n.com/", "https://h .com/", "https://h\t.com/", "https://h\r.com/", "https://h\x00/",
               "https://h:80\n/", "https://h\x7f/"]
LONGEST = f"{'a' * 62}.{'b' * 62}.{'c' * 62}.{'d' * 62}.o"  # 253 characters: the longest DNS name
TOOL = '%%mcp_tool\ndef add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n'


def why(url: str) -> str:
    with pytest.raises(ConfigurationError) as caught:
        checked_public_url(url)
    return str(caught.value)


@pytest.mark.parametrize("url", IN_THE_HOST)
def test_a_space_or_control_character_in_the_host_is_refused_everywhere(url: str) -> None:
    reason = why(url)
    assert reason.startswith(f"{url!r} holds a "), reason
    assert "\n" not in reason.replace(repr(url), "")  # one line, the value shown escaped
    with pytest.raises(ConfigurationError) as at_run:
        TransportConfig(public_url=url)  # run()
    assert str(at_run.value) == f"public_url {reason}"
    with pytest.raises(argparse.ArgumentTypeError) as usage:
        public_url(url)  # --public-url, $MCP_PUBLIC_URL
    assert str(usage.value) == reason
    settings = NanohubMCP(public_url="https://before.example/")
    with pytest.raises(TraitError) as refused:
        settings.public_url = url  # %config NanohubMCP.public_url = ...
    assert str(refused.value) == f"NanohubMCP.public_url: {reason}"
    assert settings.public_url == "https://before.example/"
    with pytest.raises(ConfigurationError) as at_start:
        override(detect_proxy({}, port=8000), public_url=url)  # start_mcp --public-url
    assert str(at_start.value) == f"public_url {reason}"


def test_the_export_of_such_a_setting_is_refused() -> None:
    cell = "%config NanohubMCP.public_url = 'https://h\\n.com/'"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in (TOOL, cell)])
    with pytest.raises(NanohubMCPError) as caught:
        translate(notebook, source="nb.ipynb", format_code=False)
    assert f"NanohubMCP.public_url: {why('https://h' + chr(10) + '.com/')}" in str(caught.value)


@pytest.mark.parametrize(("url", "message"), [
    ("https://h\"x/", "the host holds a character no host name holds"),
    ("https://h/?", "without user, query or fragment"),
    ("https://h/x?y=1", "without user, query or fragment"),  # run() served a base URL with a query
    ("https://h/a/../b/", "a '.'/'..' segment"),
    ("ftp://h/", "is not an http:// or https:// URL with a host"),
    # trial35 Y14: each was taken, a URL no client can use
    ("https://x.org:0/", "port 0 is no port a client can reach"),
    ("https://x.org/%zz", "a '%' not followed by two hex digits"),
    ("https://x.org/a%2", "a '%' not followed by two hex digits"),
    ("https://x%zz.org/", "the host holds a character no host name holds"),
    ("https://x..org/", "the host has an empty name between dots"),
    ("https://-x.org/", "one that begins or ends with '-'"),
    ("https://x-.org/", "one that begins or ends with '-'"),
    ("https://.x.org/", "the host has an empty name between dots"),
    # trial38 T3: no client resolves or parses these
    (f"http://{'a' * 64}.org", "the host has a name longer than 63 characters between dots"),
    (f"http://ü{'a' * 58}.org", "the host has a name longer than 63 characters between dots"),  # xn--...: 64
    (f"http://{LONGEST}r", "or is longer than 253 in all"),
    ("http://1.2.3.999", "the host '1.2.3.999' ends in a number, so clients read it as an IPv4 address"),
    ("http://x.org.1/", "the host 'x.org.1' ends in a number"),
    ("http://127.1/", "which it is not (four numbers 0-255"),  # 127.0.0.1 to a browser: its Origin says so
    ("http://0x7f.0.0.1/", "ends in a number"),
    ("http://01.2.3.4/", "no leading zeros"),  # octal to a browser
    # trial41 Q10: a port out of range got the message for no URL; '//' was advertised
    ("http://1.2.3.4:65536", "the port '65536' is no port a client can reach; give a number from 1 to 65535"),
    ("http://x.org:99999999999999999999", "the port '99999999999999999999' is no port"),
    ("http://x.org:80:80", "the port '80:80' is no port"),
    ("http://[::1]:70000/", "the port '70000' is no port"),
    ("http://x.org//a", "an empty one ('//')"),
    ("http://x.org/a//b/", "an empty one ('//')"),
])
def test_other_urls_the_rule_refuses(url: str, message: str) -> None:
    assert message in why(url)
    with pytest.raises(ConfigurationError) as at_run:
        TransportConfig(public_url=url)
    assert str(at_run.value) == f"public_url {why(url)}"


@pytest.mark.parametrize(("url", "checked"), [
    ("https://tools.example.org", "https://tools.example.org/"),
    (" https://tools.example.org/me\n", "https://tools.example.org/me/"),  # a line break read from a file
    ("https://[::1]:8443/x", "https://[::1]:8443/x/"),
    ("https://ünï.example/", "https://xn--n-nga1b.example/"),  # the ASCII (IDNA) form clients send
    ("https://BÜCHER.example:0080", "https://xn--bcher-kva.example:80/"),
    ("http://x.org:/a", "http://x.org/a/"),  # an empty port is none (RFC 3986 § 6.2.3)
    ("https://h/my%20tool/", "https://h/my%20tool/"),
    ("https://tools.example.org.:8443/A%2fb", "https://tools.example.org.:8443/A%2fb/"),  # a fully qualified name
    ("https://x-y.example/", "https://x-y.example/"),
    ("http://127.0.0.1:1/", "http://127.0.0.1:1/"),
    (f"http://{'a' * 63}.org", f"http://{'a' * 63}.org/"),
    (f"http://{LONGEST}.", f"http://{LONGEST}./"),
    ("http://a_b.org/", "http://a_b.org/"),
    ("http://x.1a/", "http://x.1a/"),
])
def test_a_good_url_is_taken_with_one_trailing_slash(url: str, checked: str) -> None:
    assert checked_public_url(url) == checked
    assert TransportConfig(public_url=url).public_url == checked


@pytest.mark.parametrize("url", ["https://x.org:0/", "https://x.org/%zz", "https://x..org/", "https://-x.org/",
                                 f"http://{'a' * 64}.org", "http://1.2.3.999",
                                 "http://x.org:65536", "http://x.org//a"])
def test_a_url_no_client_can_use_is_refused_in_one_line_everywhere(url: str) -> None:
    reason = why(url)
    assert "\n" not in reason
    with pytest.raises(argparse.ArgumentTypeError) as usage:
        public_url(url)  # --public-url, $MCP_PUBLIC_URL
    assert str(usage.value) == reason
    with pytest.raises(TraitError) as refused:
        NanohubMCP().public_url = url
    assert str(refused.value) == f"NanohubMCP.public_url: {reason}"


def test_a_path_prefix_with_a_bad_percent_escape_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="is not a URL path"):
        TransportConfig(path_prefix="/tools%zz")
    assert TransportConfig(path_prefix="/my%20tools").path_prefix == "/my%20tools"


def test_nanohubmcp_run_refuses_it_as_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text('from nanohubmcp import MCPServer\nserver = MCPServer("app")\n')
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "run", "app.py", "--public-url", "https://h .com/"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("usage: nanohubmcp run ")
    assert "argument --public-url: 'https://h .com/' holds a space" in done.stderr
