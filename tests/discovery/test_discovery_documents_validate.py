"""Discovery documents built from the server's own metadata validate against their schemas (tests/discovery/
schemas/README.md names each source) and are served where the drafts say: ``nanohubmcp server-json`` writes the
registry's server.json (remotes = the weber URL on a nanoHUB session); every server serves its Server Card at
``<base>mcp/server-card`` and the MCP and AI catalogs under ``<base>.well-known/``, behind its token and under
its path prefix, from a script and from an exported notebook's start_mcp.py alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from support import serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = Path(__file__).resolve().parent / "schemas"
CARD_TYPE = "application/mcp-server-card+json"


def validator(name: str) -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMAS / name).read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


SERVER_JSON = validator("server.schema.json")
CARD = validator("server-card.schema.json")
MCP_CATALOG = validator("mcp-catalog.schema.json")
AI_CATALOG = validator("ai-catalog.schema.json")


def valid(check: jsonschema.protocols.Validator, document: Any) -> None:
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in check.iter_errors(document)]
    assert not errors, "\n".join(errors)


def get(url: str, token: str | None = None) -> tuple[int, str, Any]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers["Content-Type"], json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], json.loads(error.read() or b"null")


def server_json(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "server-json", *args],
        capture_output=True, text=True, timeout=60, cwd=ROOT, stdin=subprocess.DEVNULL,
        env={**{k: v for k, v in os.environ.items() if k not in ("SESSION", "SESSIONDIR")}, **(env or {})},
    )  # fmt: skip


def test_the_schemas_refuse_what_they_should() -> None:
    """The vendored schemas can fail: a name without a slash, a 101-character description, a v2 card."""
    good = {"name": "org.example/calc", "description": "d", "version": "1.0.0"}
    valid(SERVER_JSON, good)
    assert not SERVER_JSON.is_valid({**good, "name": "calc"})
    assert not SERVER_JSON.is_valid({**good, "description": "x" * 101})
    card = {"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json", **good}
    valid(CARD, card)
    assert not CARD.is_valid({**card, "$schema": card["$schema"].replace("/v1/", "/v2/")})
    assert not CARD.is_valid({**card, "packages": []})
    assert not MCP_CATALOG.is_valid({"specVersion": "draft", "entries": [{"identifier": "x"}]})
    assert not AI_CATALOG.is_valid({"specVersion": "1.0", "entries": [{"identifier": "x", "type": "t"}]})


def test_server_json_for_a_script_has_the_pypi_package_and_no_loopback_remote() -> None:
    done = server_json("examples/simple/start_mcp.py")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    valid(SERVER_JSON, document)
    assert document["$schema"] == "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    assert document["name"] == "local/simple-calculator"
    (package,) = document["packages"]
    assert package["registryType"] == "pypi"
    assert package["identifier"] == "nanohub-mcp"
    assert package["transport"] == {"type": "stdio"}
    assert [a.get("value") for a in package["packageArguments"]] == ["run", "start_mcp.py", "stdio"]
    assert "remotes" not in document


@pytest.mark.timeout(400)
def test_server_json_for_a_rappture_tool_or_a_sim2l_runs_the_command_serving_it(tmp_path: Path) -> None:
    """A tool.xml or a Sim2L notebook is described as ``nanohubmcp rappture``/``sim2l`` serves it, and its package
    runs that command (trial67 F5: ``server-json tool.xml`` was refused, pointing to serving it, which writes no
    server.json)."""
    for path, command, name, about in (
            ("examples/rappture/fermi/tool.xml", "rappture", "local/fermi", "Fermi-Dirac function: Plots the"),
            ("examples/sim2l/cooling/cooling.ipynb", "sim2l", "local/cooling", "Newton's law of cooling: the")):
        done = subprocess.run(
            [sys.executable, "-m", "nanohubmcp", "server-json", path], capture_output=True, text=True, timeout=300,
            cwd=ROOT, stdin=subprocess.DEVNULL, env={**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / command)})
        assert done.returncode == 0, done.stderr
        document = json.loads(done.stdout)
        valid(SERVER_JSON, document)
        assert document["name"] == name
        assert about in document["description"]
        (package,) = document["packages"]
        assert [a.get("value") for a in package["packageArguments"]] == [command, Path(path).name, "stdio"]


def token_header(remote: dict[str, Any]) -> dict[str, Any]:
    """The one header ``remote`` declares, checked to be the bearer token's (a secret input, no value)."""
    (header,) = remote["headers"]
    assert header["name"] == "Authorization"
    assert header["value"] == "Bearer {token}"
    assert header["isRequired"] is True
    assert header["isSecret"] is True
    assert header["variables"]["token"]["isSecret"] is True
    return dict(header)


