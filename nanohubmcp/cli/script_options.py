"""The options a script of your own shares with the ``nanohubmcp`` subcommands, checked as they check them.

``--port N`` (:func:`add_port_option`: else ``$MCP_PORT``, else a default; 0-65535),
``--transport http|stdio`` (:func:`add_transport_option`: else ``$MCP_TRANSPORT``, else http) and
``--token-file PATH`` / ``--token TOKEN`` (:func:`add_script_token_options`; :func:`required_token`
when the script must not serve without one over HTTP), for the ``argparse`` parser of a script that serves
with ``server.run(port=args.port, transport=args.transport, token=args.token)`` (an exported notebook's
``start_mcp.py`` is one).
:func:`port_number` is also the ``--port`` type of the serving
subcommands (:mod:`.serving_options`). A bad value ends ``parse_args`` as it ends a subcommand's (each
function says how). The subcommands' parsers themselves are :mod:`.parser`'s.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..auth.token_option import add_token_options
from ..auth.verifiers import ENV_SOURCE, MCP_TOKEN_ENV, checked_token, token_required_message
from ..errors import ConfigurationError
from ..transports.port_option import port_number
from ..transports.proxy_option import FromEnvironment, named_source

__all__ = [
    "PORT_VARIABLE",
    "TRANSPORT_VARIABLE",
    "add_port_option",
    "add_script_token_options",
    "add_transport_option",
    "keep_stdout_for_stdio",
    "port_number",
    "required_token",
    "transport_name",
]


PORT_VARIABLE = "MCP_PORT"
"""The environment variable a server's port comes from when no ``--port`` (or ``port=``) is given."""


def add_port_option(parser: argparse.ArgumentParser, *, default: int = 8000, help: str | None = None) -> None:
    """Add ``--port N`` to a script's ``parser``, as the ``nanohubmcp`` subcommands check it.

    ``args.port`` is then an int: ``--port``, else ``$MCP_PORT``, else ``default``; 0 means any free
    port. A value outside 0-65535 or not a whole number, given as ``--port`` or in ``$MCP_PORT`` (read
    only when ``--port`` is not given), is a usage error: ``parse_args`` prints the usage and one line
    saying what is accepted, and exits with status 2.

    Args:
        parser: the script's parser.
        default: the port when neither ``--port`` nor ``$MCP_PORT`` gives one.
        help: the option's help text (default: says the range and the defaults).

    Example:
        ```python
        import argparse

        from nanohubmcp.cli import add_port_option

        parser = argparse.ArgumentParser()
        add_port_option(parser, default=8123)
        args = parser.parse_args(["--port", "9000"])
        assert args.port == 9000
        ```
    """
    environ = os.environ.get(PORT_VARIABLE, "").strip()
    parser.add_argument(
        "--port", type=port_number, metavar="N",
        default=FromEnvironment(environ, PORT_VARIABLE) if environ else default,
        help=help or f"TCP port, 0-65535 (0: any free port; default ${PORT_VARIABLE}, else {default})")


TRANSPORT_VARIABLE = "MCP_TRANSPORT"
"""The environment variable a server's transport comes from when no ``--transport`` (or ``transport=``) is given."""


def transport_name(text: str) -> str:
    """``"http"`` or ``"stdio"`` (argparse type; any case, outer blanks ignored). A value that is the
    default :func:`add_transport_option` read from ``$MCP_TRANSPORT`` is named so in the message."""
    chosen = text.strip().lower()
    if chosen not in ("http", "stdio"):
        raise argparse.ArgumentTypeError(
            f"{named_source(text)}must be http or stdio (stdio: a desktop client starts the server), not {text!r}")
    return chosen


def _environment_transport() -> str | None:
    """``$MCP_TRANSPORT`` as :func:`transport_name` reads it; None when unset, blank or not a transport."""
    try:
        return transport_name(os.environ.get(TRANSPORT_VARIABLE, "")) or None
    except argparse.ArgumentTypeError:
        return None


def add_transport_option(parser: argparse.ArgumentParser, *, help: str | None = None) -> None:
    """Add ``--transport http|stdio`` to a script's ``parser``, read as ``server.run(transport=...)`` reads it.

    ``args.transport`` is then ``"http"`` or ``"stdio"``: ``--transport``, else ``$MCP_TRANSPORT``, else
    ``"http"``. Over stdio a desktop client starts the script and talks MCP on its stdin and stdout, so
    the script must print nothing on stdout and needs no token (:func:`required_token` with
    ``transport=args.transport``). Another value, given either way, is a usage error: ``parse_args``
    prints the usage and one line saying what is accepted, and exits with status 2.

    Args:
        parser: the script's parser.
        help: the option's help text (default: says the values and the default).

    Example:
        ```python
        import argparse

        from nanohubmcp.cli import add_transport_option

        parser = argparse.ArgumentParser()
        add_transport_option(parser)
        assert parser.parse_args(["--transport", "stdio"]).transport == "stdio"
        ```
    """
    environ = os.environ.get(TRANSPORT_VARIABLE, "").strip()
    parser.add_argument(
        "--transport", type=transport_name, metavar="{http,stdio}",
        default=FromEnvironment(environ, TRANSPORT_VARIABLE) if environ else "http",
        help=help or f"http, or stdio for a desktop client that starts this script (default ${TRANSPORT_VARIABLE}, "
        "else http)")


