"""A cached tool's key covers what its code reads through a module of the user's own (trial28
T12: ``import mylib`` / ``mylib.g(x)`` and ``config.SCALE`` were hashed as "a module" only, so
after editing mylib.py a restarted server, or one that ran ``importlib.reload(mylib)``, answered
the old numbers with ``hit: true``).

Real files beside a real app, run as a subprocess: once per start for the restarts, and once for
the reloads (the test edits the files while the app waits on its stdin, then the app reloads).
Every answer is checked against what the tool's function computes when called directly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

CACHE = "io.nanohub/cache"
TOOLS = ("via_module", "via_constant", "via_submodule", "via_from", "via_whole", "via_local_import",
         "via_local_package")

APP = '''
import importlib, json, sys

import config
import mylib
import pkg.sub
from fromlib import k
from nanohubmcp import MCPServer

server = MCPServer("modules", state_dir=sys.argv[1])


@server.tool(cache=True)
def via_module(x: int) -> int:
    """A helper called through its module."""
    return mylib.g(x)


@server.tool(cache=True)
def via_constant(x: int) -> int:
    """A constant read through its module."""
    return x * config.SCALE


@server.tool(cache=True)
def via_submodule(x: int) -> int:
    """A helper of a submodule, called through its package."""
    return pkg.sub.h(x)


@server.tool(cache=True)
def via_from(x: int) -> int:
    """A helper imported by name."""
    return k(x)


@server.tool(cache=True)
def via_whole(x: int) -> int:
    """A module used as a whole (its file is what counts)."""
    return x * getattr(config, "SCALE")


@server.tool(cache=True)
def via_local_import(x: int) -> int:
    """A module imported inside the function (not loaded before the first call)."""
    import locallib
    return locallib.m(x)


@server.tool(cache=True)
def via_local_package(x: int) -> int:
    """A submodule imported inside the function, its package never imported before."""
    import pkg2.deep
    return pkg2.deep.n(x)


def answers():
    found = {}
    for tool in (via_module, via_constant, via_submodule, via_from, via_whole, via_local_import,
                 via_local_package):
        result = server.call(tool.__name__, {"x": 5})
        found[tool.__name__] = [int(result.text), result["_meta"]["io.nanohub/cache"]["hit"], tool(5)]
    print(json.dumps(found), flush=True)


server.start(port=0)
answers()
if sys.argv[2] == "reload":
    while sys.stdin.readline().strip() == "reload":  # the files were edited: load them again
        for module in (config, mylib, pkg.sub, sys.modules["fromlib"], sys.modules["locallib"],
                       sys.modules["pkg2.deep"]):
            importlib.reload(module)
        from fromlib import k  # as a notebook's import cell run again
        answers()
    mylib.g = lambda x: x * 7  # a helper bound anew without any file
    answers()
server.stop()
'''

FILES = {
    "mylib.py": "CONST = 2\n\n\ndef g(x):\n    return x * CONST\n",
    "config.py": "SCALE = 2\n",
    "pkg/__init__.py": "",
    "pkg/sub.py": "def h(x):\n    return x + 1\n",
    "fromlib.py": "def k(x):\n    return x * 3\n",
    "locallib.py": "def m(x):\n    return x - 1\n",
    "pkg2/__init__.py": "",
    "pkg2/deep.py": "def n(x):\n    return x + 2\n",
}


def write(app: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (app / name).parent.mkdir(parents=True, exist_ok=True)
        (app / name).write_text(text)


def edited() -> dict[str, str]:
    """Each module's code or constant changed (and each file's size: no stat can miss the edit)."""
    return {
        "mylib.py": "CONST = 2\n\n\ndef g(x):\n    return x * CONST * 100\n",
        "config.py": "SCALE = 30\n",
        "pkg/sub.py": "def h(x):\n    return x + 1000\n",
        "fromlib.py": "def k(x):\n    return x * 300\n",
        "locallib.py": "def m(x):\n    return x - 1000\n",
        "pkg2/deep.py": "def n(x):\n    return x + 2000\n",
    }


def start(tmp_path: Path, mode: str) -> subprocess.Popen[str]:
    app = tmp_path / "app"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # no .pyc that an edit within one second could hide
    return subprocess.Popen([sys.executable, str(app / "app.py"), str(tmp_path / "state"), mode], cwd=app, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def read(process: subprocess.Popen[str]) -> dict[str, list[Any]]:
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        process.wait(60)
        assert process.stderr is not None
        raise AssertionError(process.stderr.read())
    answers: dict[str, list[Any]] = json.loads(line)
    for name, (answer, _hit, truth) in answers.items():
        assert answer == truth, f"{name} answered {answer}, its code computes {truth}: {answers}"
    return answers


def hits(answers: dict[str, list[Any]]) -> dict[str, bool]:
    return {name: hit for name, (_answer, hit, _truth) in answers.items()}


def run(tmp_path: Path) -> dict[str, list[Any]]:
    process = start(tmp_path, "once")
    try:
        answers = read(process)
        assert process.wait(60) == 0
    finally:
        process.kill()
        process.communicate()
    return answers


def setup(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "app.py").write_text(APP)
    write(tmp_path / "app", FILES)


def test_a_restarted_server_runs_again_after_a_module_helper_or_constant_changed(tmp_path: Path) -> None:
    setup(tmp_path)
    assert hits(run(tmp_path)) == dict.fromkeys(TOOLS, False)
    assert hits(run(tmp_path)) == dict.fromkeys(TOOLS, True)  # nothing changed: kept across the restart
    write(tmp_path / "app", edited())
    first = run(tmp_path)
    assert {name: answer for name, (answer, _, _) in first.items()} == {
        "via_module": 1000, "via_constant": 150, "via_submodule": 1005, "via_from": 1500, "via_whole": 150,
        "via_local_import": -995, "via_local_package": 2005}
    assert hits(first) == dict.fromkeys(TOOLS, False)
    assert hits(run(tmp_path)) == dict.fromkeys(TOOLS, True)
    # A constant of the helper's module, read by the helper by its bare name: only the tool reaching it runs.
    write(tmp_path / "app", {"mylib.py": "CONST = 20\n\n\ndef g(x):\n    return x * CONST * 100\n"})
    assert hits(run(tmp_path)) == {**dict.fromkeys(TOOLS, True), "via_module": False}


def test_after_importlib_reload_the_edited_modules_are_new_keys(tmp_path: Path) -> None:
    setup(tmp_path)
    process = start(tmp_path, "reload")
    assert process.stdin is not None
    try:
        assert hits(read(process)) == dict.fromkeys(TOOLS, False)
        process.stdin.write("reload\n")  # unchanged files reloaded: the same keys
        process.stdin.flush()
        assert hits(read(process)) == dict.fromkeys(TOOLS, True)
        write(tmp_path / "app", edited())
        process.stdin.write("reload\n")
        process.stdin.flush()
        assert hits(read(process)) == dict.fromkeys(TOOLS, False)
        write(tmp_path / "app", {"config.py": "SCALE = 4000\n"})
        process.stdin.write("reload\n")
        process.stdin.flush()
        assert hits(read(process)) == {**dict.fromkeys(TOOLS, True), "via_constant": False, "via_whole": False}
        process.stdin.write("done\n")
        process.stdin.flush()
        assert hits(read(process)) == {**dict.fromkeys(TOOLS, True), "via_module": False}  # mylib.g = ...
        assert process.wait(60) == 0
    finally:
        process.kill()
        process.communicate()