def test_server_json_of_an_app_with_auth_declares_the_token_it_starts_with(tmp_path: Path) -> None:
    """trial28 T13: an app with ``auth=`` got a stdio package that cannot start without ``MCP_TOKEN``
    (``nanohubmcp run`` refuses: "set MCP_TOKEN") and declared no such variable, nor its remotes a header."""
    app = tmp_path / "guarded.py"
    app.write_text(
        "from nanohubmcp import MCPServer\n"
        "def check(token):\n"
        "    return 'alice' if token == 'alice-token' else None\n"
        "server = MCPServer('guarded', auth=check)\n"
        "@server.tool()\n"
        "def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
    )
    done = server_json(str(app), "--public-url", "https://tools.example.org/guarded/")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    valid(SERVER_JSON, document)
    (package,) = document["packages"]
    (variable,) = package["environmentVariables"]
    assert variable["name"] == "MCP_TOKEN"
    assert variable["isRequired"] is True
    assert variable["isSecret"] is True
    assert "token" in variable["description"]
    for remote in document["remotes"]:
        token_header(remote)

    plain = json.loads(server_json("examples/simple/start_mcp.py", "--public-url", "https://x.example.org/").stdout)
    valid(SERVER_JSON, plain)
    assert "environmentVariables" not in plain["packages"][0]
    assert all("headers" not in remote for remote in plain["remotes"])


def test_server_json_on_a_nanohub_session_keeps_the_session_url_out_of_remotes(tmp_path: Path) -> None:
    # trial16 F5: the weber URL embeds the session's filexfer cookie (a secret) and dies with the session;
    # it went into remotes of a document meant for the public registry, without a word.
    (tmp_path / "resources").write_text(
        "hub_url https://nanohub.org/\nfilexfer_port 38123\nfilexfer_cookie c00kie\nsessionid 4242\n"
    )
    hub = {"SESSION": "4242", "SESSIONDIR": str(tmp_path)}
    out = tmp_path / "server.json"
    done = server_json("examples/simple/start_mcp.py", "-o", str(out), env=hub)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    document = json.loads(text)
    valid(SERVER_JSON, document)
    assert "remotes" not in document
    assert "c00kie" not in text
    # trial21 F8: it was named local/..., the off-hub namespace, while the running server's card names it
    # after the session's public host (the name rule of discovery.md), as the command's own note said.
    assert document["name"] == "org.nanohub.proxy/simple-calculator"
    assert "name it" not in done.stderr  # no note that the card names it otherwise
    (line,) = [line for line in done.stderr.splitlines() if "weber" in line]
    assert "this tool session's own" in line
    assert "secret" in line
    assert "c00kie" not in line  # the warning names it without repeating it
    assert "--public-url" in line

    weber = "https://proxy.nanohub.org/weber/4242/c00kie/123/"
    asked = server_json("examples/simple/start_mcp.py", "--public-url", weber, env=hub)  # explicitly: listed
    assert asked.returncode == 0, asked.stderr
    document = json.loads(asked.stdout)
    valid(SERVER_JSON, document)
    assert document["remotes"] == [
        {"type": "streamable-http", "url": f"{weber}mcp"},
        {"type": "sse", "url": f"{weber}sse"},
    ]
    assert "secret" in asked.stderr  # still said, once


