"""Under ``pytest -n 2 --dist loadgroup`` (scripts/test) with the suite's ``tests/conftest.py``, a test file's tests
run in one worker, and every test that asks for the Slurm cluster in one worker, whatever file it is in.

With pytest 9.2 and pytest-xdist 3.8 they did not: xdist's loadgroup scheduler reads a test's group from a suffix
it adds to the node id, which pytest 9.2 no longer takes (pytest-dev/pytest-xdist#1386), so every test was handed
out on its own: a file's module fixtures started in both workers, and Slurm tests ran side by side although some
restart the cluster's daemons. A small suite of its own here, run by a real pytest with the real conftest.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

PLAIN = """
import pytest

@pytest.mark.parametrize("n", range(6))
def test_plain(n):
    pass
"""

SLURM = """
import pytest

@pytest.fixture
def slurm_cluster():
    return "node"  # a stand-in: the group comes from the fixture's name

def test_on_the_cluster(slurm_cluster):
    pass

@pytest.mark.parametrize("n", range(3))
def test_beside_it(n):
    pass
"""


def test_each_files_tests_and_every_slurm_test_run_in_one_worker(tmp_path: Path) -> None:
    for name in ("test_one", "test_two", "test_three"):
        (tmp_path / f"{name}.py").write_text(PLAIN)
    for name in ("test_slurm_a", "test_slurm_b"):
        (tmp_path / f"{name}.py").write_text(SLURM)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
         "-v", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    workers: dict[str, set[str]] = defaultdict(set)
    for worker, nodeid in re.findall(r"\[(gw\d)\] \[\s*\d+%\] PASSED (\S+)", done.stdout):
        file, _, test = nodeid.partition("::")
        workers["slurm" if test.startswith("test_on_the_cluster") else file].add(worker)
    assert len(workers) == 6, done.stdout
    assert all(len(ran_on) == 1 for ran_on in workers.values()), dict(workers)
