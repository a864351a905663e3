"""A process that exits right after its server's first call is not held by the read of the installed-distributions
table (over 5 s here; 0.2-1.7 s natively: a notebook kernel's shutdown waited for it, helper exitflake), and the
table, read by a child process, is the in-process read's, to the byte.

The table was read on a non-daemon thread of the process (a daemon reading metadata at finalization can crash it),
which the exit joined. It is now read by a child process (``nanohubmcp.server.provenance.distributions_read``) the
exit kills; only when no child can be started (no ``sys.executable``) is it read in-process, as before. The slow read
is real: a ``sys.path`` entry of many distributions sharing one import name (:mod:`slow_site`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from slow_site import answer_on_slow_site, slow_site

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

EXITED_WITHIN = 2.5
"""Seconds from the script's last line to its process's end at most (the table's read takes over 5 s here)."""

EXITS = """
import json, sys
from nanohubmcp import MCPServer
from nanohubmcp.server.provenance import code_facts, distributions_read

server = MCPServer("exiting", state_dir=sys.argv[1])

@server.tool()
def double(x: int) -> int:
    '''Double.'''
    return 2 * x

server.start(port=0)
server.call("double", {"x": 1})
server.stop()
child = distributions_read.READER.child
print(json.dumps({"read": code_facts._table is not None, "child": child.pid if child is not None else None}),
      flush=True)
"""


def test_an_exit_right_after_the_first_call_is_not_held_by_the_tables_read(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": slow_site(tmp_path / "site"), "MCP_TOKEN": ""}
    process = subprocess.Popen([sys.executable, "-c", EXITS, str(tmp_path / "state")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        printed = time.monotonic()
        process.wait(120)
        took = time.monotonic() - printed
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.stderr is not None
    errors = process.stderr.read()
    assert line, errors
    answer = json.loads(line)
    assert answer["read"] is False, answer  # (else the read was not slow: the test proves nothing)
    assert process.returncode == 0, errors
    assert took < EXITED_WITHIN, f"the exit took {took:.1f} s"
    assert "Traceback" not in errors, errors
    if answer["child"] is not None:  # the child reading the table was killed by the exit, not left running
        assert not Path(f"/proc/{answer['child']}").exists() or "Z" in _state(answer["child"])


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return "Z"


def test_the_childs_table_is_the_in_process_reads_to_the_byte(tmp_path: Path) -> None:
    from nanohubmcp.server.provenance import distributions_read

    shared = tmp_path / "site"  # two distributions sharing one import name, as a namespace package
    for name, module in (("nsone", "alpha"), ("nstwo", "beta")):
        info = shared / f"{name}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        (info / "RECORD").write_text(f"nsshared/{module}.py,,\nnsshared/{module}/x.py,,\n")
        # the files RECORD lists exist, as in a real install: once the importlib_metadata backport is imported
        # (papermill does), it patches the standard library's read to leave out listed files that are missing —
        # the in-process read then differs from the isolated child's for a reason no real install has
        (shared / "nsshared" / module).mkdir(parents=True)
        (shared / "nsshared" / f"{module}.py").write_text("")
        (shared / "nsshared" / module / "x.py").write_text("")
    sys.path.append(str(shared))
    try:
        here = distributions_read.read_table()
        child = distributions_read.child_table(distributions_read.start_child(), 120)
    finally:
        sys.path.remove(str(shared))
    # (the keys' order is not the same from one process to the next, read either way: packages_distributions()
    # infers some names through a set, ordered by the process's string hashes)
    assert json.dumps(child, sort_keys=True) == json.dumps(here, sort_keys=True)
    assert child is not None
    assert child["nsshared.alpha"] == ["nsone"]
    assert child["nsshared.beta"] == ["nstwo"]
    assert "yaml" not in child or "PyYAML" in child["yaml"]


RECORDS = """
import json, sys
{prepare}
from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.records import record_id_of
import yaml

server = MCPServer("recording", state_dir=sys.argv[1])

@server.tool()
def dumped(x: int) -> str:
    '''YAML of x.'''
    return yaml.safe_dump(x)

server.start(port=0)
first = server.call("dumped", {{"x": 1}})
record = server.core.provenance.find(record_id_of(first["_meta"]["io.nanohub/provenance"]))
server.stop()
print(json.dumps({{"packages": record["packages"], "complete": record["packages_complete"]}}))
"""


@pytest.mark.parametrize("prepare", ["", "sys.executable = ''  # no child can be started: read in-process"],
                         ids=["child", "in-process"])
def test_the_first_record_names_its_packages_read_either_way(tmp_path: Path, prepare: str) -> None:
    pytest.importorskip("yaml")
    from importlib import metadata

    answer = answer_on_slow_site(RECORDS.format(prepare=prepare), tmp_path)
    assert answer["complete"] is True, answer
    assert answer["packages"]["PyYAML"] == metadata.version("PyYAML"), answer


FORKED = """
import json, os, sys
from nanohubmcp.server.provenance import code_facts

code_facts.warm()  # the parent's child reads; a fork made meanwhile reads again with a child of its own
pid = os.fork()
if pid == 0:
    table = code_facts.distributions(wait=True)
    os.write(1, (json.dumps({"forked": table is not None and "slowshared" in table}) + "\\n").encode())
    os._exit(0)
os.waitpid(pid, 0)
table = code_facts.distributions(wait=True)
print(json.dumps({"parent": table is not None and "slowshared" in table}))
"""


def test_a_process_forked_during_the_read_reads_the_table_too(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": slow_site(tmp_path / "site")}
    done = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True, timeout=150, env=env)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert {"forked": True} in lines, (lines, done.stderr)
    assert {"parent": True} in lines, (lines, done.stderr)
