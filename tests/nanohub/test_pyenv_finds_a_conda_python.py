"""conda_env_python: ``conda info --json`` -> an environment's interpreter, or a clear error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from nanohub_standins import Hub, write_executable

from nanohubmcp.errors import ConfigurationError
from nanohubmcp.nanohub.pyenv import conda_env_python


def make_env(root: Path, name: str, python: str | None = "bin/python3") -> Path:
    prefix = root / "conda" / "envs" / name
    (prefix / "bin").mkdir(parents=True)
    if python:
        (prefix / python).symlink_to(sys.executable)
    return prefix


def test_the_named_environment_s_python_is_returned(hub: Hub) -> None:
    prefix = make_env(hub.root, "AIIDA")
    hub.conda({"AIIDA": prefix, "other": make_env(hub.root, "other")})
    assert conda_env_python("AIIDA", environ=hub.env()) == prefix / "bin" / "python3"


def test_bin_python_is_used_when_there_is_no_python3(hub: Hub) -> None:
    prefix = make_env(hub.root, "old", python="bin/python")
    hub.conda({"old": prefix})
    assert conda_env_python("old", environ=hub.env()) == prefix / "bin" / "python"


def test_base_is_the_root_prefix(hub: Hub) -> None:
    root = hub.root / "conda"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "python3").symlink_to(sys.executable)
    hub.conda({}, root=root)
    assert conda_env_python("base", environ=hub.env()) == root / "bin" / "python3"


def test_an_unknown_environment_lists_the_known_ones(hub: Hub) -> None:
    hub.conda({"AIIDA": make_env(hub.root, "AIIDA")})
    with pytest.raises(ConfigurationError, match=r"no environment named 'nope' \(it has: AIIDA, base\)"):
        conda_env_python("nope", environ=hub.env())


def test_an_environment_without_python_is_refused(hub: Hub) -> None:
    hub.conda({"empty": make_env(hub.root, "empty", python=None)})
    with pytest.raises(ConfigurationError, match="has no Python interpreter"):
        conda_env_python("empty", environ=hub.env())


def test_missing_conda_says_how_to_get_it(hub: Hub) -> None:
    env = {**hub.env(), "PATH": str(hub.bin)}
    env.pop("CONDA_EXE", None)
    with pytest.raises(ConfigurationError, match="no `conda` is on PATH"):
        conda_env_python("AIIDA", environ=env)


@pytest.mark.parametrize(
    ("script", "words"),
    [
        ("#!/bin/sh\necho 'CondaError: broken' >&2\nexit 3\n", "failed with status 3: CondaError: broken"),
        ("#!/bin/sh\necho not json\n", "did not print JSON"),
        ("#!/bin/sh\nsleep 30\n", "did not answer within 1 s"),
    ],
)
def test_conda_failures_become_configuration_errors(hub: Hub, script: str, words: str) -> None:
    write_executable(hub.bin / "conda", script)
    with pytest.raises(ConfigurationError, match=words):
        conda_env_python("AIIDA", environ=hub.env(), timeout=1.0)


def test_conda_exe_is_used_when_conda_is_not_on_path(hub: Hub) -> None:
    prefix = make_env(hub.root, "AIIDA")
    hub.conda({"AIIDA": prefix})
    moved = hub.root / "conda-elsewhere"
    (hub.bin / "conda").rename(moved)
    env = {**hub.env(), "PATH": "/usr/bin:/bin", "CONDA_EXE": str(moved)}
    assert conda_env_python("AIIDA", environ=env) == prefix / "bin" / "python3"
