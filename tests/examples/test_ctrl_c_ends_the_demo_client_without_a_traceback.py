"""Ctrl-C while scripts/demo_client.py runs ends it as the signal's default does, with no Python traceback
(trial71 T71-11: ``^C`` while it waited printed ``Traceback ... KeyboardInterrupt``). The client is started against a
socket that accepts its connection and never answers, and interrupted once that connection is made."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys

from example_process import ROOT

CLIENT = ROOT / "scripts" / "demo_client.py"


def test_ctrl_c_while_the_client_waits_ends_it_without_a_traceback() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(120)
        port = listener.getsockname()[1]
        client = subprocess.Popen([sys.executable, str(CLIENT), f"http://127.0.0.1:{port}/mcp"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            connection, _ = listener.accept()  # the client is past its imports, waiting on the server
            with connection:
                client.send_signal(signal.SIGINT)
                _, err = client.communicate(timeout=60)
        finally:
            if client.poll() is None:
                client.kill()
                client.wait()
    assert "Traceback" not in err, err
    assert client.returncode == -signal.SIGINT  # the shell reports 130
