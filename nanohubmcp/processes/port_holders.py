"""Why a port no server listens on cannot be bound: a connection holds it as its own end.

Linux refuses to bind a port (``EADDRINUSE``, even with ``SO_REUSEADDR``) that a connection of any program took as
its local port: a client's connection is given one from the ephemeral range
(``/proc/sys/net/ipv4/ip_local_port_range``, 32768-60999 by default) and holds it while it is open and up to a
minute after it closed (TIME-WAIT). "Stop the other server" then sends an operator hunting for a server that does
not exist. :func:`held_by_connection` tells that case apart, reading the kernel's socket tables (``/proc/net/tcp``,
``/proc/net/tcp6``: the sockets of this network namespace), and :func:`connection_note` says what to do instead: a
port outside the range.
Elsewhere than Linux (no such tables) it says nothing, and the refusal keeps its usual words.
"""

from __future__ import annotations

__all__ = ["connection_note", "ephemeral_range", "held_by_connection", "local_states"]

_LISTEN = "0A"
"""A socket's state in ``/proc/net/tcp`` when it listens (``TCP_LISTEN``)."""
_TABLES = ("/proc/net/tcp", "/proc/net/tcp6")
_RANGE = "/proc/sys/net/ipv4/ip_local_port_range"


def local_states(port: int) -> list[str] | None:
    """The states (``/proc/net/tcp``'s hexadecimal codes: ``0A`` listen, ``06`` TIME-WAIT, ``01`` established, ...)
    of the TCP sockets whose local port is ``port``, IPv4 and IPv6; None when the tables cannot be read."""
    states: list[str] = []
    read = False
    for table in _TABLES:
        try:
            lines = _text(table).splitlines()[1:]
        except OSError:
            continue
        read = True
        for line in lines:
            fields = line.split()
            if len(fields) > 3 and fields[1].rpartition(":")[2] == f"{port:04X}":
                states.append(fields[3])
    return states if read else None


def ephemeral_range() -> tuple[int, int] | None:
    """The ports (first, last) the system gives client connections as their local ports; None when unknown."""
    try:
        first, last = (int(word) for word in _text(_RANGE).split())
    except (OSError, ValueError):
        return None
    return first, last


def held_by_connection(port: int) -> bool:
    """Whether TCP sockets have ``port`` as their local port and none of them listens (False when the tables
    cannot be read: not Linux)."""
    states = local_states(port)
    return bool(states) and _LISTEN not in (states or ())


def connection_note(port: int, any_port: str | None) -> str:
    """Why ``port``, which :func:`held_by_connection`, is in use and what to do: the text after "port P on HOST is
    already in use, " (``any_port``: how to ask for any free port, e.g. ``--port 0``; None: no such way)."""
    held = ("though no server listens on it: a connection holds it as its local end (a client's connection is "
            "given a port of its own and keeps it while open and up to a minute after it closes, in TIME-WAIT)")
    free = f", or use {any_port} for any free port" if any_port else ""
    ports = ephemeral_range()
    if ports is not None and ports[0] <= port <= ports[1]:
        first, last = ports
        in_range = f"{held}; {port} is in the range the system gives client connections ({first}-{last}, {_RANGE})"
        outside = _outside(first, last)
        if outside is None:
            return (f"{in_range}, which holds every unprivileged port: wait for the connection to close (up to a "
                    f"minute after, in TIME-WAIT), or reserve the port for servers (sysctl "
                    f"net.ipv4.ip_local_reserved_ports={port}){free}")
        return f"{in_range}: pick a port outside it, e.g. {outside}{free}"
    return f"{held}: wait a minute, pick another port{free}"


_PRIVILEGED_BELOW = 1024
"""Ports below this are root's: never suggested."""
_LAST_PORT = 65535


def _outside(first: int, last: int) -> str | None:
    """A port outside the ephemeral range ``first``-``last`` that an unprivileged server may take, said as
    advice (below it when there is room, else above it); None when the range holds every such port."""
    if first > 2048 or (first > _PRIVILEGED_BELOW and last >= _LAST_PORT):
        return f"one below {first}"
    if last < _LAST_PORT:
        return f"one above {last}"
    return None


def _text(path: str) -> str:
    # open(), not pathlib (which every server's start would import for this: ~1 M instructions)
    with open(path) as table:
        return table.read()
