"""A ``Secret`` argument's value is ``***`` on three roads review r38 found open:

- F3: under 2026-07-28 a tool raising the public ``ProtocolError`` quoting it is the call's JSON-RPC error: its
  ``message`` and ``data``, the SERVER span's status and the call's ``call_finished`` record are masked as every
  other failure is (over 2025-11-25 the same exception is tool output, masked already);
- F6: a Dask job raising an exception that quotes it (traced or not): ``distributed.worker`` logs ``Compute
  Failed ... Exception:`` for the task on the worker, and the scheduler keeps what the task raised; a batch
  job's result file (``run_in_job``) keeps its message;
- F8: a long value quoted cut short, as pydantic writes an ``input_value`` over 50 characters (its first 25, ``...``,
  its last 24) and ``reprlib`` its first and last characters: neither part is answered, logged or kept.
"""

from __future__ import annotations

import json
import logging
import reprlib
import sys
import time
from pathlib import Path
from typing import Any

import cloudpickle
import otel_sdk
import pytest
from pydantic import BaseModel, TypeAdapter, model_validator
from support import serve
from test_a_jobs_trace_continues_where_it_runs import cluster  # noqa: F401  (a real LocalCluster, one worker process)

from nanohubmcp import MCPServer, ProtocolError, Secret
from nanohubmcp.schema.secret_text import SecretText
from nanohubmcp.server.executors.job_side import RAISED, run_in_job

sys.path[:0] = [str(Path(__file__).parents[1] / "modern"), str(Path(__file__).parents[1] / "provenance")]
from modern_wire import Wire  # noqa: E402
from test_a_secret_quoted_by_an_error_is_never_kept import files_holding  # noqa: E402

pytestmark = pytest.mark.timeout(120)

SECRET = "sk-live-4f9a8b7c6d5e"
LONG_KEY = "sk-live-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"  # 54 characters: pydantic cuts its repr
USERS = {"alice": "ok"}

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # (the Dask worker runs dask_login by value)


def refusing_server(name: str, **options: Any) -> MCPServer:
    server = MCPServer(name, **options)

    @server.tool()
    def login(key: Secret, user: str) -> str:
        """Wraps an upstream refusal quoting the key in a ProtocolError (its data too)."""
        raise ProtocolError(f"upstream refused key {key} for {user}", {"key": key, "tried": [key, user]}, code=-32050)

    return server


