"""``nanohubmcp bridge`` to a notebook's server through jupyter-server-proxy (``.../proxy/<port>/mcp``), once
that server is gone (a restarted kernel starts empty): jupyter-server-proxy answers 500 with Jupyter's HTML
error page. The bridge showed the page's first 500 characters, all of them ``<head>`` (asset links); it now
shows the page's title and the text of its body, and for a 5xx from a ``proxy/<port>/`` route says that the
notebook's MCP server may have stopped. Jupyter's token (in the URL, and in the page's ``<body>`` attributes)
is not shown (trial30 T11)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from jupyter_behind_weber import JupyterServer
from nginx_weber import free_port

pytestmark = pytest.mark.slow

INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """A Jupyter server under a weber-like base URL, without this package's extension (so the notebook's URL
    goes through jupyter-server-proxy)."""
    server = JupyterServer(tmp_path_factory.mktemp("proxy-gone"), free_port(), "/weber/4242/c00kie/18/", {},
                           extension=False)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_gone_notebook_server_behind_jupyter_server_proxy_is_explained(jupyter: JupyterServer) -> None:
    port = free_port()  # nothing listens there: the notebook's server is gone
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "bridge", f"{jupyter.url}proxy/{port}/mcp?token={jupyter.token}"],
        input=json.dumps(INITIALIZE) + "\n", capture_output=True, text=True, timeout=60,
        env={**os.environ, "MCP_TOKEN": "notebook-token-0123456789"},
    )
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout.splitlines()[0])["error"]["message"]
    assert message == (f"HTTP 500 Internal Server Error from {jupyter.url}proxy/{port}/mcp?token=***: Jupyter Server: "
                       "500 : Internal Server Error (is the notebook's MCP server still running? After a kernel "
                       "restart the kernel starts empty: run its %load_ext nanohubmcp and %%mcp_* cells again)")
    assert f"nanohubmcp bridge: {message}" in done.stderr
    assert jupyter.token not in done.stdout + done.stderr


def test_control_characters_and_bidi_overrides_of_a_page_do_not_reach_the_terminal() -> None:
    # trial32 V7: a page's ESC sequences, BEL and U+202E were written raw to the bridge's stderr.
    from nanohubmcp.transports.bridge.refusal import server_said

    page = "<html><title>x\u202eevil</title><body>\x1b[31mRED\x1b[0m \x07bell</body></html>"
    said = server_said(page)
    assert said == "x\ufffdevil: \ufffd[31mRED\ufffd[0m \ufffdbell"
    assert server_said("plain \x1b]0;title\x07 text") == "plain \ufffd]0;title\ufffd text"
