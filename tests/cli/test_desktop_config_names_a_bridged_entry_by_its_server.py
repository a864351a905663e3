"""``nanohubmcp desktop-config --url URL`` names its entry by the running server's name, asked of it with an
``initialize``, as ``--help`` says ("default: the server's name"): two bridged servers pasted side by side are two
entries (trial63 F8: every entry was ``"nanohubmcp"``, and a JSON object with the key twice keeps one). A server
that cannot be asked gives ``nanohubmcp`` and a note naming ``--name``; ``--name`` asks nothing."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

from support import serve

from nanohubmcp import MCPServer


def _printed(*arguments: str) -> tuple[dict[str, object], str]:
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "desktop-config", *arguments],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["mcpServers"], done.stderr


def _closed_port() -> int:
    with socket.socket() as probe:  # bound, never listening: a connection to it is refused
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_two_bridged_servers_are_two_entries_named_by_their_servers() -> None:
    with serve(MCPServer("notebook-a")) as first, serve(MCPServer("tool-b"), token="b-token") as second:
        entries_a, said_a = _printed("--url", first)
        entries_b, said_b = _printed_with_token(second + "mcp", "b-token")
    assert list(entries_a) == ["notebook-a"], entries_a
    assert list(entries_b) == ["tool-b"], entries_b  # asked with the token
    assert "note:" not in said_a
    assert "note:" not in said_b
    assert entries_a["notebook-a"]["args"][-1] == first + "mcp"  # type: ignore[index]


def _printed_with_token(url: str, token: str) -> tuple[dict[str, object], str]:
    """Printed with the token in ``MCP_TOKEN`` (as the docs say: not on the command line)."""
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "desktop-config", "--url", url],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "MCP_TOKEN": token})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["mcpServers"], done.stderr


def test_a_server_that_cannot_be_asked_gives_nanohubmcp_and_says_to_use_name() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/mcp"
    entries, said = _printed("--url", url)
    assert list(entries) == ["nanohubmcp"], entries
    assert said.startswith("note: the entry is named 'nanohubmcp': the server could not be asked its name ("), said
    assert "--name NAME" in said, said
    with serve(MCPServer("guarded"), token="right") as guarded:
        entries, said = _printed_with_token(guarded + "mcp", "wrong")
    assert list(entries) == ["nanohubmcp"], entries
    assert "answered HTTP 401" in said, said


def test_name_names_the_entry_without_asking() -> None:
    entries, said = _printed("--url", f"http://127.0.0.1:{_closed_port()}/mcp", "--name", "lab")
    assert list(entries) == ["lab"], entries
    assert said == "", said