def keep_stdout_for_stdio(argv: list[str] | None = None) -> bool:
    """When a script is started over stdio (``--transport stdio`` in ``argv``, default ``sys.argv``, else
    ``$MCP_TRANSPORT=stdio``), point stdout at stderr now, before the script's own code runs, and keep the
    real stdout for MCP messages alone: a ``print()`` at import would otherwise reach the client first.
    Returns whether it did. A script calls it at its top (an exported ``start_mcp.py`` does), before it
    parses its options; a bad ``--transport`` is left for :func:`add_transport_option` to refuse.
    """
    args = sys.argv[1:] if argv is None else argv
    chosen = None
    for index, arg in enumerate(args):
        if arg == "--transport" and index + 1 < len(args):
            chosen = args[index + 1]
        elif arg.startswith("--transport="):
            chosen = arg.partition("=")[2]
    if chosen is None:
        chosen = os.environ.get(TRANSPORT_VARIABLE, "")
    if chosen.strip().lower() != "stdio":
        return False
    from ..transports.lines import protect_stdout  # what server.run(transport="stdio") writes to, kept

    protect_stdout()
    return True


def add_script_token_options(parser: argparse.ArgumentParser, *, help: str | None = None,
                             directory: str | None = None) -> None:
    """Add ``--token-file PATH`` and ``--token TOKEN`` to a script's ``parser``, as the ``nanohubmcp``
    subcommands check them.

    ``args.token`` is then the token (a string) or None when neither option is given, for
    ``server.run(token=args.token)``: None reads ``$MCP_TOKEN`` (an empty one reads as unset). The
    token file must be readable by its owner only (``chmod 600``) and not empty, else ``parse_args``
    prints one line and exits with status 1. ``--token T`` works but warns on stderr (``ps`` shows a
    command line to every user of the machine); an empty one — what ``--token "$VAR"`` gives when
    ``VAR`` is unset — is a usage error: ``parse_args`` prints the usage and one line and exits with
    status 2, instead of serving with no authorization.

    Args:
        parser: the script's parser.
        help: what the token is for, in ``--token``'s help (default: the bearer token clients send).
        directory: where a relative ``--token-file`` PATH is read from (default: the working directory); an
            exported script gives the directory it was started in, as it changes to the notebook's folder
            (:func:`~.script_folder.work_in_notebook_folder`).

    Example:
        ```python
        import argparse

        from nanohubmcp.cli import add_script_token_options

        parser = argparse.ArgumentParser()
        add_script_token_options(parser)
        assert parser.parse_args([]).token is None  # server.run(token=None) reads $MCP_TOKEN
        ```
    """
    add_token_options(parser, help or "bearer token every request must carry", resolve=True, directory=directory)


def required_token(parser: argparse.ArgumentParser, token: str | None, *, why: str = "",
                   transport: str | None = None) -> str | None:
    """The token a script must serve with over HTTP: ``token`` (``args.token`` of
    :func:`add_script_token_options`), else ``$MCP_TOKEN``; with neither (an empty ``$MCP_TOKEN`` reads as
    unset), one line on stderr saying how to give one, and exit status 2, instead of serving every tool
    to whoever reaches the port. A ``$MCP_TOKEN`` no client can send (a control character, a space, a
    character outside ASCII: ``tök€n``) is one line saying which characters a token may hold, and exit
    status 2. Over stdio no port is open (the client is the process that started the script), so
    none is required: ``token`` is returned as given (None included).

    Args:
        parser: the script's parser (its ``prog`` starts the line).
        token: the token the options gave, or None.
        why: why this server requires one, said in the line (e.g. "as the notebook's server did").
        transport: ``args.transport`` of :func:`add_transport_option`; None reads ``$MCP_TRANSPORT``
            (as ``server.run`` does), so that a script without that option is not refused over stdio.

    Example:
        ```python
        import argparse

        from nanohubmcp import MCPServer
        from nanohubmcp.cli import add_script_token_options, required_token

        server = MCPServer("calc")
        parser = argparse.ArgumentParser(prog="start_mcp.py")
        add_script_token_options(parser)
        args = parser.parse_args()
        server.run(token=required_token(parser, args.token))  # no token given: exits 2 saying how to give one
        ```

    .. versionchanged:: 1.0
       Over stdio (``transport``, else ``$MCP_TRANSPORT``) no token is required.
    """
    if (transport or _environment_transport()) == "stdio":
        return token
    environ = os.environ.get(MCP_TOKEN_ENV, "")
    found = token or (environ if environ.strip() else "")  # as run() reads it; blank is unset
    if not found:
        parser.exit(2, f"{parser.prog}: error: {token_required_message(why)}\n")
    try:  # one no client can send: one line and status 2, not a traceback from server.run
        return checked_token(found, "the token given as token=" if token else ENV_SOURCE)
    except ConfigurationError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
