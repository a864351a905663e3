"""A Sim2L's saved outputs are read by the server itself: JSON (and numpy numbers and arrays), never simtool's
``jsonpickle.loads``; a ``file://`` reference only to a regular file inside the run directory.

Found by review r41 (R41-10, R41-11, both HIGH). simtool's ``DB.read`` decodes every saved value with
``jsonpickle.loads``, which imports and calls what the JSON names: a client's ``Dict`` argument that the
notebook writes to the file it saves (``db.save("used", file="used.json")``, simtool's way for large
outputs), or a text argument ``"file://.notebookInputFiles/evil.json"`` echoed to a ``Tag`` output with that
file uploaded, ran ``os.system`` in the server's process. And a text argument
``"file://./../../…/secret"`` echoed to a ``Text`` output was read by the server and returned: any file the
server can read. The notebooks are the reviewer's (``data/echoes``): ordinary Sim2L code.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

ECHOES = Path(__file__).parent / "data" / "echoes"


def _payload(marker: Path) -> dict[str, object]:
    """jsonpickle's JSON for ``os.system("echo ran > marker")``."""
    return {"py/reduce": [{"py/function": "os.system"}, {"py/tuple": [f"echo ran > {marker}"]}]}


def _text(result: object) -> str:
    return " ".join(getattr(block, "text", "") for block in getattr(result, "content", []))


@pytest.mark.anyio
@pytest.mark.timeout(240)
async def test_a_saved_value_naming_a_python_call_is_refused_not_run(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    marker = tmp_path / "RAN"
    server = MCPServer("sim2l-echoes", state_dir=str(tmp_path / "state"))
    server.add_sim2l(str(ECHOES / "settings.ipynb"))
    server.add_sim2l(str(ECHOES / "tagged.ipynb"))
    evil = {"name": "evil.json", "base64": base64.b64encode(json.dumps(_payload(marker)).encode()).decode()}

    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            with anyio.fail_after(120):
                plain = await client.call_tool("settings", {"options": {"tol": 1e-6, "maxiter": 50}})
            assert not plain.is_error, _text(plain)
            assert plain.structured_content["outputs"] == {"used": {"tol": 1e-6, "maxiter": 50}}
            assert plain.structured_content["files"]["used"].endswith("/used.json")

            for _ in range(2):  # the run, then the answer from the stored run: decoded again, refused again
                with anyio.fail_after(120):
                    attack = await client.call_tool("settings", {"options": _payload(marker)})
                assert attack.is_error
                said = _text(attack)
                assert said.startswith("the Sim2L tool 'settings': its output 'used' was saved as a value that is "
                                       "not read: it holds a Python object (jsonpickle 'py/reduce' of 'os.system' "
                                       "as its py/function), which is not decoded"), said
                assert not marker.exists(), "the server ran the call the saved JSON named"

            with anyio.fail_after(120):
                tagged = await client.call_tool("tagged", {"title": "file://.notebookInputFiles/evil.json",
                                                           "data": evil})
            assert tagged.is_error
            assert "its output 'label' was saved as a value that is not read: it holds a Python object" in (
                _text(tagged)), _text(tagged)
            assert not marker.exists(), "the server ran the call the uploaded file named"


@pytest.mark.anyio
@pytest.mark.timeout(240)
async def test_a_file_reference_outside_the_run_is_refused_not_read(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    secret = tmp_path / "server-only-secret.txt"
    secret.write_text("SERVER-ONLY-SECRET-42\n")
    os.chmod(secret, 0o600)
    server = MCPServer("sim2l-echoes", state_dir=str(tmp_path / "state"))
    server.add_sim2l(str(ECHOES / "label.ipynb"))
    up = "../" * 40  # past the root, whatever the depth of the run directory

    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            with anyio.fail_after(120):
                plain = await client.call_tool("label", {"title": "run 1"})
            assert not plain.is_error, _text(plain)
            assert plain.structured_content["outputs"] == {"label": "run 1", "lines": 0}

            for _ in range(2):  # the run, then the stored run's answer
                with anyio.fail_after(120):
                    attack = await client.call_tool("label", {"title": f"file://./{up}{str(secret).lstrip('/')}"})
                assert attack.is_error
                said = _text(attack)
                assert "SERVER-ONLY-SECRET-42" not in said
                assert said.startswith(
                    "the Sim2L tool 'label': its output 'label' names a file that is not the run's: "), said
                assert "is outside the run directory (an output's file:// reference must name a regular file " \
                       "inside the run directory" in said, said

            # the client's own uploaded file is a file of the run: its text is the output (as simtool reads it)
            with anyio.fail_after(120):
                own = await client.call_tool("label", {
                    "title": "file://.notebookInputFiles/d.txt",
                    "data": {"name": "d.txt", "base64": base64.b64encode(b"a\nb\n").decode()}})
            assert not own.is_error, _text(own)
            assert own.structured_content["outputs"] == {"label": "a\nb\n", "lines": 2}


def test_a_run_file_is_a_regular_file_inside_the_run_read_within_its_limit(tmp_path: Path) -> None:
    from nanohubmcp.sources.sim2l.saved import NotARunFile, read_value_file, run_file

    run = tmp_path / "run"
    (run / "sub").mkdir(parents=True)
    (run / "sub" / "x.json").write_text("[1, 2]")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside")
    os.symlink(outside, run / "out-link")
    os.symlink(run / "sub" / "x.json", run / "in-link")
    os.mkfifo(run / "fifo")

    assert run_file(str(run), "sub/../sub/x.json") == os.path.join("sub", "x.json")
    assert run_file(str(run), "in-link") == os.path.join("sub", "x.json")  # a link inside: the file it names
    for path, said in (("out-link", "is a symbolic link out of the run directory: copy the file into the run"),
                       ("../outside.txt", "is outside the run"),
                       (str(outside), "is not a path relative to the run directory"),
                       ("sub", "is not a regular file"), ("fifo", "is not a regular file"),
                       ("run.json", "is not a regular file"), ("a\x00b", "is not a path relative")):
        with pytest.raises(NotARunFile, match=said):
            run_file(str(run), path)
    (run / "run.json").write_text("{}")
    with pytest.raises(NotARunFile, match="the server's own record of the run"):
        run_file(str(run), "run.json", excluded=("run.json",))

    assert read_value_file(str(run), os.path.join("sub", "x.json")) == b"[1, 2]"
    with pytest.raises(NotARunFile, match="over the 5 bytes an output's value file may have"):
        read_value_file(str(run), os.path.join("sub", "x.json"), limit=5)
    with pytest.raises(NotARunFile, match="is not a regular file of the run"):
        read_value_file(str(run), "fifo")  # not waited on