def test_a_name_that_is_not_reverse_dns_is_a_clear_error() -> None:
    done = server_json("examples/simple/start_mcp.py", "--name", "calculator")
    assert done.returncode == 2  # a usage error (0778af5), with the subcommand's usage
    assert done.stderr.startswith("usage: nanohubmcp server-json ")
    refusal = "nanohubmcp server-json: error: argument --name: registry name 'calculator' must be reverse-DNS"
    assert f"{refusal} with one slash" in done.stderr
    assert "Traceback" not in done.stderr
    named = server_json("examples/simple/start_mcp.py", env={"NANOHUBMCP_REGISTRY_NAME": "io.github.me/calc"})
    assert json.loads(named.stdout)["name"] == "io.github.me/calc"


@pytest.mark.parametrize("url", ["not a url", "ftp://x.org/", "x.org/mcp", "http://h:port/", "https://"])
def test_a_public_url_that_is_not_http_is_a_usage_error(url: str) -> None:
    # trial5 F9: such a URL was ignored without a word (no remotes, exit 0)
    done = server_json("examples/simple/start_mcp.py", "--public-url", url)
    assert done.returncode == 2
    assert "--public-url" in done.stderr
    assert "is not an http:// or https:// URL" in done.stderr
    assert done.stdout == ""


def test_a_loopback_public_url_warns_that_it_gives_no_remotes_and_a_name_says_how_the_card_agrees() -> None:
    done = server_json("examples/simple/start_mcp.py", "--public-url", "http://127.0.0.1:8108/")
    assert done.returncode == 0, done.stderr
    assert "remotes" not in json.loads(done.stdout)
    assert "loopback" in done.stderr
    assert "lists no remotes" in done.stderr
    named = server_json("examples/simple/start_mcp.py", "--name", "io.github.example/calc")
    assert json.loads(named.stdout)["name"] == "io.github.example/calc"
    assert "NANOHUBMCP_REGISTRY_NAME=io.github.example/calc" in named.stderr
    public = server_json("examples/simple/start_mcp.py", "--public-url", "https://calc.example.org/")
    assert json.loads(public.stdout)["remotes"][0]["url"] == "https://calc.example.org/mcp"
    assert public.stderr == ""


