"""Every module of ``nanohubmcp`` imports on its own in a fresh interpreter.

An import cycle hides as long as some other module happens to be imported first (the package's
``__init__``, a test's imports); importing each module first, alone, shows it. One interpreter
lists the modules, then forks a child per module that imports just that one, so each import
starts from a ``sys.modules`` holding no ``nanohubmcp`` module. Up to :data:`AT_ONCE` children
run at a time (each is a fork of the same clean interpreter, so running them side by side checks
the same thing; one after another took about 24 s).
"""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
import textwrap

import pytest

import nanohubmcp

MODULES = sorted(
    [nanohubmcp.__name__]
    + [info.name for info in pkgutil.walk_packages(nanohubmcp.__path__, prefix=f"{nanohubmcp.__name__}.")]
)

AT_ONCE = max(2, min(4, os.cpu_count() or 1))
"""Children importing at the same time."""

PROBE = textwrap.dedent("""
    import collections, importlib, json, os, sys, traceback

    def start(name):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                importlib.import_module(name)
                report = b""
            except BaseException:
                report = traceback.format_exc().encode() or b"failed"
            os.write(write, report)
            os._exit(0)
        os.close(write)
        return name, pid, read

    def finish(name, pid, read):
        chunks = []
        while chunk := os.read(read, 65536):
            chunks.append(chunk)
        os.close(read)
        _, status = os.waitpid(pid, 0)
        report = b"".join(chunks).decode(errors="replace")
        if report or status != 0:
            failures[name] = report or f"exit status {status}"

    failures = {}
    running = collections.deque()
    # The oldest child is read to its end first: a later one whose report fills its pipe waits for
    # its turn, never the other way round.
    for name in json.loads(sys.argv[1]):
        if len(running) >= int(sys.argv[2]):
            finish(*running.popleft())
        running.append(start(name))
    while running:
        finish(*running.popleft())
    print(json.dumps(failures))
""")


def test_the_walk_finds_the_modules_of_every_layer() -> None:
    for layer in ("protocol", "schema", "server", "transports", "nanohub", "jupyter"):
        assert f"nanohubmcp.{layer}" in MODULES
    assert "nanohubmcp.server.stateless.handlers" in MODULES
    assert len(MODULES) > 80


@pytest.mark.timeout(330)  # the probe's own bound (300 s) first: about 460 imports, slow on a loaded machine
def test_every_module_imports_alone_in_a_fresh_interpreter() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(MODULES), str(AT_ONCE)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    failures = json.loads(done.stdout)
    assert failures == {}, "\n".join(f"--- import {name}\n{report}" for name, report in failures.items())
