"""A real nginx on 127.0.0.1 playing nanoHUB's weber proxy, for tests.

:class:`Nginx` writes a configuration into a temporary directory (pid file, logs and every
temp path there too: nothing under /etc or /var is touched), runs ``nginx -p <dir> -c
nginx.conf -e <dir>/error.log`` in the foreground as one process (``master_process off``:
no workers to switch users or outlive it) and stops it afterwards.

One ``location`` is configured, the weber path ``/weber/<session>/<cookie>/<port>/``:

* ``strip=True`` (weber → wrwroxy → app, or weber → Jupyter's ``proxy/<port>/``): the prefix
  is removed, so the app serves at ``/``;
* ``strip=False`` (weber → app directly): the request path is passed on unchanged, so the app
  must serve under the weber path itself (``path_prefix``).

SSE needs what a long-lived streaming proxy needs: HTTP/1.1 to the upstream with keep-alive
(``Connection ""``), ``proxy_buffering off`` so each event is forwarded as it is written, and
read timeouts longer than a quiet stream. Every other path answers 404, so a URL the server
hands out that drops the prefix fails loudly.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0


def find_nginx() -> str | None:
    """The nginx executable (on PATH or Debian's /usr/sbin), or None."""
    found = shutil.which("nginx")
    if found:
        return found
    candidate = Path("/usr/sbin/nginx")
    return str(candidate) if candidate.exists() else None


class PortTaken(RuntimeError):
    """nginx could not bind its port (someone took it since :func:`free_port`)."""


def free_port() -> int:
    """A port free on 127.0.0.1 right now (nginx binds it later: see :class:`PortTaken`)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
        return True
    return False


@dataclass(frozen=True)
class WeberRoute:
    """The one route nginx serves.

    Attributes:
        path: the weber path, with leading and trailing slash (``/weber/4242/c00kie/123/``).
        upstream_port: the app's (or Jupyter Server's) port on 127.0.0.1.
        strip: remove ``path`` before forwarding (True) or pass the URI unchanged (False).
        cookie: ``(name, value)`` a request must carry as a cookie, else nginx answers 403
            (as weber refuses requests without the session's cookie); None admits every request.
    """

    path: str
    upstream_port: int
    strip: bool = True
    cookie: tuple[str, str] | None = None


def render_config(workdir: Path, port: int, route: WeberRoute) -> str:
    """The nginx.conf text for ``route`` listening on 127.0.0.1:``port``."""
    # proxy_pass with a URI part ("/") replaces the matched location prefix by it: the strip.
    target = f"http://127.0.0.1:{route.upstream_port}" + ("/" if route.strip else "")
    gate = ""
    if route.cookie is not None:
        name, value = route.cookie
        gate = f'if ($cookie_{name} != "{value}") {{ return 403 "no session cookie\\n"; }}\n            '

    temp = {name: workdir / name for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir(exist_ok=True)
    return f"""\
daemon off;
master_process off;
pid {workdir}/nginx.pid;
error_log {workdir}/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {workdir}/access.log;
    client_body_temp_path {temp["client_body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    client_max_body_size 32m;
    server {{
        listen 127.0.0.1:{port};
        server_name localhost;
        location {route.path} {{
            {gate}proxy_pass {target};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_buffering off;
            proxy_cache off;
            proxy_request_buffering off;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }}
        location / {{
            default_type text/plain;
            return 404 "not under the weber path\\n";
        }}
    }}
}}
"""


class Nginx:
    """One nginx process serving :class:`WeberRoute` on 127.0.0.1 (see the module docstring).

    Args:
        executable: the nginx binary.
        workdir: an empty directory for the config, pid, logs and temp files.
        route: what to proxy.
        port: where to listen on 127.0.0.1 (:func:`free_port`; the public URL must be known
            before the app starts, so the port is chosen first).
    """

    def __init__(self, executable: str, workdir: Path, route: WeberRoute, port: int) -> None:
        self.executable = executable
        self.workdir = workdir
        self.route = route
        self.port = port
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def public_url(self) -> str:
        """The weber URL through this nginx: origin + weber path (trailing slash)."""
        return self.origin + self.route.path

    def start(self) -> Nginx:
        """Start nginx and wait until it accepts connections.

        Raises:
            PortTaken: the port was taken meanwhile (pick another and retry).
            RuntimeError: nginx failed otherwise (its log is in the message).
        """
        conf = self.workdir / "nginx.conf"
        conf.write_text(render_config(self.workdir, self.port, self.route), encoding="utf-8")
        with (self.workdir / "stderr.log").open("wb") as log:
            proc = subprocess.Popen(
                [
                    self.executable,
                    "-p",
                    str(self.workdir),
                    "-c",
                    str(conf),
                    "-e",
                    str(self.workdir / "error.log"),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and proc.poll() is None and not _listening(self.port):
            time.sleep(0.05)
        if proc.poll() is None and _listening(self.port):
            self._proc = proc
            return self
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait(STOP_TIMEOUT)
        logs = self.logs()
        if "Address already in use" in logs:
            raise PortTaken(self.port)
        raise RuntimeError(f"nginx did not start on 127.0.0.1:{self.port}:\n{logs}")

    def logs(self) -> str:
        """nginx's own output and error log so far (for failure messages)."""
        parts = []
        for name in ("stderr.log", "error.log"):
            path = self.workdir / name
            if path.exists():
                parts.append(path.read_text(encoding="utf-8", errors="replace"))
        return "\n".join(parts)

    def stop(self) -> None:
        """Stop nginx (SIGTERM, then SIGKILL after :data:`STOP_TIMEOUT`); a second call does nothing."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(STOP_TIMEOUT)
