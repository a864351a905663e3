"""Find nanoHUB's wrwroxy reverse proxy through ``use`` and build the command that starts it.

wrwroxy is the hub's small reverse proxy for web apps in tool sessions: it listens on the
weber port (8000), strips the ``/weber/<session>/<cookie>/<port>/`` path and forwards
to the app. It is installed as environment modules named ``wrwroxy-<version>`` that the
``use`` command (defined by the login shell) lists on **stderr** and activates with
``use -e <name>``.

This module owns discovery (:func:`find_wrwroxy`, :func:`pick_highest`) and the command
line (:func:`wrwroxy_command`); starting and supervising the process is the launcher's
job. The ``use`` call has a timeout and is killed with its whole process group.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

from nanohubmcp.nanohub.supervisor import run_bounded

__all__ = [
    "USE_TIMEOUT",
    "find_wrwroxy",
    "parse_use_listing",
    "pick_highest",
    "version_key",
    "wrwroxy_command",
]

USE_TIMEOUT = 10.0
"""Seconds allowed for ``bash -lc use`` (a login shell can be slow on a busy hub)."""

_NAME = re.compile(r"^wrwroxy-(\d+(?:\.\d+)*)$")


def version_key(name: str) -> tuple[int, ...] | None:
    """Return the numeric version of ``wrwroxy-<a.b.c>`` as a tuple, or None if it has none.

    Example:
        >>> version_key("wrwroxy-0.10") > version_key("wrwroxy-0.9")
        True
    """
    match = _NAME.match(name)
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def parse_use_listing(text: str) -> list[str]:
    """Return the ``wrwroxy-<version>`` names in a ``use`` listing, in order of appearance.

    Tokens are split on whitespace; trailing ``:``/``,``/``;`` and surrounding quotes or
    brackets are dropped; names without a numeric version are ignored; duplicates kept once.
    """
    found: list[str] = []
    for token in text.split():
        name = token.strip("\"'()[]{}<>:,;")
        if version_key(name) is not None and name not in found:
            found.append(name)
    return found


def pick_highest(names: Iterable[str]) -> str | None:
    """Return the name with the highest numeric version (``0.10`` beats ``0.9``), or None."""
    versioned = [(key, name) for name in names if (key := version_key(name)) is not None]
    return max(versioned)[1] if versioned else None


def find_wrwroxy(timeout: float = USE_TIMEOUT) -> str | None:
    """Run ``bash -lc use`` and return the newest wrwroxy module name, or None.

    None covers every way of not finding one: no ``bash``, no ``use`` in the login
    shell, a timeout, or a listing without wrwroxy. Both output streams are searched
    (``use`` prints its listing to stderr).
    """
    try:
        done = run_bounded(["bash", "-lc", "use"], timeout=timeout)
    except OSError:
        return None
    if done is None:
        return None
    _, out, err = done
    return pick_highest(parse_use_listing(err + "\n" + out))


def wrwroxy_command(
    version: str,
    *,
    forward_port: int,
    listen_port: int = 8000,
    listen_host: str = "0.0.0.0",
    forward_host: str = "127.0.0.1",
    debug: bool = False,
) -> list[str]:
    """Return the argv that activates ``version`` and execs wrwroxy in a login shell.

    Example:
        >>> wrwroxy_command("wrwroxy-0.10", forward_port=8001)[-1].split(" --")
        ['use -e wrwroxy-0.10 && exec wrwroxy', 'listenHost 0.0.0.0', 'listenPort 8000', \
'forwardHost 127.0.0.1', 'forwardPort 8001']
    """
    args = [
        "wrwroxy",
        "--listenHost", listen_host,
        "--listenPort", str(listen_port),
        "--forwardHost", forward_host,
        "--forwardPort", str(forward_port),
    ]  # fmt: skip
    if debug:
        args.append("--stream-log")
    script = f"use -e {shlex.quote(version)} && exec {shlex.join(args)}"
    return ["bash", "-lc", script]
