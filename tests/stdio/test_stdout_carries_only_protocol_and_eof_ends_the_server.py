"""The stdio stream on the wire (MCP 2025-11-25, Transports § stdio): one JSON-RPC message per
line on stdout and nothing else — what the app prints while imported, what a tool prints, warns
or logs goes to stderr; a malformed line gets -32700 and the server reads on; batches where
2025-03-26 has them; ``notifications/cancelled`` stops a call and it gets no response; end of
input ends the server with status 0, and SIGTERM ends it too."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from typing import Any

import pytest
from stdio_support import FEATURES_APP, ROOT, run_command
from support import tool_call_message

pytestmark = pytest.mark.timeout(60)

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Raw:
    """The server as a child process, spoken to line by line."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            run_command(FEATURES_APP), cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.lines: list[bytes] = []
        self.stderr = b""
        self._arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._arrived:
                self.lines.append(line)
                self._arrived.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send(self, message: Any) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def wait_for(self, predicate: Any, timeout: float = 20.0) -> Any:
        """The first message (parsed) satisfying ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                for line in self.lines:
                    message = json.loads(line)
                    if predicate(message):
                        return message
                left = deadline - time.monotonic()
                assert left > 0, f"no such message; got {self.lines!r}"
                self._arrived.wait(left)

    def reply(self, request_id: Any) -> Any:
        return self.wait_for(lambda m: isinstance(m, dict) and m.get("id") == request_id and "method" not in m)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(20)


@pytest.fixture
def raw() -> Any:
    server = Raw()
    yield server
    if server.proc.poll() is None:
        server.proc.kill()
        server.proc.wait()


def test_only_protocol_reaches_stdout_and_the_rest_goes_to_stderr(raw: Raw) -> None:
    raw.send(INIT)
    raw.reply(0)
    raw.send(INITIALIZED)
    raw.send(tool_call_message("chatty", request_id=1, arguments={"text": "hey"}))
    assert raw.reply(1)["result"]["content"][0]["text"] == "HEY"
    raw.send(tool_call_message("add", request_id=2, arguments={"a": 1, "b": 2}))
    assert raw.reply(2)["result"]["content"][0]["text"] == "3.0"
    assert raw.close() == 0
    for line in raw.lines:
        assert line.endswith(b"\n")
        assert json.loads(line)["jsonrpc"] == "2.0"  # every line is one JSON-RPC message
    # stderr is read to its end by the reader thread once the process exited (what is missing then fails below)
    deadline = time.monotonic() + 10
    while b"a log record" not in raw.stderr and time.monotonic() < deadline:
        time.sleep(0.05)
    err = raw.stderr.decode()
    for text in (
        "the app printed this while being imported",
        "printed: hey",
        "to stdout explicitly",
        "a warning from a tool",
        "a log record from a tool",
    ):
        assert text in err, text


def test_a_malformed_line_is_answered_and_the_server_reads_on(raw: Raw) -> None:
    raw.send(b"{not json\n")
    error = raw.wait_for(lambda m: "error" in m)
    assert error["id"] is None
    assert error["error"]["code"] == -32700
    raw.send(INIT)
    assert raw.reply(0)["result"]["protocolVersion"] == "2025-11-25"
    assert raw.close() == 0


def test_batches_are_served_in_2025_03_26_and_refused_later(raw: Raw) -> None:
    raw.send({**INIT, "params": {**INIT["params"], "protocolVersion": "2025-03-26"}})
    raw.reply(0)
    raw.send([tool_call_message("add", {"a": 1, "b": 1}, 1), {"jsonrpc": "2.0", "id": 2, "method": "ping"}])
    batch = raw.wait_for(lambda m: isinstance(m, list))
    assert sorted(reply["id"] for reply in batch) == [1, 2]
    assert raw.close() == 0

    later = Raw()
    try:
        later.send(INIT)
        later.reply(0)
        later.send([{"jsonrpc": "2.0", "id": 5, "method": "ping"}])
        refused = later.wait_for(lambda m: isinstance(m, dict) and "error" in m)
        assert refused["error"]["code"] == -32600
        assert "batches" in refused["error"]["message"]
        assert later.close() == 0
    finally:
        if later.proc.poll() is None:
            later.proc.kill()


def test_cancelled_stops_the_call_and_it_gets_no_response(raw: Raw) -> None:
    raw.send(INIT)
    raw.reply(0)
    raw.send(tool_call_message("wait", request_id=7, arguments={"seconds": 20}))
    raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "bored"}})
    raw.send({"jsonrpc": "2.0", "id": 8, "method": "ping"})
    raw.reply(8)
    raw.send(tool_call_message("add", request_id=9, arguments={"a": 1, "b": 1}))
    raw.reply(9)
    assert not [line for line in raw.lines if json.loads(line).get("id") == 7]
    assert raw.close() == 0


def test_cancelled_stops_a_call_sent_without_initialize_too(raw: Raw) -> None:
    # No session holds it: the connection's one peer names it by id, as a 2026-07-28 client does.
    raw.send(tool_call_message("wait", request_id=7, arguments={"seconds": 20}))
    raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
    raw.send({"jsonrpc": "2.0", "id": 8, "method": "ping"})
    raw.reply(8)
    assert raw.close() == 0  # a call still running here would be cancelled now, and answered
    assert not [line for line in raw.lines if json.loads(line).get("id") == 7]


def test_end_of_input_cancels_a_running_call_and_exits_0(raw: Raw) -> None:
    raw.send(INIT)
    raw.reply(0)
    raw.send(tool_call_message("wait", request_id=3, arguments={"seconds": 30}))
    started = time.monotonic()
    assert raw.close() == 0
    assert time.monotonic() - started < 15  # the call was told to stop; nothing waited 30 s


def test_sigterm_ends_the_server(raw: Raw) -> None:
    raw.send(INIT)
    raw.reply(0)
    raw.proc.send_signal(signal.SIGTERM)
    assert raw.proc.wait(20) == 0


def test_an_over_long_line_is_refused_and_the_next_one_served(raw: Raw) -> None:
    from nanohubmcp.transports.lines import MAX_LINE_BYTES

    raw.send(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "' + b"x" * MAX_LINE_BYTES + b'"}}\n')
    refused = raw.wait_for(lambda m: "error" in m)
    assert refused["error"]["code"] == -32600
    assert "too long" in refused["error"]["message"]
    assert refused["id"] == 1  # read from the line's first bytes
    raw.send(INIT)
    assert raw.reply(0)["result"]["protocolVersion"] == "2025-11-25"
    assert raw.close() == 0


def test_a_stateless_request_of_an_unknown_version_hears_both_what_is_missing_and_the_version(raw: Raw) -> None:
    # A fresh-user trial: "1999-01-01" without clientCapabilities heard only about the missing _meta member.
    meta = {"io.modelcontextprotocol/protocolVersion": "1999-01-01"}
    raw.send({**tool_call_message("add", {"a": 1, "b": 2}, 5), "params": {"name": "add", "_meta": meta}})
    refused = raw.reply(5)["error"]
    assert refused["code"] == -32602
    assert "'io.modelcontextprotocol/clientCapabilities' (an object; {} for none) is missing" in refused["message"]
    assert '"1999-01-01" is not a version this server speaks per request (2026-07-28; 2025-11-25' in refused["message"]
    raw.send({**INIT, "id": 6, "params": {**INIT["params"], "_meta": {**meta, "io.modelcontextprotocol/protocolVersion":
                                                                        "2026-07-28"}}})
    assert "2026-07-28 has no initialize" in raw.reply(6)["error"]["message"]
    raw.send(INIT)
    assert raw.reply(0)["result"]["protocolVersion"] == "2025-11-25"
    assert raw.close() == 0
