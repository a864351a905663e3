"""Run an example server (``examples/<name>/start_mcp.py``) as a real subprocess.

``run_example("simple")`` starts it on 127.0.0.1 with ``--port 0`` (the server binds a free
port itself, no probe-then-close race), reads the port from its startup banner, and yields the
base URL (``http://127.0.0.1:<port>/``). The process gets SIGTERM afterwards (then SIGKILL).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BANNER = re.compile(r"listening on (?P<host>[^\s:]+):(?P<port>\d+)")
START_SECONDS = 60.0  # generous: CI machines can be busy


class ExampleProcess:
    """A running example: its ``url``, ``port`` and the ``output`` it printed so far."""

    def __init__(self, proc: subprocess.Popen[bytes], log: Path, url: str, port: int) -> None:
        self.proc = proc
        self.log = log
        self.url = url
        self.port = port

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace")


def wait_for_banner(proc: subprocess.Popen[bytes], log: Path) -> re.Match[str]:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        match = BANNER.search(log.read_text(errors="replace"))
        if match:
            return match
        if proc.poll() is not None:
            raise AssertionError(f"the example exited with {proc.returncode}:\n{log.read_text()}")
        time.sleep(0.05)
    raise AssertionError(f"the example printed no banner within {START_SECONDS} s:\n{log.read_text()}")


@contextlib.contextmanager
def run_example(name: str, *args: str, env: dict[str, str] | None = None,
                default_args: bool = True) -> Iterator[ExampleProcess]:
    """Start ``examples/<name>/start_mcp.py`` and yield the running :class:`ExampleProcess`.

    Args:
        args: extra command-line arguments.
        env: extra environment variables (``MCP_PORT`` ...).
        default_args: pass ``--host 127.0.0.1 --port 0`` before ``args``.
    """
    command = [sys.executable, "-u", str(EXAMPLES / name / "start_mcp.py")]
    if default_args:
        command += ["--host", "127.0.0.1", "--port", "0"]
    command += list(args)
    environment = {k: v for k, v in os.environ.items() if k != "MCP_PORT"}
    environment.update(env or {})
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "output.txt"
        with log.open("wb") as sink:
            proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=environment, cwd=ROOT)
        try:
            match = wait_for_banner(proc, log)
            port = int(match["port"])
            yield ExampleProcess(proc, log, f"http://127.0.0.1:{port}/", port)
        finally:
            stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, wait up to 10 s, then SIGKILL."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
