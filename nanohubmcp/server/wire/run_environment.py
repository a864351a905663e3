"""The environment a program the server starts for a call runs in: the server's own, minus the server's
secrets.

A Rappture tool's program, a Sim2L notebook's kernel, a ``submit`` run and a Slurm job may evaluate
what a client typed (a formula input) or print their environment into a log the client reads (the log
tail of a failed run is in its error). They get everything a program needs from the server's environment
(``PATH``, ``HOME``, ``PYTHONPATH``, ``SESSIONDIR``, ``SESSION``, ``RESULTSDIR``, ``LANG``...) but not the
variables in :data:`SERVER_SECRETS`, which hold the server's bearer token, its Redis credentials and, in a
nanoHUB tool session, the weber path with the session's cookie. An operator whose tool needs one of them
passes it to that tool explicitly (a ``SubmitRun``'s ``env``, or the program's own configuration).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

SERVER_SECRETS: tuple[str, ...] = (
    "MCP_TOKEN",  # the static bearer token (auth.verifiers.MCP_TOKEN_ENV)
    "NANOHUBMCP_STATE_URL",  # the Redis URL with its password (state.url.ENV_VAR)
    "NANOHUBMCP_CHILD_PATH_PREFIX",  # start_mcp's weber path, with the session cookie (nanohub.child)
    "NANOHUBMCP_CHILD_PUBLIC_URL",  # the public URL, the same path (nanohub.child)
    "MCP_PATH_PREFIX",  # an operator's path prefix (transports.proxy_option), on a hub the weber path
    "MCP_PUBLIC_URL",  # an operator's public URL (transports.proxy_option), on a hub with the weber path
)
"""The variables a program started for a call never gets (their names; the values are never logged)."""


def run_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of ``base`` (default: this process's ``os.environ``) without :data:`SERVER_SECRETS`.

    Returns:
        a new dict of variable names to values, for ``subprocess.Popen(env=...)`` and the like.
    """
    source = os.environ if base is None else base
    return {name: value for name, value in source.items() if name not in SERVER_SECRETS}


def sbatch_export() -> str:
    """The value of ``sbatch --export`` that gives a Slurm job this process's environment but the
    server's secrets empty: ``ALL,MCP_TOKEN=,...`` (sbatch's own syntax, ``--export=ALL,VAR=value``)."""
    return ",".join(["ALL", *(f"{name}=" for name in SERVER_SECRETS)])
