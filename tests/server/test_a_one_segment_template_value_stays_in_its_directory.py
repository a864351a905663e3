"""trial19 F1: a one-segment template variable (``{name}``) never receives ``/``, ``\\``, NUL, ``.`` or
``..`` from a percent-encoded URI, so a resource function that joins it to a directory stays there.

The docs call ``{name}`` "one segment" and warn only about ``{+path}`` and ``{path*}``, so a reader
writes ``open(os.path.join(base, name))``. Values arrive percent-decoded, and ``file://data/..%2Fsecret``
gave ``name == "../secret"``: the function read a file outside its directory (the trial read
/etc/hostname). Now such a URI does not match the template: "resource not found" (-32002), unless a
template that may hold ``/`` takes it. The multi-segment example the docs give (resolve under the root,
refuse what lands outside) is checked here too.

Source: RFC 6570 § 3.2.2 (simple expansion percent-encodes ``/``); MCP 2025-11-25, Server § Resources §
Resource Templates and § Error Handling (-32002 for a resource not found).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, post_rpc, serve

from nanohubmcp import MCPServer, ResourceNotFound

RESOURCE_NOT_FOUND = -32002


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/data/{ok.txt, a b.txt, sub/deep.txt, out -> ../secret.txt} and tmp/secret.txt beside data/."""
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "ok.txt").write_text("fine")
    (data / "a b.txt").write_text("spaced")
    (data / "sub" / "deep.txt").write_text("deep")
    (tmp_path / "secret.txt").write_text("SECRET")
    (data / "out").symlink_to(tmp_path / "secret.txt")
    return tmp_path


def build(root: Path) -> MCPServer:
    server = MCPServer("files")
    base = str(root / "data")

    def read(name: str) -> str:
        with open(os.path.join(base, name)) as stream:
            return stream.read()

    @server.resource("file://data/{name}")
    def one(name: str) -> str:
        """Written as the trial wrote it: the docs said {name} is one segment."""
        with open(os.path.join(base, name)) as stream:
            return stream.read()

    server.resource("seg://x{/name}", name="segment")(read)
    server.resource("label://x{.name}", name="label")(lambda name: read(name + ".txt"))  # a label holds no "."
    server.resource("param://x{;name}", name="parameter")(read)
    server.resource("pair://{a},{b}", name="pair")(lambda a, b: read(a) + read(b))

    data = (root / "data").resolve()

    @server.resource("tree://data/{+path}")
    def data_file(path: str) -> str:
        """The docs' example (API summary, "Resources that read files")."""
        target = data.joinpath(path).resolve() if "\0" not in path else None
        if target is None or not target.is_relative_to(data) or not target.is_file():
            raise ResourceNotFound(f"no file {path!r} under data/")
        return target.read_text()

    return server


def hostile(root: Path) -> list[str]:
    secret = quote(str(root / "secret.txt"), safe="")  # an absolute path, every "/" encoded
    return [
        "file://data/..%2Fsecret.txt",
        "file://data/%2E%2E%2Fsecret.txt",
        "file://data/%2e%2e%2fsecret.txt",
        "file://data/sub%2F..%2F..%2Fsecret.txt",
        "file://data/" + secret,
        "file://data/..",
        "file://data/%2E%2E",
        "file://data/.",
        "file://data/%2E",
        "file://data/..%5Csecret.txt",
        "file://data/ok.txt%00",
        "seg://x/..%2Fsecret.txt",
        "seg://x/%2E%2E",
        "label://x.%2E%2E%2Fsecret",
        "param://x;name=..%2Fsecret.txt",
        "param://x;name=..",
        "pair://ok.txt,..%2Fsecret.txt",
        "pair://..,ok.txt",
    ]


def escapes_of_the_multi_segment_example(root: Path) -> list[str]:
    return [
        "tree://data/../secret.txt",
        "tree://data/sub/../../secret.txt",
        "tree://data/..%2Fsecret.txt",
        "tree://data/" + quote(str(root / "secret.txt"), safe=""),
        "tree://data/out",  # a symbolic link pointing out of data/
        "tree://data/ok.txt%00",
        "tree://data/sub",  # a directory
    ]


