"""A real Jupyter Server (with jupyter-server-proxy) for tests, and a kernel driven over its API.

:class:`JupyterServer` runs ``python -m jupyter_server`` on 127.0.0.1 with a token, a
``base_url`` (the weber path, as when weber passes the path on to the notebook server), and
config, data, runtime and IPython directories of its own inside a temporary directory, so
nothing of the user's Jupyter set-up leaks in. Its one kernelspec runs this interpreter.
jupyter-server-proxy is enabled by its installed config file; its route
``<base_url>proxy/<port>/`` strips itself and forwards to ``localhost:<port>``. This package's
own server extension (``<base_url>nanohubmcp/<port>/``) is enabled or disabled explicitly per
server (``extension=``), whatever the environment's installed config says.
:func:`jupyter_behind_nginx` puts one behind nginx as weber (the path passed on).

:class:`NotebookKernel` is what a notebook front end does: it creates a session through the
REST API (``POST /api/sessions``, so Jupyter Server starts the kernel and sets
``JPY_SESSION_NAME``) and executes cells over the kernel's websocket (the JSON message
protocol), collecting each cell's output until the kernel is idle again.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nginx_weber import Nginx, PortTaken, WeberRoute, free_port
from proxy_support import WEBER_PATH, request, write_session
from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

KERNEL_NAME = "nanohubmcp-proxy-test"
START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
CELL_TIMEOUT = 60.0


class JupyterServer:
    """One Jupyter Server process (see the module docstring).

    Args:
        workdir: an empty directory for its files (notebook root, config, runtime, logs).
        port: where to listen on 127.0.0.1.
        base_url: the path it serves under, with leading and trailing slash.
        env: extra environment (the fake nanoHUB session variables).
        extension: load the ``nanohubmcp.jupyter.serverext`` server extension.
    """

    def __init__(
        self, workdir: Path, port: int, base_url: str, env: dict[str, str], *, extension: bool = False
    ) -> None:
        self.workdir = workdir
        self.port = port
        self.base_url = base_url
        self.token = uuid.uuid4().hex
        self.extra_env = env
        self.extension = extension
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port><base_url>`` (direct, not through any front proxy)."""
        return f"http://127.0.0.1:{self.port}{self.base_url}"

    @property
    def auth(self) -> dict[str, str]:
        """The header that authenticates a request with the server's token."""
        return {"Authorization": f"token {self.token}"}

    def _environment(self) -> dict[str, str]:
        dirs = {name: self.workdir / name for name in ("root", "config", "data", "runtime", "ipython")}
        for path in dirs.values():
            path.mkdir(exist_ok=True)
        spec_dir = dirs["data"] / "kernels" / KERNEL_NAME
        spec_dir.mkdir(parents=True, exist_ok=True)
        spec = {
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "nanohubmcp proxy tests",
            "language": "python",
        }
        (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
        # The user's config dir outranks the environment's etc/jupyter, where the wheel enables it.
        extensions = {"ServerApp": {"jpserver_extensions": {"nanohubmcp.jupyter.serverext": self.extension}}}
        (dirs["config"] / "jupyter_server_config.json").write_text(json.dumps(extensions), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "JUPYTER_", "SESSION"))}
        env.update(
            JUPYTER_CONFIG_DIR=str(dirs["config"]),
            JUPYTER_DATA_DIR=str(dirs["data"]),
            JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
            IPYTHONDIR=str(dirs["ipython"]),
            JUPYTER_PLATFORM_DIRS="1",
            PYTHONUNBUFFERED="1",
        )
        env.update(self.extra_env)
        return env

    def start(self) -> JupyterServer:
        """Start it and wait until ``/api/status`` answers (bounded by :data:`START_TIMEOUT`)."""
        argv = [
            sys.executable,
            "-m",
            "jupyter_server",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.base_url={self.base_url}",
            f"--ServerApp.root_dir={self.workdir / 'root'}",
            f"--IdentityProvider.token={self.token}",
            "--ServerApp.open_browser=False",
            "--ServerApp.allow_root=True",
            f"--MappingKernelManager.default_kernel_name={KERNEL_NAME}",
        ]
        env = self._environment()
        with (self.workdir / "jupyter.log").open("wb") as log:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=self.workdir,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"Jupyter Server exited with {self._proc.returncode}:\n{self.log()}")
            with contextlib.suppress(OSError):
                if request("GET", self.url + "api/status", headers=self.auth)[0] == 200:
                    return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"Jupyter Server did not answer within {START_TIMEOUT} s:\n{self.log()}")

    def log(self) -> str:
        """Its output so far (for failure messages)."""
        path = self.workdir / "jupyter.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def stop(self) -> None:
        """SIGTERM (Jupyter Server then shuts its kernels down), SIGKILL after :data:`STOP_TIMEOUT`."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(STOP_TIMEOUT)


@dataclass
class CellOutput:
    """What one executed cell produced."""

    status: str = ""
    stdout: str = ""
    stderr: str = ""
    error: str = ""
    results: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        """Streams, errors and the text/plain of every result, in one string."""
        plain = "".join(bundle.get("text/plain", "") + "\n" for bundle in self.results)
        return self.stdout + self.stderr + self.error + plain


class NotebookKernel:
    """A kernel started through Jupyter Server's session API and driven over its websocket.

    Use :meth:`open` (async) to create it and :meth:`close` to shut it down.
    """

    def __init__(self, server: JupyterServer, session: dict[str, Any], ws: WebSocketClientConnection) -> None:
        self.server = server
        self.session = session
        self.kernel_id: str = session["kernel"]["id"]
        self.ws = ws
        self.client_session = uuid.uuid4().hex

    @classmethod
    async def open(cls, server: JupyterServer, notebook: str) -> NotebookKernel:
        """Create a notebook session (which starts a kernel) and connect to its channels."""
        status, _, body = request(
            "POST",
            server.url + "api/sessions",
            {"path": notebook, "name": notebook, "type": "notebook", "kernel": {"name": KERNEL_NAME}},
            headers=server.auth,
        )
        assert status == 201, (status, body[:500])
        session = json.loads(body)
        ws_url = server.url.replace("http://", "ws://") + f"api/kernels/{session['kernel']['id']}/channels"
        # Jupyter Server answers the upgrade only once the new kernel answers (its "nudge"): a kernel starting
        # on a loaded host took over 10 s (the CI of stop 53), as long as its first cell may take.
        ws = await websocket_connect(
            HTTPRequest(ws_url, headers=server.auth, connect_timeout=10, request_timeout=START_TIMEOUT)
        )
        kernel = cls(server, session, ws)
        await kernel.execute("pass", timeout=START_TIMEOUT)  # waits until the kernel answers
        return kernel

    async def execute(self, code: str, timeout: float = CELL_TIMEOUT) -> CellOutput:
        """Run one cell; returns its output once the reply came and the kernel is idle."""
        import asyncio

        msg_id = uuid.uuid4().hex
        self.ws.write_message(
            json.dumps(
                {
                    "header": {
                        "msg_id": msg_id,
                        "msg_type": "execute_request",
                        "session": self.client_session,
                        "username": "test",
                        "version": "5.3",
                        "date": "",
                    },
                    "parent_header": {},
                    "metadata": {},
                    "content": {
                        "code": code,
                        "silent": False,
                        "store_history": True,
                        "user_expressions": {},
                        "allow_stdin": False,
                        "stop_on_error": True,
                    },
                    "channel": "shell",
                    "buffers": [],
                }
            )
        )
        out = CellOutput()
        replied = idle = False
        deadline = time.monotonic() + timeout
        while not (replied and idle):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"cell did not finish within {timeout} s: {code[:80]!r}")
            raw = await asyncio.wait_for(self.ws.read_message(), remaining)
            if raw is None:
                raise ConnectionError("the kernel websocket closed")
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "execute_reply":
                replied, out.status = True, content["status"]
            elif kind == "status" and content["execution_state"] == "idle":
                idle = True
            elif kind == "stream":
                if content["name"] == "stdout":
                    out.stdout += content["text"]
                else:
                    out.stderr += content["text"]
            elif kind in ("display_data", "execute_result", "update_display_data"):
                out.results.append(content["data"])
            elif kind == "error":
                out.error += f"{content['ename']}: {content['evalue']}\n"
        return out

    async def run_ok(self, code: str, timeout: float = CELL_TIMEOUT) -> CellOutput:
        """Run a cell that must succeed."""
        out = await self.execute(code, timeout)
        assert out.status == "ok", f"cell failed:\n{out.text}"
        return out

    def close(self) -> None:
        """Close the websocket and shut the kernel down (``DELETE /api/sessions/<id>``)."""
        self.ws.close()
        request("DELETE", self.server.url + f"api/sessions/{self.session['id']}", headers=self.server.auth)


@contextlib.contextmanager
def jupyter_behind_nginx(
    nginx_executable: str, work: Path, *, extension: bool
) -> Iterator[tuple[JupyterServer, Nginx]]:
    """A :class:`JupyterServer` under the weber path with a fake session, behind nginx (path passed on).

    Both are stopped on exit.
    """
    env = write_session(work / "session")
    (work / "jupyter").mkdir()
    jupyter = JupyterServer(work / "jupyter", free_port(), WEBER_PATH, env, extension=extension)
    jupyter.start()
    nginx = None
    try:
        for attempt in range(3):
            workdir = work / f"nginx-{attempt}"
            workdir.mkdir()
            candidate = Nginx(
                nginx_executable, workdir, WeberRoute(WEBER_PATH, jupyter.port, strip=False), free_port()
            )
            try:
                nginx = candidate.start()
                break
            except PortTaken:
                continue
        assert nginx is not None, "no free port for nginx"
        yield jupyter, nginx
    finally:
        if nginx is not None:
            nginx.stop()
        jupyter.stop()
