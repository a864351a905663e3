"""A ``submit`` run gets the server's environment without the server's secrets (review r41 R41-8).

The run is started by ``submit``, which passes its own environment on: before, it was the server's whole
one, so a program that printed its environment (or evaluated a formula a client typed) gave the client
the server's bearer token (``MCP_TOKEN``), its Redis URL with the password and, on a hub, the weber path
with the session's cookie. Now those variables are dropped (``SERVER_SECRETS``); what programs need
(``PATH``, ``HOME``, ``SESSIONDIR``...) stays. A Slurm job gets the same through ``sbatch --export``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from jobs.job_server import Routes
from secret_environment import SECRETS
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.auth.verifiers import MCP_TOKEN_ENV
from nanohubmcp.nanohub import SubmitRun, child
from nanohubmcp.server.wire.run_environment import SERVER_SECRETS, sbatch_export
from nanohubmcp.state.url import ENV_VAR as STATE_URL_ENV
from nanohubmcp.transports import proxy_option

SHOW = "import json, os\nprint(json.dumps(sorted(os.environ)))\n"


def test_the_list_names_the_variables_the_server_reads_its_secrets_from() -> None:
    named = {MCP_TOKEN_ENV, STATE_URL_ENV, child.PATH_PREFIX_ENV, child.PUBLIC_URL_ENV,
             proxy_option.PUBLIC_URL_VARIABLE, proxy_option.PATH_PREFIX_VARIABLE}
    assert set(SERVER_SECRETS) == named == set(SECRETS)
    assert sbatch_export().split(",") == ["ALL", *(f"{name}=" for name in SERVER_SECRETS)]


def test_a_submit_run_sees_no_secret_but_its_path_home_and_session(
    standin_submit: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = MCPServer("submit-env", state_dir=str(tmp_path / "state"), job_executor="submit")

    @server.async_tool()
    def show() -> SubmitRun:
        """Prints the names of the run's environment variables."""
        return SubmitRun([sys.executable, "-c", SHOW])

    with serve(server) as url:
        for name, value in SECRETS.items():  # (once serving: the server itself reads none of them here)
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("SESSIONDIR", str(tmp_path))
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(session, "tools/call", {"name": "show", "arguments": {}, "task": {}})
        result = routes.rpc(session, "tasks/result", {"taskId": reply["result"]["task"]["taskId"]})["result"]
    names = result["structuredContent"]["stdout"]
    assert not any(name in names for name in SECRETS), names
    assert all(f'"{name}"' in names for name in ("PATH", "HOME", "SESSIONDIR")), names
