"""Find the Python interpreter of a named conda environment (``start_mcp --python-env NAME``).

The environment list comes from ``conda info --json`` (its ``envs`` member: absolute
prefixes; ``root_prefix`` is the ``base`` environment). The interpreter is
``<prefix>/bin/python3`` or ``<prefix>/bin/python`` (``python.exe`` / ``Scripts`` on
Windows). Every failure is a :class:`~nanohubmcp.errors.ConfigurationError` whose
message says what to do; the ``conda`` call has a timeout.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from nanohubmcp.errors import ConfigurationError
from nanohubmcp.nanohub.supervisor import run_bounded

__all__ = ["CONDA_TIMEOUT", "conda_env_python", "env_python"]

CONDA_TIMEOUT = 60.0
"""Seconds allowed for ``conda info --json`` (conda is slow to start on shared filesystems)."""

_CANDIDATES = ("bin/python3", "bin/python", "python.exe", "Scripts/python.exe")


def env_python(prefix: str | os.PathLike[str]) -> Path | None:
    """Return the first executable interpreter under an environment prefix, or None."""
    for relative in _CANDIDATES:
        candidate = Path(prefix, relative)
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _conda_executable(environ: Mapping[str, str]) -> str:
    exe = shutil.which("conda", path=environ.get("PATH")) or environ.get("CONDA_EXE")
    if not exe:
        raise ConfigurationError(
            "--python-env needs conda, but no `conda` is on PATH and CONDA_EXE is not set "
            "(load an Anaconda module first, e.g. with `use`)"
        )
    return exe


def conda_env_python(
    name: str, *, environ: Mapping[str, str] | None = None, timeout: float = CONDA_TIMEOUT
) -> Path:
    """Return the interpreter of the conda environment called ``name``.

    Args:
        name: the environment's name (the last component of its prefix) or ``"base"``.
        environ: environment used to find ``conda`` and run it; ``os.environ`` when None.
        timeout: seconds allowed for ``conda info --json``.

    Raises:
        ConfigurationError: conda is missing, fails, times out, prints no JSON, has no
            such environment (the message lists the ones it has), or the environment
            has no Python.
    """
    env = dict(os.environ if environ is None else environ)
    conda = _conda_executable(env)
    try:
        done = run_bounded([conda, "info", "--json"], timeout=timeout, env=env)
    except OSError as exc:
        raise ConfigurationError(f"cannot run {conda}: {exc}") from exc
    if done is None:
        raise ConfigurationError(f"`conda info --json` did not answer within {timeout:g} s")
    status, stdout, stderr = done
    if status != 0:
        detail = (stderr or stdout).strip().splitlines()
        raise ConfigurationError(
            f"`conda info --json` failed with status {status}" + (f": {detail[-1]}" if detail else "")
        )
    try:
        info = json.loads(stdout)
    except ValueError as exc:
        raise ConfigurationError("`conda info --json` did not print JSON") from exc

    prefixes = [str(p) for p in info.get("envs") or [] if isinstance(p, str)]
    root = info.get("root_prefix")
    named: dict[str, str] = {}
    if isinstance(root, str) and root:
        named["base"] = root
    for p in prefixes:  # the first environment of a name wins, as conda's own lookup does
        named.setdefault(Path(p).name, p)
    prefix = named.get(name)
    if prefix is None:
        known = ", ".join(sorted(named)) or "none"
        raise ConfigurationError(f"conda has no environment named {name!r} (it has: {known})")
    python = env_python(prefix)
    if python is None:
        raise ConfigurationError(f"conda environment {name!r} at {prefix} has no Python interpreter")
    return python
