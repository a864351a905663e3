"""A tool that raises an exception whose text is the tuple of its arguments, as ``2.0 ** 1e6``'s
``OverflowError(34, 'Numerical result out of range')`` is, reports ``OverflowError: Numerical result out
of range``, not ``(34, 'Numerical result out of range')``: the type leads, the errno is left out. An
exception without text reports its type's name; any other keeps its own text, byte for byte. The same
on every route: a direct call (sync and async, over MCP and REST), a job polled with ``get_job_result``,
and a batch job's side (what a Slurm node sends back).

A fresh-user trial found the errno tuple reaching the client as the whole message (trial25 F7).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest
from support import rest_job_end, serve
from tool_errors import error_texts

from nanohubmcp import MCPServer
from nanohubmcp.server.executors.job_side import RAISED, run_in_job

OVERFLOW = "OverflowError: Numerical result out of range"


def power(base: float, exponent: float) -> float:
    """base ** exponent."""
    return base ** exponent


def build(state_dir: Path) -> MCPServer:
    server = MCPServer("errors", state_dir=state_dir)
    server.tool()(power)

    @server.tool()
    async def async_power(base: float, exponent: float) -> float:
        """base ** exponent, awaited."""
        return base ** exponent

    server.async_tool(name="power_job")(power)

    @server.tool()
    def bare() -> str:
        """Raises without a message."""
        raise ValueError

    @server.tool()
    def pair() -> str:
        """Raises with two arguments."""
        raise ValueError("no root in the bracket", 3)

    @server.tool()
    def plain() -> str:
        """Raises an ordinary exception."""
        raise ValueError("temperature must be positive")

    @server.tool()
    def key() -> str:
        """Raises a KeyError."""
        return {"a": "1"}["b"]

    return server


def test_the_message_of_an_exception() -> None:
    from nanohubmcp.errors import message_of

    with pytest.raises(OverflowError) as raised:
        power(2.0, 1e6)
    assert str(raised.value) == "(34, 'Numerical result out of range')"
    assert message_of(raised.value) == OVERFLOW
    assert message_of(ValueError()) == "ValueError"
    assert message_of(ValueError("a", 3)) == "ValueError: a, 3"
    assert message_of(ValueError("temperature must be positive")) == "temperature must be positive"
    assert message_of(KeyError("b")) == "KeyError: 'b'"  # a KeyError's text is only the key (trial62 F1)
    assert message_of(FileNotFoundError(2, "No such file")) == "[Errno 2] No such file"  # OSError words it


def test_every_route_reports_the_type_of_an_exception_whose_text_is_its_arguments(tmp_path: Path) -> None:
    expected = {
        "power": OVERFLOW, "async_power": OVERFLOW, "bare": "ValueError",
        "pair": "ValueError: no root in the bracket, 3", "plain": "temperature must be positive",
        "key": "KeyError: 'b'",
    }
    arguments: dict[str, dict[str, Any]] = {"power": {"base": 2, "exponent": 1e6},
                                            "async_power": {"base": 2, "exponent": 1e6}}
    with serve(build(tmp_path)) as url:
        assert error_texts(url, expected, arguments) == expected
        for name, text in expected.items():
            response = httpx2.post(f"{url}tools/{name}", json=arguments.get(name, {}), timeout=30)
            assert (response.status_code, response.json()) == (500, {"error": text}), name

        started = httpx2.post(f"{url}tools/power_job", json={"base": 2, "exponent": 1e6}, timeout=30).json()
        status = rest_job_end(url, started["job_id"])
        assert (status["status"], status["error"]) == ("error", OVERFLOW)


def test_a_batch_jobs_side_sends_back_the_same_message(tmp_path: Path) -> None:
    kind, message, _ = run_in_job(power, {"base": 2.0, "exponent": 1e6}, False, str(tmp_path), "job1")
    assert (kind, message) == (RAISED, OVERFLOW)
