"""A ``Secret`` value shorter than 8 characters is never told by where its mask stands (trial F3).

A short value (``key``, ``the``, ``1``) was masked wherever it stood alone, so a failed call's text that never
quoted it but held it as an ordinary word (``the key file is missing``) was told as ``the *** file is missing``:
the mask named the secret, in the answer, the log, the job and provenance records, a span and a protocol error's
data. Now such a text is withheld whole (the exception's type and why), on every road that tells the call's one
failure; where the value stands on its own (``KeyError: 'key'``, a refusal's ``"key" does not match``) it is
still ``***``.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import traceback
from pathlib import Path
from typing import Annotated, Any

import otel_sdk
import pytest
from pydantic import Field
from support import serve

from nanohubmcp import MCPServer, ProtocolError, Secret
from nanohubmcp.schema.secret_text import WITHHELD, SecretText
from nanohubmcp.server.executors.job_side import RAISED, run_in_job

sys.path[:0] = [str(Path(__file__).parents[1] / "modern"), str(Path(__file__).parents[1] / "provenance")]
from modern_wire import Wire  # noqa: E402
from test_a_secret_quoted_by_an_error_is_never_kept import files_holding  # noqa: E402

pytestmark = pytest.mark.timeout(120)

SHORT = "key"
TOLD = "the *** file is missing"
"""What the mask made of ``the key file is missing`` (the F3 text): the secret named by its place."""
NOTICE = f"ValueError: {WITHHELD}"
USERS = {"alice": "ok"}


def short_server(name: str, **options: Any) -> MCPServer:
    server = MCPServer(name, **options)

    @server.tool()
    def fetch(user: str, token: Secret) -> str:
        """Fails with a text holding ``key`` as a word of its own (never the token)."""
        raise ValueError("the key file is missing")

    @server.async_tool()
    def fetch_job(user: str, token: Secret) -> str:
        """The same, as a job."""
        raise ValueError("the key file is missing")

    @server.tool()
    def lookup(user: str, token: Secret) -> str:
        """Looks the token up: ``KeyError('key')``, the value on its own."""
        return USERS[token]

    @server.tool()
    def upstream(user: str, token: Secret) -> str:
        """A protocol error whose text and data hold ``key`` as words."""
        raise ProtocolError("upstream wants a key", {"missing": "key", "user": user}, code=-32050)

    @server.tool()
    def pin(code: Annotated[Secret, Field(pattern="^[0-9]{4}$")]) -> str:
        """Takes a four-digit PIN."""
        return "ok"

    return server


def call_ended(server: MCPServer, name: str, arguments: dict[str, Any]) -> Any:
    job_id = server.call(name, arguments)["structuredContent"]["job_id"]
    deadline = time.monotonic() + 30
    while (answer := server.call("get_job_result", {"job_id": job_id}))["structuredContent"].get("status") in (
            "queued", "running", "submitted"):
        assert time.monotonic() < deadline, answer
        time.sleep(0.02)
    return answer


def test_a_text_holding_a_short_secret_as_a_word_is_withheld_everywhere(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="nanohubmcp")
    otel_sdk.clear()
    server = short_server("short-secret-words", state_dir=str(tmp_path), tracing=True)
    finished: list[dict[str, Any]] = []
    server.events.subscribe(lambda event, data: finished.append(data), ["call_finished"])
    arguments = {"user": "bob", "token": SHORT}
    with serve(server):
        direct = server.call("fetch", arguments)
        job = call_ended(server, "fetch_job", arguments)
        own = server.call("lookup", arguments)
    assert direct["isError"]
    assert direct["content"][0]["text"] == NOTICE
    assert job["structuredContent"]["error"] == NOTICE, job
    assert own["content"][0]["text"] == "KeyError: '***'"  # its own place: masked, as before
    assert [data["error"] for data in finished if data["name"] in ("fetch", "lookup")] == [NOTICE, "KeyError: '***'"]
    logged = "\n".join(record.getMessage() for record in caplog.records) + caplog.text
    assert TOLD not in logged
    assert NOTICE in logged
    assert files_holding(tmp_path, TOLD) == []
    kept = {name.split(".")[0] for name in files_holding(tmp_path, NOTICE)}
    assert kept >= {"jobs", "provenance"}, kept
    spans = [{**otel_sdk.described(span), "events": [dict(event.attributes or {}) for event in span.events]}
             for span in otel_sdk.EXPORTER.get_finished_spans()]
    assert "***" not in json.dumps([span for span in spans if "fetch" in span["name"]])
    told = [event for span in spans if span["name"] == "execute_tool fetch_job" for event in span["events"]]
    assert told, [span["name"] for span in spans]
    assert told[0]["exception.message"] == WITHHELD
    # The stack is the program's, kept (review r39 R39-3); the exception's own line is withheld: the type and why
    assert told[0]["exception.stacktrace"].startswith("Traceback (most recent call last):\n")
    assert told[0]["exception.stacktrace"].endswith("\n" + NOTICE)
    assert TOLD not in told[0]["exception.stacktrace"]


def test_a_protocol_errors_text_and_data_holding_a_short_secret_are_withheld(tmp_path: Path) -> None:
    server = short_server("short-secret-protocol", state_dir=str(tmp_path))
    with serve(server) as url:
        modern = Wire(url + "mcp").call("tools/call", {"name": "upstream", "arguments": {"user": "bob",
                                                                                          "token": SHORT}})
    assert modern.error["code"] == -32050
    assert modern.error["message"] == f"ProtocolError: {WITHHELD}"
    assert "data" not in modern.error  # a part of it would be withheld: none of it is told ("missing": "***")


def test_a_refusal_masks_the_value_at_its_place_and_withholds_the_rest_after_its_path(tmp_path: Path) -> None:
    server = short_server("short-secret-refusal", state_dir=str(tmp_path))
    with serve(server):
        own = server.call("pin", {"code": "abc"})
        word = server.call("pin", {"code": "not"})  # jsonschema's own "does not match" holds it
    assert own["content"][0]["text"] == ("Invalid arguments for tool 'pin': arguments.code: \"***\" does not match "
                                         '"^[0-9]{4}$"')
    assert word["content"][0]["text"] == f"Invalid arguments for tool 'pin': arguments.code: {WITHHELD}"


def batch_fetch(user: str, token: Secret) -> str:
    raise ValueError("the key file is missing")


def test_a_batch_jobs_result_withholds_the_text(tmp_path: Path) -> None:
    trace = ("batch_fetch", {}, SecretText((SHORT,)))  # what job_trace sends with a job holding secrets
    kind, message, _ = run_in_job(batch_fetch, {"user": "bob", "token": SHORT}, False, str(tmp_path), "j1", trace)
    assert (kind, message) == (RAISED, NOTICE)


@pytest.mark.parametrize(("secret", "text", "told"), [
    ("1", "step 1 of 3 failed", WITHHELD),  # a word of the text: *** would name it
    ("2026", "line 12026: bad value", WITHHELD),  # inside a number: shown, it would show the secret
    ("7", "'7'", "'***'"),  # the text is the value alone (str(KeyError('7')))
    ("the", "KeyError: 'the'", "KeyError: '***'"),
    ("abc", "ValueError: 'abc'\n'abc' is not a user", "ValueError: '***'\n'***' is not a user"),  # quoted, leading
    ("abc", "ValueError: abc", WITHHELD),  # bare, it may be a word of the text's own (a data field's "key")
    ("hunter2secret", "the hunter2secret file", "the *** file"),  # 8 or more: masked in place, as ever
    ("x", f"arguments.a: {WITHHELD}", f"arguments.a: {WITHHELD}"),  # told once: telling it again changes nothing
    ("abc", f"abc: {WITHHELD}", WITHHELD),  # a notice's label quoting the secret (review r39 R39-2: kept in clear)
    ("abc", f"x.abc: {WITHHELD}", WITHHELD),
])
def test_a_short_secret_is_masked_on_its_own_line_only(secret: str, text: str, told: str) -> None:
    assert SecretText((secret,))(text) == told


def test_a_logged_traceback_keeps_its_stack_and_withholds_only_the_exception_lines() -> None:
    # A one-character secret is in nearly every stack (line numbers): the whole traceback was one line (review r39
    # R39-3). The stack is the program's; only each exception's own line can quote an argument.
    from nanohubmcp.errors.told import Failure

    def failing(pin: str = "1") -> None:
        try:
            raise KeyError(f"the {pin} key")
        except KeyError as exc:
            raise ValueError(f"bad pin {pin}") from exc

    with pytest.raises(ValueError, match="bad pin") as raised:
        failing()
    frames = Failure(raised.value, SecretText(("1",))).frames
    assert frames.count("Traceback (most recent call last):") == 2, frames
    assert "in failing" in frames, frames
    assert "the 1 key" not in frames, frames
    assert "bad pin 1" not in frames, frames
    assert f"\nKeyError: {WITHHELD}\n" in frames, frames
    assert frames.endswith(f"\nValueError: {WITHHELD}"), frames
    assert "direct cause of the following exception" in frames, frames
    plain = Failure(raised.value, SecretText(("a long secret",))).frames
    assert plain == "".join(traceback.format_exception(raised.value)).rstrip("\n")  # nothing to hide: as Python
