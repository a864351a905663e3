"""Helpers of the export tests: run an exported script, serve a notebook live, and describe a server.

- ``export(notebook, output)``: run the ``nanohubmcp`` console script (this venv's) and return
  the finished process.
- ``run_script(path)`` / ``run_start_mcp(path)``: the script as a subprocess (``python FILE
  --host 127.0.0.1 --port 0`` with ``MCP_TOKEN=SCRIPT_TOKEN``, which an exported script requires as
  its notebook did, or ``start_mcp --app FILE`` on a free port, with that token too), yielding its Streamable HTTP URL;
  SIGTERM (then SIGKILL) afterwards.
- ``script_server(text)``: the ``server`` of an exported script's text, run as an imported module (its
  ``__main__`` block stays quiet).
- ``serve_live(kernel, notebook)``: execute every code cell in a real kernel; the kernel's URL.
- ``live_description(start_kernel, notebook, first="")``: ``describe`` of the notebook served in a fresh
  kernel (``first``: code run before its cells), the kernel shut down afterwards.
- ``describe(url, token=None)``: everything a client sees, as plain JSON: initialize result, tools,
  resources, templates and prompts, plus one call of every tool (arguments made up from its
  input schema; job tools polled to the end), one read of every resource and one get of every
  prompt. Job ids are replaced by ``<job>``, Slurm's by ``<slurm job>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import nbformat
from kernels import HUB_VARS, LiveKernel, run_async, server_url
from support import mcp_client

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
BIN = Path(sys.executable).parent
START_SECONDS = 30.0
BANNER = re.compile(r"listening on [^\s:]+:(?P<port>\d+)")
READY = re.compile(r"Streamable HTTP endpoint: (?P<url>\S+)")
SCRIPT_TOKEN = "exported-script-test-token"
"""The ``MCP_TOKEN`` :func:`run_script` gives a script (an exported one does not start without a token)."""


def console_script(name: str) -> list[str]:
    """The venv's console script ``name`` (``pip install -e .`` puts it next to python)."""
    path = BIN / name
    assert path.exists(), f"{path} is missing: run `pip install -e .` in this venv"
    return [str(path)]


def clean_environment(**extra: str) -> dict[str, str]:
    """This environment without MCP_PORT and nanoHUB session variables (so nothing looks like a hub)."""
    env = {k: v for k, v in os.environ.items() if k not in (*HUB_VARS, "MCP_PORT")}
    env.update(extra)
    return env