def calculator(instructions: str | None = None) -> MCPServer:
    server = MCPServer("my-calculator", version="1.2.3", instructions=instructions)

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers together."""
        return a + b

    return server


def check_served(base: str, token: str | None = None) -> dict[str, Any]:
    """Fetch and validate the card and both catalogs under ``base``; the card."""
    status, media, card = get(f"{base}mcp/server-card", token)
    assert status == 200
    assert media == CARD_TYPE
    valid(CARD, card)
    assert {k: v for k, v in card["remotes"][0].items() if k != "headers"} == {
        "type": "streamable-http",
        "url": f"{base}mcp",
        "supportedProtocolVersions": card["remotes"][0]["supportedProtocolVersions"],
    }
    for remote in card["remotes"]:  # a server behind a token says so where the draft has room for it
        assert ("headers" in remote) is (token is not None)
    assert "2025-11-25" in card["remotes"][0]["supportedProtocolVersions"]
    status, _, catalog = get(f"{base}.well-known/mcp/catalog.json", token)
    assert status == 200
    valid(MCP_CATALOG, catalog)
    status, media, ai = get(f"{base}.well-known/ai-catalog.json", token)
    assert status == 200
    assert media == "application/ai-catalog+json"
    valid(AI_CATALOG, ai)
    assert ai["entries"] == catalog["entries"]
    (entry,) = catalog["entries"]
    assert entry["url"] == f"{base}mcp/server-card"
    assert get(entry["url"], token)[2] == card
    return card


def test_the_quick_start_server_serves_its_card_and_catalogs() -> None:
    with serve(calculator("Adds numbers.\nMore text.")) as base:
        card = check_served(base)
        assert card["name"] == "local/my-calculator"
        assert card["version"] == "1.2.3"
        assert card["description"] == "Adds numbers."
        assert get(f"{base}.well-known/mcp.json")[2]["serverInfo"]["name"] == "my-calculator"  # nanoHUB's, kept


def sse_initialize(base: str, version: str) -> str:
    """The protocol version a raw ``initialize`` asking for ``version`` gets over ``GET /sse``."""
    import httpx

    with httpx.Client(timeout=10) as client, client.stream("GET", f"{base}sse") as stream:
        events = (line[len("data: "):] for line in stream.iter_lines() if line.startswith("data: "))
        endpoint = httpx.URL(f"{base}sse").join(next(events))
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}
        posted = client.post(endpoint, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        assert posted.status_code == 202
        return str(json.loads(next(events))["result"]["protocolVersion"])


def test_the_card_lists_the_versions_each_remote_negotiates() -> None:
    from nanohubmcp.protocol.versions import SUPPORTED_VERSIONS

    with serve(calculator()) as base:
        http, sse = get(f"{base}mcp/server-card")[2]["remotes"]
        assert http["supportedProtocolVersions"] == list(SUPPORTED_VERSIONS)
        negotiated = [v for v in SUPPORTED_VERSIONS if sse_initialize(base, v) == v]
        assert sse == {"type": "sse", "url": f"{base}sse", "supportedProtocolVersions": negotiated}
        assert "2025-11-25" in negotiated  # what the official mcp client initializes at over /sse


def test_behind_a_token_and_a_path_prefix_and_a_public_url() -> None:
    with serve(calculator(), token="s3cret", path_prefix="/weber/1/abc/8") as base:
        assert base.endswith("/weber/1/abc/8/")
        assert get(f"{base}mcp/server-card")[0] == 401
        assert get(f"{base}.well-known/mcp/catalog.json")[0] == 401
        assert get(f"{base}.well-known/ai-catalog.json")[0] == 401
        check_served(base, "s3cret")
    public = "https://proxy.nanohub.org/weber/1/abc/8/"
    server = calculator()
    with serve(server, public_url=public) as advertised:
        assert advertised == public
        status, _, card = get(f"http://127.0.0.1:{server.port}/mcp/server-card")
        assert status == 200
        valid(CARD, card)
        assert card["remotes"][0]["url"] == f"{public}mcp"
        assert card["name"] == "org.nanohub.proxy/my-calculator"


def test_a_card_behind_a_token_declares_the_header_and_no_document_holds_the_token() -> None:
    """trial: ``server.json`` of an app with ``auth=`` declared its ``Authorization`` header, but the running
    server's card did not, though the card's remotes answer 401 without it. The card's remotes declare it
    now (SEP-2127 draft: ``remotes[].headers``, the registry's ``KeyValueInput``); a catalog entry has no
    member for it, so the catalogs are unchanged; no document holds the token."""
    token = "card-secret-4821"
    with serve(calculator(), token=token) as base:
        card = check_served(base, token)
        for remote in card["remotes"]:
            assert token_header(remote)["variables"]["token"] == {
                "description": "your bearer token for this server", "isRequired": True, "isSecret": True}
        for path in ("mcp/server-card", ".well-known/mcp/catalog.json", ".well-known/ai-catalog.json",
                     ".well-known/mcp.json", ""):
            status, _, document = get(f"{base}{path}", token)
            assert status == 200
            assert token not in json.dumps(document)
        catalog = get(f"{base}.well-known/mcp/catalog.json", token)[2]
        assert set(catalog["entries"][0]) == {"identifier", "displayName", "type", "url"}
    with serve(calculator()) as base:
        check_served(base)  # no authorization: no header declared


def test_an_exported_notebook_serves_its_card(tmp_path: Path) -> None:
    script = tmp_path / "start_mcp.py"
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "export", str(ROOT / "notebooks" / "calculator.ipynb"), "-o", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    process = subprocess.Popen(
        [sys.executable, "-u", str(script), "--port", "0"],
        cwd=tmp_path,
        env={**os.environ, "MCP_TOKEN": "card-token"},  # required, as the notebook's server required one
        text=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        assert process.stdout is not None
        banner = ""
        for line in process.stdout:  # the banner names the port the OS picked
            banner += line
            if "listening on 127.0.0.1:" in line:
                break
        port = banner.rsplit("127.0.0.1:", 1)[-1].split()[0]
        assert port.isdigit(), banner
        card = check_served(f"http://127.0.0.1:{port}/", "card-token")
        assert card["name"].startswith("local/")
    finally:
        process.terminate()
        process.wait(timeout=10)
