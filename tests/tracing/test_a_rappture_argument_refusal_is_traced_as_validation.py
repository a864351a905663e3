"""A Rappture tool's refusal of an argument (a value in units it cannot take) is its argument check's:
traced in the ``validate_arguments`` step, with no ``execute_tool`` step, as the call never ran.

Found by a user trial (trial39 R5): the refusal was an ERROR ``execute_tool`` span holding the "Invalid
arguments" exception, as if the simulator had run and failed.
"""

from __future__ import annotations

from pathlib import Path

import httpx2
import otel_sdk
import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.server.wire import trace_context

pytest.importorskip("pint")

FERMI = Path(__file__).parents[1] / "rappture" / "tools" / "fermi"


@pytest.mark.timeout(90)
def test_a_refused_unit_is_a_validation_step(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trace_context, "STEP_MIN_SECONDS", 0.0)
    server = MCPServer("fermi", job_store="memory")
    server.add_rappture_tool(FERMI, rappture="", plot=False)
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "fermi", "arguments": {"temperature": "eV"}}}
    with serve(server) as url:
        otel_sdk.clear()
        answer = httpx2.post(url + "mcp", json=body, timeout=60).json()
    assert answer["error"]["code"] == -32602, answer
    names = [s["name"] for s in otel_sdk.finished()]
    assert "execute_tool fermi" not in names, names
    assert "validate_arguments fermi" in names, names


@pytest.mark.timeout(120)
def test_a_sim2l_refused_unit_is_a_validation_step(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("papermill")
    monkeypatch.setattr(trace_context, "STEP_MIN_SECONDS", 0.0)
    server = MCPServer("cooling", job_store="memory")
    server.add_sim2l(Path(__file__).parents[2] / "examples" / "sim2l" / "cooling")
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "cooling", "arguments": {"initial_temperature": "3 eV"}}}
    with serve(server) as url:
        otel_sdk.clear()
        answer = httpx2.post(url + "mcp", json=body, timeout=60).json()
    assert answer["error"]["code"] == -32602, answer
    names = [s["name"] for s in otel_sdk.finished()]
    assert "execute_tool cooling" not in names, names
    assert "validate_arguments cooling" in names, names
