"""Loading, configuring, reloading and unloading the extension; the port is free afterwards."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

TOOL = '''%%mcp_tool
def double(x: int) -> int:
    """Twice x."""
    return 2 * x
'''


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


def assert_port_free(port: int) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))  # raises EADDRINUSE while anything listens there


def test_reload_ext_stops_the_server_and_frees_its_port(kernel: LiveKernel) -> None:
    kernel.run_ok(TOOL)
    port = port_of(server_url(kernel))
    kernel.run_ok("%reload_ext nanohubmcp")
    assert_port_free(port)
    # %config values live in the shell's config and survive the reload; the magics are back.
    assert "Current: 0" in kernel.run_ok("%config NanohubMCP").text
    kernel.run_ok(TOOL)
    assert port_of(server_url(kernel)) != 0


def test_unload_ext_removes_the_magics_and_the_configurable(kernel: LiveKernel) -> None:
    kernel.run_ok(TOOL)
    port = port_of(server_url(kernel))
    unloaded = kernel.run_ok("%unload_ext nanohubmcp")
    assert_port_free(port)
    assert unloaded.stdout.strip() == (
        f"nanohubmcp unloaded: stopped the MCP server 'notebook' on port {port} (the port is free); "
        "its 1 tool(s), 0 resource(s), 0 prompt(s) are no longer served; the %mcp magics are removed.")
    assert "Cell magic `%%mcp_tool` not found" in (kernel.run(TOOL).evalue or "")
    assert "NanohubMCP" not in kernel.run_ok("%config").text


def test_kernel_shutdown_frees_the_port(start_kernel: Any) -> None:
    live: LiveKernel = start_kernel()
    live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    live.run_ok(TOOL)
    port = port_of(server_url(live))
    live.shutdown()
    assert_port_free(port)


def test_an_autoloaded_extension_reads_the_profile_config(start_kernel: Any, ipython_dir: Path) -> None:
    profile = ipython_dir / "profile_default"
    profile.mkdir()
    (profile / "ipython_kernel_config.py").write_text(
        "c.InteractiveShellApp.extensions = ['nanohubmcp']\n"  # autoloaded, before the kernel loop runs
        "c.NanohubMCP.name = 'from-profile'\nc.NanohubMCP.port = 0\nc.NanohubMCP.version = '2.5'\n",
        encoding="utf-8",
    )
    live: LiveKernel = start_kernel()
    listing = live.run_ok("%config NanohubMCP").text
    assert "Current: 'from-profile'" in listing
    assert "NanohubMCP.tool_timeout=<Real>" in listing  # (jupyter.real_trait: a real number of seconds)
    live.run_ok(TOOL)

    async def info() -> Any:
        async with mcp_client(server_url(live)) as client:
            return (await client.initialize()).server_info

    server_info = run_async(info())
    assert (server_info.name, server_info.version) == ("from-profile", "2.5")
    assert "MCP server 'from-profile' v2.5" in live.run_ok("%mcp status").text


def test_renaming_the_server_rebuilds_it_and_keeps_the_tools(kernel: LiveKernel) -> None:
    kernel.run_ok(TOOL)
    renamed = kernel.run_ok("%config NanohubMCP.name = 'renamed'")
    assert "MCP server restarted" in renamed.text

    async def call() -> str:
        async with mcp_client(server_url(kernel)) as client:
            return str((await client.call_tool("double", {"x": 21})).content[0].text)

    assert run_async(call()) == "42"
    assert "MCP server 'renamed'" in kernel.run_ok("%mcp status").text


def test_moving_to_a_busy_port_says_the_server_stopped(kernel: LiveKernel) -> None:
    kernel.run_ok(TOOL)
    old_port = port_of(server_url(kernel))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        moved = kernel.run_ok(f"%config NanohubMCP.port = {busy}")
    assert f"could not restart after NanohubMCP.port changed: port {busy} on 127.0.0.1 is already in use" in (
        moved.text
    )
    assert "It is stopped" in moved.text
    assert_port_free(old_port)
    assert "is stopped" in kernel.run_ok("%mcp status").text


def test_reload_in_kernel_mode_frees_the_port_too(kernel: LiveKernel) -> None:
    kernel.run_ok("%config NanohubMCP.mode = 'kernel'")
    kernel.run_ok(TOOL)
    port = port_of(server_url(kernel))
    kernel.run_ok("%reload_ext nanohubmcp")
    assert_port_free(port)
