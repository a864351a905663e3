"""The "Authorization" page's example (docs/how-to/authorization.md, once the README's), run as
written against a test issuer: the scoped tool answers a token with the scope, names the caller,
and refuses one without it (403)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx2
from issuer import Issuer
from support import serve

README = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "authorization.md"


def section() -> str:
    return README.read_text(encoding="utf-8")


def test_the_example_checks_scopes_and_names_the_caller() -> None:
    found = re.search(r"```python\n(.*?)```", section(), re.S)
    assert found, "the section has a python example"
    namespace: dict[str, object] = {"__name__": "readme_auth"}
    exec(compile(found.group(1), str(README), "exec"), namespace)  # our own README
    server = namespace["server"]
    with Issuer() as issuer:
        verifier = server.auth  # type: ignore[attr-defined]
        # Point the example's verifier at the test issuer; the audience stays as written.
        verifier.issuer, verifier.jwks_url = issuer.url, issuer.jwks_url
        audience = "https://tools.example.org/mcp-server"
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "reset_instrument"}}
        with serve(server) as url:  # type: ignore[arg-type]
            granted = issuer.mint(audience, subject="ada", scope="lab:write")
            refused = issuer.mint(audience, subject="bob", scope="lab:read")
            ok = httpx2.post(
                url + "mcp",
                json=call,
                timeout=10,
                headers={"Authorization": f"Bearer {granted}", "Accept": "application/json"},
            )
            assert json.loads(ok.text)["result"]["content"][0]["text"] == "reset by ada"
            no = httpx2.post(url + "mcp", json=call, timeout=10, headers={"Authorization": f"Bearer {refused}"})
            assert no.status_code == 403
            assert 'scope="lab:write"' in no.headers["WWW-Authenticate"]
            assert httpx2.get(url + "openapi.json", timeout=10).status_code == 401


def test_the_curl_line_is_what_the_server_accepts() -> None:
    assert 'curl -H "Authorization: Bearer change-me" http://127.0.0.1:8000/' in section()
