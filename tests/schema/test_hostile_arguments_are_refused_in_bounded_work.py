"""Arguments built to make refusing them expensive are refused with bounded work and a short message.

Found by a fresh-user security trial: ``tools/call`` of ``add`` with 500,000 unexpected argument
names (8 MB, under the body limit) froze the server for hours — the violation's text listed every
name and each was rewritten as JSON with a ``str.replace`` over that whole text (quadratic, on the
event loop). And an integer with 401 digits for a ``float`` parameter passed validation, then
answered 500 "int too large to convert to float". Work is counted in calls, never timed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from support import count_calls, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import InvalidArguments
from nanohubmcp.schema.validate import ArgumentValidator

CLOSED = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}


def calls(fn: Callable[[], Any]) -> int:
    """Python and C function calls made by ``fn()``."""
    return count_calls(fn, ("call", "c_call"))


def refusal(validator: ArgumentValidator, arguments: dict[str, Any]) -> str:
    with pytest.raises(InvalidArguments) as refused:
        validator.validate(arguments)
    return str(refused.value)


@pytest.mark.parametrize("trusted", [True, False])
def test_many_unexpected_names_are_refused_without_work_per_name(trusted: bool) -> None:
    validator = ArgumentValidator(CLOSED, name="add", trusted=trusted)
    few = {"a": 1, "b": 2, **{f"k{i}": i for i in range(20)}}
    many = {"a": 1, "b": 2, **{f"k{i}": i for i in range(50_000)}}
    refusal(validator, few)  # compiled and warmed
    assert calls(lambda: refusal(validator, many)) <= calls(lambda: refusal(validator, few)) + 20
    message = refusal(validator, many)
    assert "50000 properties are not allowed" in message
    assert '"k0", "k1"' in message  # named as JSON, in the order given
    assert len(message) < 400


def test_a_long_wrong_value_is_named_in_a_short_message_with_bounded_work() -> None:
    validator = ArgumentValidator(CLOSED, name="add")
    short = [str(i) for i in range(10)]
    long = [str(i) for i in range(200_000)]
    refusal(validator, {"a": short, "b": 1})
    # jsonschema writes the whole value into its text (linear, in C); our rewriting of it as JSON is bounded
    assert calls(lambda: refusal(validator, {"a": long, "b": 1})) < 60_000
    message = refusal(validator, {"a": long, "b": 1})
    assert message.startswith('Invalid arguments for tool \'add\': arguments.a: ["0", "1"')
    assert len(message) < 400


def test_a_million_wrong_items_name_ten_and_count_the_rest() -> None:
    validator = ArgumentValidator(
        {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "number"}}}}, name="f"
    )
    with pytest.raises(InvalidArguments) as refused:
        validator.validate({"xs": ["a"] * 1_000_000})
    assert len(refused.value.errors) == 11
    assert refused.value.errors[-1].endswith("arguments: and 990+ more violations (the first 10 are named above)")
    with pytest.raises(InvalidArguments) as few:
        validator.validate({"xs": ["a", 1, "b"]})
    assert len(few.value.errors) == 2  # a handful: every one named, no count line


def build() -> MCPServer:
    server = MCPServer("hostile")

    @server.tool()
    def add(a: float, b: float) -> float:
        """a plus b."""
        return a + b

    return server


def test_over_a_real_server_each_is_a_clear_refusal_and_the_server_keeps_serving() -> None:
    import httpx

    with serve(build()) as base:
        extra = ",".join(f'"k{i}":{i}' for i in range(200_000))
        body = '{"a":1,"b":2,' + extra + "}"
        answer = httpx.post(base + "tools/add", content=body, headers={"Content-Type": "application/json"}, timeout=60)
        assert answer.status_code == 400
        assert "200000 properties are not allowed" in answer.json()["error"]

        huge = httpx.post(
            base + "tools/add",
            content='{"a": 1' + "0" * 400 + ', "b": 1.5}',
            headers={"Content-Type": "application/json"},
            timeout=60,
        )
        assert huge.status_code == 400, huge.text
        assert "arguments.a: the number is too large for a float" in huge.json()["error"]

        fine = httpx.post(base + "tools/add", json={"a": 1, "b": 2.5}, timeout=60)
        assert fine.status_code == 200