def test_a_protocol_error_quoting_a_secret_is_masked_in_both_eras(tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    otel_sdk.clear()
    server = refusing_server("secret-protocol-error", state_dir=str(tmp_path), tracing=True)
    finished: list[dict[str, Any]] = []
    server.events.subscribe(lambda event, data: finished.append(data), ["call_finished"])
    arguments = {"key": SECRET, "user": "bob"}
    with serve(server) as url:
        modern = Wire(url + "mcp").call("tools/call", {"name": "login", "arguments": arguments})
        legacy = server.call("login", arguments)  # 2025-11-25: tool output
    error = modern.error
    assert error["code"] == -32050
    assert error["message"] == "upstream refused key *** for bob"
    assert error["data"] == {"key": "***", "tried": ["***", "bob"]}
    assert legacy["isError"]
    assert legacy["content"][0]["text"] == "upstream refused key *** for bob"
    assert [data["error"] for data in finished] == ["upstream refused key *** for bob"] * 2
    spans = [{**otel_sdk.described(span), "events": [dict(event.attributes or {}) for event in span.events]}
             for span in otel_sdk.EXPORTER.get_finished_spans()]
    assert SECRET not in json.dumps(spans), [span for span in spans if SECRET in json.dumps(span)]
    served = [span["description"] for span in spans if span["name"] == "tools/call login"]
    assert "upstream refused key *** for bob" in served, served
    assert SECRET not in caplog.text
    assert files_holding(tmp_path, SECRET) == []


def dask_login(user: str, password: Secret) -> str:
    """A KeyError quoting the password, on a Dask worker."""
    return USERS[password]


def test_a_dask_workers_log_never_quotes_a_secret(cluster: Any, tmp_path: Path) -> None:  # noqa: F811
    """Untraced (the secret values go with the job all the same) and traced."""
    answers = []
    for traced in (False, True):
        server = MCPServer(f"secret-dask-{traced}", state_dir=str(tmp_path / str(traced)), tracing=traced,
                           job_executor="dask", dask_address=cluster.scheduler_address)
        server.async_tool()(dask_login)
        with serve(server):
            job_id = server.call("dask_login", {"user": "bob", "password": SECRET})["structuredContent"]["job_id"]
            deadline = time.monotonic() + 60
            while (answer := server.call("get_job_result", {"job_id": job_id}))["structuredContent"].get(
                    "status") in ("queued", "running", "submitted"):
                assert time.monotonic() < deadline, answer
                time.sleep(0.05)
        answers.append(answer["structuredContent"])
    assert [answer["error"] for answer in answers] == ["KeyError: '***'"] * 2, answers
    logged = "\n".join(text for records in cluster.client.get_worker_logs().values() for _, text in records)
    failed = [text for text in logged.split(" - distributed.worker - ") if text.startswith("ERROR - Compute Failed")]
    assert len(failed) >= 2, logged  # (Dask's own record of each failed task, read here)
    assert all("Exception: 'HiddenFailure(\"KeyError: \\'***\\'\")'" in text for text in failed), failed
    assert SECRET not in logged
    assert files_holding(tmp_path, SECRET) == []


def batch_login(user: str, password: Secret) -> str:
    return USERS[password]


def test_a_batch_jobs_result_keeps_the_message_masked(tmp_path: Path) -> None:
    trace = ("batch_login", {}, SecretText((SECRET,)))  # what job_trace sends with an untraced job holding secrets
    kind, message, _ = run_in_job(batch_login, {"user": "bob", "password": SECRET}, False, str(tmp_path), "j1", trace)
    assert (kind, message) == (RAISED, "KeyError: '***'")


class Login(BaseModel):
    user: str
    key: Secret

    @model_validator(mode="after")
    def known(self) -> Login:
        if self.user != "alice":
            raise ValueError("unknown user")
        return self


def test_a_long_secret_quoted_cut_short_is_hidden(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="nanohubmcp.tool")
    server = MCPServer("secret-cut", state_dir=str(tmp_path))

    @server.tool()
    def plain(key: Secret, n: int) -> int:
        """Validates the key with pydantic: its ValidationError quotes it cut."""
        return TypeAdapter(int).validate_python(key)

    @server.tool()
    def login(who: Login) -> str:
        """A model argument its own validator refuses (the input dict quoted cut)."""
        return "ok"

    @server.tool()
    def short_repr(key: Secret) -> str:
        """reprlib's cut (first 11 and last 12 characters)."""
        raise ValueError(f"bad key {reprlib.repr(key)}")

    with serve(server):
        answers = [server.call("plain", {"key": LONG_KEY, "n": 1}),
                   server.call("login", {"who": {"user": "bob", "key": LONG_KEY}}),
                   server.call("short_repr", {"key": LONG_KEY})]
    texts = [answer["content"][0]["text"] for answer in answers]
    assert all(answer["isError"] for answer in answers), answers
    assert "input_value='***...***'" in texts[0]
    assert "'key': 's...***'}" in texts[1]
    assert texts[2] == "bad key '***...***'"
    for part in (LONG_KEY[:12], LONG_KEY[-12:]):
        assert part not in json.dumps(texts)
        assert part not in caplog.text
        assert files_holding(tmp_path, part) == []


def test_only_a_long_values_head_or_tail_at_an_ellipsis_is_hidden() -> None:
    hide = SecretText((LONG_KEY, "hunter2-s3cret"))
    assert hide("loading sk-live-0123 ... done") == "loading sk-live-0123 ... done"  # not at the ellipsis
    assert hide(f"{LONG_KEY[:8]}... and …{LONG_KEY[-9:]}") == "***... and …***"
    assert hide(f"{LONG_KEY[:7]}...{LONG_KEY[-7:]}") == f"{LONG_KEY[:7]}...{LONG_KEY[-7:]}"  # under 8: kept
    assert hide("hunter2-...s3cret") == "hunter2-...s3cret"  # a value under 16 characters: only whole
    assert hide(f"{LONG_KEY}...{LONG_KEY}xyz...") == "***...***xyz..."
