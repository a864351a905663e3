"""When tracing is off — the ``otel`` extra absent, ``tracing=False``, or ``"auto"`` in an application
that configured no tracer provider — serving a call imports no ``opentelemetry`` module and puts no
layer in the pipeline; ``"auto"`` turns on when the application configured a provider before the
server started; ``NANOHUBMCP_TRACING`` decides when the argument is not given; ``tracing=True``
without the extra says what to install. Each case runs in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(120)

WORDS = "1, true, on, yes (on), 0, false, off, no (off) or auto"
"""The accepted words, as the error says them (written out: the test reads what a user reads)."""

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
SERVE_ONE_CALL = """
import json, sys, urllib.request
{before}
from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
try:
    server = MCPServer("quiet"{options})
except ConfigurationError as exc:
    print(json.dumps({{"refused": str(exc)}}))
    raise SystemExit(0)

@server.tool()
def add(a: int, b: int) -> int:
    \"\"\"Add.\"\"\"
    return a + b

server.start(host="127.0.0.1", port=0)
try:
    body = json.dumps({{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {{"name": "add", "arguments": {{"a": 1, "b": 2}},
                                  "_meta": {{"traceparent": "{traceparent}"}}}}}})
    request = urllib.request.Request(server.url + "mcp", body.encode(), {{"Content-Type": "application/json",
                                     "traceparent": "{traceparent}"}})
    answer = json.loads(urllib.request.urlopen(request, timeout=30).read())
finally:
    server.stop()
print(json.dumps({{
    "text": answer["result"]["content"][0]["text"],
    "traced": server.core.telemetry is not None,
    "otel": sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry"),
}}))
"""

BLOCK_OPENTELEMETRY = """
import importlib.abc, sys
class NoOpenTelemetry(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "opentelemetry":
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None
sys.meta_path.insert(0, NoOpenTelemetry())
"""

CONFIGURE_SDK = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
trace.set_tracer_provider(TracerProvider())
"""


def serve_one_call(before: str = "", options: str = "", env: dict[str, str] | None = None) -> dict[str, Any]:
    code = SERVE_ONE_CALL.format(before=textwrap.dedent(before), options=options, traceparent=TRACEPARENT)
    environment = {k: v for k, v in os.environ.items() if k != "NANOHUBMCP_TRACING"}
    environment.update(env or {})
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=90, env=environment, check=False
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_by_default_a_served_call_imports_no_opentelemetry() -> None:
    assert serve_one_call() == {"text": "3", "traced": False, "otel": []}


def test_without_the_extra_a_server_serves_and_tracing_true_says_what_to_install() -> None:
    assert serve_one_call(BLOCK_OPENTELEMETRY) == {"text": "3", "traced": False, "otel": []}
    refused = serve_one_call(BLOCK_OPENTELEMETRY, ", tracing=True")["refused"]
    assert "pip install 'nanohub-mcp[otel]'" in refused
    refused = serve_one_call(BLOCK_OPENTELEMETRY, env={"NANOHUBMCP_TRACING": "on"})["refused"]
    assert "NANOHUBMCP_TRACING" in refused
    assert "nanohub-mcp[otel]" in refused


def test_tracing_false_stays_off_in_an_application_that_traces() -> None:
    found = serve_one_call(CONFIGURE_SDK, ", tracing=False")
    assert (found["text"], found["traced"]) == ("3", False)
    found = serve_one_call(CONFIGURE_SDK, env={"NANOHUBMCP_TRACING": "0"})
    assert (found["text"], found["traced"]) == ("3", False)


def test_auto_follows_whether_the_application_configured_a_tracer_provider() -> None:
    # Importing the API (as the mcp client library does) configures nothing: still off.
    found = serve_one_call("import opentelemetry.trace")
    assert (found["text"], found["traced"]) == ("3", False)
    found = serve_one_call(CONFIGURE_SDK)
    assert (found["text"], found["traced"]) == ("3", True)


def test_the_environment_turns_it_on_and_a_wrong_word_is_refused() -> None:
    found = serve_one_call(env={"NANOHUBMCP_TRACING": "true"})
    assert (found["text"], found["traced"]) == ("3", True)  # spans without a provider: no-ops
    refused = serve_one_call(env={"NANOHUBMCP_TRACING": "sometimes"})["refused"]
    assert refused == f"NANOHUBMCP_TRACING must be one of {WORDS}, not 'sometimes'"
    refused = serve_one_call(options=", tracing='loud'")["refused"]
    assert refused == f"tracing must be one of {WORDS}, not 'loud'"
