"""The record of a server's first call lists the packages its tool's module uses, complete, though the
installed-distributions table (over a second to read on a busy machine) is read in the background: the
record's writer waits for it, the call never does (trial 18, F2: the first records said ``{}``).

Import names map to distributions the standard way (``yaml`` is PyYAML, ``PIL`` pillow), and a name
several distributions share (the ``opentelemetry`` namespace) maps by its part the module uses. Only a
table not read in time (``code_facts.WAIT_SECONDS``) leaves a list looked up by import name, and then the
record and its RO-Crate say it is incomplete. Each script runs in a fresh process: the table is read once
per process. Holding the table's lock keeps it from being kept: a call that waited for it would hang."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("yaml")
pytest.importorskip("PIL")
pytest.importorskip("opentelemetry.trace")

PROLOGUE = """
import json, sys, tempfile
import yaml, PIL.Image
from opentelemetry import trace
from nanohubmcp import MCPServer
from nanohubmcp.server.provenance import code_facts
from nanohubmcp.server.provenance.records import record_id_of

server = MCPServer("pk", state_dir=sys.argv[1])

@server.tool()
def norm(x: list[float]) -> float:
    \"\"\"Norm.\"\"\"
    return sum(x)

def record_of(result):
    return server.core.provenance.find(record_id_of(result["_meta"]["io.nanohub/provenance"]))

server.start(port=0)
code_facts.warm()
code_facts._table_lock.acquire()  # the table is not kept while this is held
try:
    assert code_facts._table is None, "read before the first call"
    first = server.call("norm", {"x": [3, 4]})  # (a call that waited for the table would never answer)
    assert code_facts._table is None
finally:
    if code_facts._table_lock.locked():
        code_facts._table_lock.release()
"""

COMPLETE = PROLOGUE + """
record = record_of(first)
print(json.dumps({"packages": record["packages"], "complete": record.get("packages_complete")}))
server.stop()
"""

LATE = PROLOGUE.replace("    assert code_facts._table is None\n", '''    assert code_facts._table is None
    code_facts.WAIT_SECONDS = 0  # as if the table took longer than the writer waits
    server.core.provenance.pending.drain()
''') + """
code_facts._table_reader.join(120)
record = record_of(first)
later = record_of(server.call("norm", {"x": [1]}))
from nanohubmcp.server.provenance.crate import export
crate = json.loads((export(server.core.provenance, record["id"], sys.argv[2]) / "ro-crate-metadata.json").read_text())
code = next(e for e in crate["@graph"] if "SoftwareSourceCode" in e.get("@type", ()))
print(json.dumps({"first": record["packages_complete"], "later": later["packages_complete"],
                  "later_packages": later["packages"], "description": code["description"]}))
server.stop()
"""


def run(script: str, *args: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def test_the_first_record_names_distributions_whose_import_names_differ(tmp_path: Path) -> None:
    from importlib import metadata

    answer = run(COMPLETE, tmp_path / "state")
    packages = answer["packages"]
    assert isinstance(packages, dict)
    assert packages["PyYAML"] == metadata.version("PyYAML")
    assert packages["pillow"] == metadata.version("pillow")
    assert packages["opentelemetry-api"] == metadata.version("opentelemetry-api")  # opentelemetry.trace's
    assert not [name for name in packages if name.startswith("opentelemetry-sdk")]  # not imported by the module
    assert answer["complete"] is True


def test_a_list_made_without_the_table_says_so_in_the_record_and_the_crate(tmp_path: Path) -> None:
    pytest.importorskip("rocrate")
    answer = run(LATE, tmp_path / "state", tmp_path / "crate")
    assert answer["first"] is False
    assert "may miss packages" in str(answer["description"])
    assert answer["later"] is True  # the next record, once the table is read, is complete
    assert "PyYAML" in answer["later_packages"]  # type: ignore[operator]