def export(notebook: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``nanohubmcp export NOTEBOOK ARGS...`` as a subprocess (bounded)."""
    return subprocess.run(
        [*console_script("nanohubmcp"), "export", str(notebook), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
        env=clean_environment(),
    )


def _wait(proc: subprocess.Popen[bytes], log: Path, pattern: re.Pattern[str]) -> re.Match[str]:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        match = pattern.search(log.read_text(errors="replace"))
        if match:
            return match
        if proc.poll() is not None:
            raise AssertionError(f"exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
        time.sleep(0.05)
    raise AssertionError(f"not ready within {START_SECONDS} s:\n{log.read_text(errors='replace')}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@contextlib.contextmanager
def _process(command: list[str], pattern: re.Pattern[str], env: dict[str, str], cwd: Path) -> Iterator[str]:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "output.txt"
        with log.open("wb") as sink:
            proc = subprocess.Popen(
                command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=cwd
            )
        try:
            match = _wait(proc, log, pattern)
            yield match.group(0) if pattern is BANNER else match["url"]
        finally:
            _stop(proc)


@contextlib.contextmanager
def run_script(path: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """``python -u FILE ARGS`` (default ``--host 127.0.0.1 --port 0``) with ``MCP_TOKEN=SCRIPT_TOKEN``
    (``env`` adds to or overrides it); yields the /mcp URL."""
    command = [sys.executable, "-u", str(path), *(args or ("--host", "127.0.0.1", "--port", "0"))]
    environment = clean_environment(**{"MCP_TOKEN": SCRIPT_TOKEN, **(env or {})})
    with _process(command, BANNER, environment, path.parent) as banner:
        port = int(BANNER.search(banner)["port"])  # type: ignore[index]
        yield f"http://127.0.0.1:{port}/mcp"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def run_start_mcp(path: Path, cwd: Path | None = None) -> Iterator[str]:
    """``start_mcp --app FILE --host 127.0.0.1 --port <free>`` off-hub with ``MCP_TOKEN=SCRIPT_TOKEN`` (an
    exported script's server requires one however it is served), from ``cwd`` (default: FILE's folder);
    yields the /mcp URL it prints."""
    command = [
        *console_script("start_mcp"),
        "--app",
        str(path),
        "--host",
        "127.0.0.1",
        "--port",
        str(free_port()),
    ]
    with _process(command, READY, clean_environment(MCP_TOKEN=SCRIPT_TOKEN), cwd or path.parent) as url:
        yield url


def serve_live(kernel: LiveKernel, notebook: Path) -> str:
    """Run every code cell of ``notebook`` in ``kernel`` (as a user running all); the /mcp URL."""
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type == "code":
            kernel.run_ok(cell.source)
    return server_url(kernel)


def live_description(start_kernel: Callable[[], LiveKernel], notebook: Path, first: str = "") -> dict[str, Any]:
    """See the module docstring."""
    kernel = start_kernel()
    try:
        if first:
            kernel.run_ok(first)
        return run_async(describe(serve_live(kernel, notebook)))
    finally:
        kernel.shutdown()


# -- what a client sees ------------------------------------------------------------------
SAMPLES = {"number": 2.5, "integer": 3, "string": "1,2,3", "boolean": True, "array": [1, 2], "object": {}}


def sample(schema: dict[str, Any]) -> Any:
    """A made-up value of the schema's (first non-null) type."""
    kinds = schema.get("type") or [s.get("type") for s in schema.get("anyOf", []) if isinstance(s, dict)]
    kinds = [kinds] if isinstance(kinds, str) else [k for k in kinds if k and k != "null"]
    return SAMPLES.get(kinds[0] if kinds else "string", "1,2,3")


def arguments_for(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties", {})
    return {name: sample(properties.get(name, {})) for name in schema.get("required", [])}


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", exclude_none=True)


RUN_STAMP = re.compile(r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}")
"""When a Rappture run ended (its run file's ``output.time``, ctime format): differs between two runs."""


STORED_RUN = re.compile(r'(\\?"cached\\?": ?)(true|false)')
"""Whether a Sim2L call was answered from a stored run: depends on the state directory each server has."""


PROVENANCE_URI = re.compile(r"nanohubmcp://provenance/[A-Za-z0-9_-]+")
"""A result's provenance record (``_meta["io.nanohub/provenance"]``): a random id per call."""


SLURM_JOB_ID = re.compile(r'(\\?"slurm\\?":\s*\{\s*\\?"job_id\\?":\s*\\?")[0-9]+')
"""A Slurm job's id as a job's answer gives it (``"slurm": {"job_id": "312", ...}``, also inside the text block's
JSON): Slurm's next number, another each run."""


STORED_RUN_HIT = "io.nanohub/cache"
"""A Sim2L call answered from a stored run says so in its ``_meta`` (as ``"cached"`` above: state-dependent)."""


def _unstamped(result: Any) -> Any:
    text = STORED_RUN.sub(r"\1null", RUN_STAMP.sub("<run time>", json.dumps(result)))
    text = SLURM_JOB_ID.sub(r"\1<slurm job>", text)
    unstamped = json.loads(PROVENANCE_URI.sub("nanohubmcp://provenance/<record>", text))
    meta = unstamped.get("meta") if isinstance(unstamped, dict) else None
    if isinstance(meta, dict):
        meta.pop(STORED_RUN_HIT, None)
    return unstamped


async def _call(session: Any, name: str, arguments: dict[str, Any]) -> Any:
    result = _unstamped(_dump(await session.call_tool(name, arguments)))
    job = (result.get("structured_content") or {}).get("job_id")
    if not job or result.get("structured_content", {}).get("status") != "running":
        return result
    # A Slurm job may wait its turn behind other jobs of the one-node cluster (queued, reason Resources).
    deadline = time.monotonic() + 120
    while True:
        final = _unstamped(_dump(await session.call_tool("get_job_result", {"job_id": job})))
        if (final.get("structured_content") or {}).get("status") != "running" or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    return json.loads(json.dumps({"started": result, "finished": final}).replace(job, "<job>"))


async def describe(url: str, token: str | None = None) -> dict[str, Any]:
    """See the module docstring."""
    async with mcp_client(url, token=token) as session:
        tools = (await session.list_tools()).tools
        resources = (await session.list_resources()).resources
        templates = (await session.list_resource_templates()).resource_templates
        prompts = (await session.list_prompts()).prompts
        calls = {t.name: await _call(session, t.name, arguments_for(t.input_schema)) for t in tools}
        reads = {str(r.uri): _dump(await session.read_resource(r.uri)) for r in resources}
        gets = {
            p.name: _dump(
                await session.get_prompt(p.name, {a.name: "1,2,3" for a in p.arguments or [] if a.required})
            )
            for p in prompts
        }
        return {
            "initialize": _dump(session.initialize_result),
            "tools": {t.name: _dump(t) for t in tools},
            "resources": {str(r.uri): _dump(r) for r in resources},
            "templates": {t.uri_template: _dump(t) for t in templates},
            "prompts": {p.name: _dump(p) for p in prompts},
            "calls": calls,
            "reads": reads,
            "gets": gets,
        }


def script_server(text: str) -> Any:
    """The ``server`` an exported script's ``text`` builds, run as an imported module (not ``__main__``)."""
    namespace: dict[str, Any] = {"__name__": "exported", "__file__": "start_mcp.py"}  # beside its notebook
    exec(compile(text, "start_mcp.py", "exec"), namespace)
    return namespace["server"]
