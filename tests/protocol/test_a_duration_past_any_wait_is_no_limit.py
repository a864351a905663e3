"""Every duration a user gives in seconds follows one rule (``protocol.seconds.limit_seconds``): a number above 0,
and None, ``inf`` or a number past any wait (``threading.TIMEOUT_MAX``: ``1e308``, ``2**62``, ``10**400``) is no
limit; anything else is refused at once, in one line naming the setting (trial51 F4, F5, F13).

Before: in a sync tool ``ctx.elicit/sample/list_roots(timeout=None|inf|1e308|2**62|10**400)`` failed the call with
OverflowError/TypeError (an ``async def`` tool took them); ``in_memory(timeout=inf)`` raised OverflowError;
``nanohubmcp sim2l --cell-timeout 1e308`` started, then every call failed with OverflowError; a Rappture
``timeout=10**400`` and ``cache_ttl=10**400`` raised a bare OverflowError. A Rappture ``timeout=inf`` (whose
None is the tool's own limit) was refused; it is no limit too.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from support import call_tool_http, command_server

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.testing import in_memory

ROOT = Path(__file__).resolve().parents[2]
COOLING = ROOT / "examples" / "sim2l" / "cooling" / "cooling.ipynb"
FERMI = next(ROOT.glob("examples/rappture/fermi*/tool.xml"), None)

NO_LIMIT = [None, math.inf, 1e308, 2**62, 10**400]
REFUSED = [0, -1, math.nan, True, "5"]


def _asking_server() -> MCPServer:
    server = MCPServer("asks", job_store="memory")

    @server.tool()
    def ask_sync(what: str, t: str, ctx: Context) -> str:
        """Ask from a worker thread."""
        return repr(_ask(ctx, what, eval(t, {"inf": math.inf, "nan": math.nan})))[:60]

    @server.tool()
    async def ask_async(what: str, t: str, ctx: Context) -> str:
        """Ask on the event loop."""
        return repr(await _ask(ctx, what, eval(t, {"inf": math.inf, "nan": math.nan})))[:60]

    return server


def _ask(ctx: Context, what: str, timeout: Any) -> Any:
    if what == "elicit":
        return ctx.elicit("Label?", timeout=timeout)
    if what == "sample":
        return ctx.sample("Hi", timeout=timeout)
    return ctx.list_roots(timeout=timeout)


def _slow_sampling(params: dict[str, Any]) -> dict[str, Any]:
    time.sleep(0.5)  # a user takes a while: the sync tool's thread wait then counts
    return {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"}


@pytest.mark.parametrize("timeout", NO_LIMIT, ids=repr)
def test_an_ask_without_a_limit_waits_in_a_sync_tool_as_in_an_async_one(timeout: Any) -> None:
    with in_memory(_asking_server(), elicitation=lambda params: {"action": "accept", "content": {"value": "x"}},
                   sampling=_slow_sampling, roots=[{"uri": "file:///work"}]) as client:
        for tool in ("ask_sync", "ask_async"):
            for what in ("elicit", "sample", "roots"):
                result = client.call_tool(tool, {"what": what, "t": repr(timeout)})
                assert not result.get("isError"), (tool, what, result)


@pytest.mark.parametrize("timeout", REFUSED, ids=repr)
def test_an_ask_refuses_a_timeout_that_is_no_time_limit_alike_in_both(timeout: Any) -> None:
    said = f"timeout must be a positive number of seconds, or None for no limit, not {timeout!r}"
    if isinstance(timeout, str):
        said += "; write it as a number: 5.0"
    with in_memory(_asking_server(), elicitation=lambda params: {"action": "accept"}) as client:
        for tool in ("ask_sync", "ask_async"):
            result = client.call_tool(tool, {"what": "elicit", "t": repr(timeout)})
            assert result.get("isError"), result
            assert result["content"][0]["text"] == said


@pytest.mark.parametrize("timeout", [math.inf, 1e308, 2**62, 10**400], ids=repr)
def test_the_test_clients_timeout_past_any_wait_is_no_limit(timeout: Any) -> None:
    server = MCPServer("t", job_store="memory")

    @server.tool()
    def f(x: int) -> int:
        """Echo."""
        return x

    with in_memory(server, timeout=timeout) as client:
        assert client.call_tool("f", {"x": 1})["content"][0]["text"] == "1"
        assert client.call_tool("f", {"x": 2}, timeout=timeout)["content"][0]["text"] == "2"
    assert threading.TIMEOUT_MAX < 1e308


@pytest.mark.parametrize("timeout", [0, -1, math.nan, "5"], ids=repr)
def test_the_test_client_refuses_a_timeout_that_is_no_time_limit(timeout: Any) -> None:
    server = MCPServer("t", job_store="memory")
    with pytest.raises(ValueError, match=r"^timeout must be a positive number of seconds, or None for no limit"), \
            in_memory(server, timeout=timeout):
        pass


@pytest.mark.parametrize("ttl", [10**400, 1e308, math.inf, Fraction(1, 3)], ids=repr)
def test_a_cache_ttl_is_read_by_the_one_rule(ttl: Any) -> None:
    server = MCPServer("c", job_store="memory")

    @server.tool(cache=True, cache_ttl=ttl)
    def f(x: int) -> int:
        """Echo."""
        return x

    kept = server.core.registry.tools.get("f").extra
    assert [v for k, v in kept.items() if "ttl" in str(k)] == [None if ttl != Fraction(1, 3) else 1 / 3]


def test_a_cache_ttl_refusal_names_the_value() -> None:
    server = MCPServer("c", job_store="memory")
    with pytest.raises(RegistrationError) as refused:
        server.tool(name="f", cache=True, cache_ttl="5")(lambda x: x)
    assert str(refused.value) == ("tool 'f': cache_ttl must be a positive number of seconds, or None for no "
                                  "limit, not '5'; write it as a number: 5.0")


@pytest.mark.skipif(FERMI is None, reason="no Rappture example")
@pytest.mark.parametrize("timeout", [10**400, 1e308, math.inf], ids=repr)
def test_a_rappture_timeout_past_any_wait_is_no_limit(timeout: Any) -> None:
    # (it was refused, "at most 9223372036 (the longest wait)"; left out, None, is the tool's own <limits>)
    server = MCPServer("r", job_store="memory")
    assert "a run has no time limit" in server.add_rappture_tool(str(FERMI), rappture="", timeout=timeout).description
    other = MCPServer("r", job_store="memory")
    assert "up to 1.07374e+09 s" in other.add_rappture_tool(str(FERMI), rappture="", timeout=2**30).description


@pytest.mark.skipif(FERMI is None, reason="no Rappture example")
def test_a_rappture_timeout_refusal_names_the_value() -> None:
    server = MCPServer("r", job_store="memory")
    with pytest.raises(RegistrationError) as refused:
        server.add_rappture_tool(str(FERMI), rappture="", timeout="5")
    assert str(refused.value) == (f"Rappture tool {FERMI}: timeout must be a positive number of seconds, or inf for "
                                  "no limit, not '5'; write it as a number: 5.0")


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("cell_timeout", ["1e308", "inf"])
def test_a_sim2l_served_with_a_cell_timeout_past_any_wait_answers(tmp_path: Path, cell_timeout: str) -> None:
    log = tmp_path / "server.log"
    with command_server("sim2l", str(COOLING), "--port", "0", "--state-dir", str(tmp_path / "state"),
                        "--cell-timeout", cell_timeout, log=log, cwd=tmp_path) as served:
        result = call_tool_http(served.url, "cooling", {}, timeout=240)
    assert not result.get("isError"), result
    assert "OverflowError" not in log.read_text(), log.read_text()
    assert sys.executable
