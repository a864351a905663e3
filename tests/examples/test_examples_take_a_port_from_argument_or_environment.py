"""Every example takes ``--port N`` or ``$MCP_PORT`` (``--port`` wins) and ``--host``
(default 127.0.0.1, this machine only), so tests and users can run several side by side."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from example_process import EXAMPLES, ExampleProcess, run_example

pytestmark = pytest.mark.slow

NAMES = ["simple", "data_analysis", "simulator", "apps"]
SERVER_NAMES = {
    "simple": "simple-calculator",
    "data_analysis": "data-analysis",
    "simulator": "physics-simulator",
    "apps": "apps-demo",
}


def info(example: ExampleProcess) -> dict:
    with urllib.request.urlopen(example.url, timeout=30) as response:
        return json.loads(response.read())


@pytest.mark.parametrize("name", NAMES)
def test_port_argument_and_loopback_host(name: str) -> None:
    with run_example(name, env={"MCP_PORT": "not-a-port"}) as example:  # --port 0 wins over MCP_PORT
        assert f"listening on 127.0.0.1:{example.port}" in example.output
        assert example.port not in (0, 8000)
        assert info(example)["name"] == SERVER_NAMES[name]


@pytest.mark.parametrize("name", NAMES)
def test_mcp_port_environment_variable_without_an_argument(name: str) -> None:
    with run_example(name, "--host", "127.0.0.1", default_args=False, env={"MCP_PORT": "0"}) as example:
        assert example.port not in (0, 8000)  # 0 = any free port: MCP_PORT was read
        assert info(example)["status"] == "running"


def test_the_default_host_is_loopback() -> None:
    with run_example("simple", "--port", "0", default_args=False) as example:
        assert f"listening on 127.0.0.1:{example.port}" in example.output
        assert info(example)["tools"] == 5


def test_every_interface_with_a_token_refuses_a_client_without_it() -> None:
    args = ("--port", "0", "--host", "0.0.0.0", "--token", "example-token")
    with run_example("simple", *args, default_args=False) as example:
        assert f"listening on 0.0.0.0:{example.port}" in example.output
        assert "no authorization" not in example.output
        with pytest.raises(urllib.error.HTTPError) as refused:
            info(example)
        assert refused.value.code == 401
        request = urllib.request.Request(example.url, headers={"Authorization": "Bearer example-token"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert json.loads(response.read())["tools"] == 5


@pytest.mark.parametrize("name", NAMES)
def test_help_documents_the_options(name: str) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / name / "start_mcp.py"), "--help"],
                          capture_output=True, text=True, timeout=60, check=True)
    assert "--port" in done.stdout
    assert "--host" in done.stdout
    assert "MCP_PORT" in done.stdout


def test_two_examples_run_side_by_side() -> None:
    with run_example("simple") as one, run_example("simple") as two:
        assert one.port != two.port
        assert info(one)["name"] == info(two)["name"] == "simple-calculator"