READABLE = [
    ("file://data/ok.txt", "fine"),
    ("file://data/a%20b.txt", "spaced"),  # still percent-decoded
    ("seg://x/ok.txt", "fine"),
    ("label://x.ok", "fine"),
    ("param://x;name=a%20b.txt", "spaced"),
    ("pair://ok.txt,a%20b.txt", "finespaced"),
    ("tree://data/sub/deep.txt", "deep"),
    ("tree://data/sub/../ok.txt", "fine"),  # ".." that stays inside is fine
]


@pytest.fixture
def url(tree: Path) -> Iterator[str]:
    with serve(build(tree)) as base:
        yield base


@pytest.mark.anyio
async def test_the_official_client_cannot_read_outside_the_directory(tree: Path, url: str) -> None:
    with anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            for uri in hostile(tree) + escapes_of_the_multi_segment_example(tree):
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(uri)
                assert refused.value.code == RESOURCE_NOT_FOUND, (uri, refused.value.message)
                assert "SECRET" not in refused.value.message
            for uri, text in READABLE:
                read = await client.read_resource(uri)
                assert read.contents[0].text == text, uri


def test_posted_json_rpc_is_refused_the_same(tree: Path, url: str) -> None:
    """The trial's own request: ``POST /`` with no session."""
    for uri in hostile(tree):
        answer = post_rpc(url, "resources/read", {"uri": uri}, path="")
        assert answer.get("error", {}).get("code") == RESOURCE_NOT_FOUND, (uri, answer)
        assert answer["error"]["message"].startswith(f"Resource not found: {uri}"), answer
    assert post_rpc(url, "resources/read", {"uri": "file://data/ok.txt"}, path="")["result"]["contents"][0][
        "text"] == "fine"


def test_a_template_that_may_hold_slashes_still_takes_such_a_uri() -> None:
    """The URI is not refused outright: it only does not match the one-segment template, so a
    ``{+path}`` template answers it (with the decoded ``/``), as it answers ``logs/2026/today``."""
    server = MCPServer("routes")

    @server.resource("files://logs/{name}")
    def log(name: str) -> str:
        return f"log {name}"

    @server.resource("files://{+path}")
    def anything(path: str) -> str:
        return f"file {path}"

    with serve(server) as base:
        for uri, text in [("files://logs/today", "log today"), ("files://logs/a%2Fb", "file logs/a/b"),
                          ("files://logs/%2E%2E", "file logs/.."), ("files://logs/...", "log ...")]:
            assert post_rpc(base, "resources/read", {"uri": uri})["result"]["contents"][0]["text"] == text


@pytest.mark.parametrize(("value", "why"), [
    ("a%2Fb", "cannot hold an escaped / or \\ (%2F, %5C) or NUL (%00)"),
    ("%2F", "cannot hold an escaped / or \\ (%2F, %5C) or NUL (%00)"),
    ("a%5Cb", "cannot hold an escaped / or \\ (%2F, %5C) or NUL (%00)"),
    ("%2E%2E", "cannot be . or .."),
])
def test_the_refusal_says_why(value: str, why: str) -> None:
    """trial26 F11: an RFC 6570 client expands {term} = "a/b" to ``a%2Fb``; it was told only "Resource not
    found", as if nothing were there. The message now names the template, the variable and what it cannot
    hold (still -32002: another template may take such a URI, and none here does)."""
    server = MCPServer("search")

    @server.resource("q://search/{term}")
    def search(term: str) -> str:
        return f"hits for {term}"

    with serve(server) as base:
        uri = f"q://search/{value}"
        error = post_rpc(base, "resources/read", {"uri": uri})["error"]
        assert error["code"] == RESOURCE_NOT_FOUND
        assert error["message"] == (
            f"Resource not found: {uri} (the template 'q://search/{{term}}' would take it, but its one-segment "
            f"variable {{term}} {why}, so that a function joining it to a directory stays in that directory; a "
            "variable that may hold / is written {+term})")
        assert error["data"] == {"uri": uri, "uri_template": "q://search/{term}", "variable": "term"}
        # Other escapes are decoded and passed, and a URI no template fits is still plainly not found.
        assert post_rpc(base, "resources/read", {"uri": "q://search/a%3Fb"})["result"]["contents"][0][
            "text"] == "hits for a?b"
        missing = post_rpc(base, "resources/read", {"uri": "q://other/a%2Fb"})["error"]
        assert missing["message"] == "Resource not found: q://other/a%2Fb"
