"""The ``nanohubmcp`` command's arguments: one ``argparse`` subparser per subcommand.

Owns the option names, defaults and help texts, and which function runs each subcommand (the
subparser's ``run`` default: a function of the parsed arguments returning the exit status). What
the subcommands do lives in :mod:`.serve` and :mod:`.documents`; parsing ``sys.argv`` and the
exit status in :func:`nanohubmcp.cli.main`; the serving options, one definition for every subcommand
that serves (``run``, ``sim2l``, ``rappture``, ``hub-tools``), in :mod:`.serving_options`; the ``--port``
and token options a script of one's own shares with the subcommands (``add_port_option``,
``add_script_token_options``) in :mod:`.script_options`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._version import __version__
from ..auth.token_option import add_token_options
from ..protocol.whole_numbers import text_refusal, text_whole
from ..server.provenance.record_ids import id_words_last
from ..transports.proxy_option import http_url, proxy_arguments
from ..transports.seconds_option import seconds_or_inf, seconds_or_no_limit
from . import documents, provenance_commands, serve
from .serving_options import serving_arguments
from .unread_defaults import hold_environment_defaults, read_environment_defaults

__all__ = ["PROG", "build_parser", "http_url", "parse_arguments", "proxy_arguments", "serving_arguments"]

PROG = "nanohubmcp"


INSTRUCTIONS_HELP = ("the server's instructions for clients; its first line is the description in the discovery "
                     "documents (server card, server.json) (default: made from the tools served: a tool's title "
                     "and description)")


def build_parser() -> argparse.ArgumentParser:
    """The ``nanohubmcp`` parser; each subcommand sets ``run`` (a function of the args -> exit status) and
    ``usage_error`` (its parser's ``error``: the usage line and a message on stderr, exit status 2)."""
    parser = argparse.ArgumentParser(prog=PROG, description="nanohubmcp: MCP servers from Python functions.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    export = commands.add_parser(
        "export",
        help="write a notebook's %%mcp_* cells as a runnable start_mcp.py",
        description="Write a notebook as an MCP server script that runs with `python FILE` and "
        "`start_mcp --app FILE`. Cells tagged mcp-skip are left out; IPython-only lines become comments.",
    )
    export.add_argument("notebook", metavar="NOTEBOOK", help="the .ipynb file")
    export.add_argument(
        "-o", "--output", metavar="FILE", default=None,
        help="where to write the script (default: start_mcp.py next to the notebook; a directory: "
        "start_mcp.py in it; '-': standard output)",
    )
    export.add_argument("--no-format", dest="format_code", action="store_false",
                        help="keep the cells' code as written (default: ruff/black formats it if installed)")
    export.add_argument("--force", action="store_true",
                        help="replace FILE even if it is not an earlier export of this notebook")
    export.set_defaults(run=documents.export_notebook)

    run = commands.add_parser(
        "run",
        help="serve an app file's module-level `server` over HTTP or stdio",
        description="Import APP (a Python file defining a module-level `server = MCPServer(...)`) and serve it. "
        "With --transport stdio it speaks MCP on stdin/stdout, as desktop clients launch servers.",
    )
    run.add_argument("app", metavar="APP", help="the Python file defining `server`")
    serving_arguments(run)
    run.set_defaults(run=serve.run_app)

    sim2l = commands.add_parser(
        "sim2l",
        help="serve Sim2L notebooks as MCP tools (run with papermill)",
        description="Serve each Sim2L notebook (%%yaml INPUTS / OUTPUTS cells, a cell tagged parameters) as a "
        "tool: a call runs it with papermill and returns what DB(OUTPUTS).save recorded; identical inputs are "
        "answered from the stored run. Needs the sim2l extra (python3 -m pip install 'nanohub-mcp[sim2l]'; "
        "in a checkout: python3 -m pip install -e '.[sim2l]').",
    )
    sim2l.add_argument("paths", nargs="+", metavar="PATH",
                       help="a Sim2L notebook (.ipynb), or a directory holding one (in it or in its simtool/)")
    sim2l.add_argument("--name", default=None, type=tool_name_option,
                       help="the tool's name (with one PATH; default: the Sim2L's name)")
    sim2l.add_argument("--instructions", default=None, metavar="TEXT", help=INSTRUCTIONS_HELP)
    _tool_arguments(sim2l)
    serving_arguments(sim2l)
    sim2l.set_defaults(run=serve.sim2l)

    rappture = commands.add_parser(
        "rappture",
        help="serve Rappture tools (tool.xml) as MCP tools",
        description="Serve each Rappture tool as an MCP tool: its inputs become the input schema (numbers take "
        "units, e.g. '77K'); a call writes the driver, runs the tool (rappture -execute on a hub, else its "
        "<command>) and returns the run file's outputs. Needs the rappture extra (python3 -m pip install "
        "'nanohub-mcp[rappture]'; in a checkout: python3 -m pip install -e '.[rappture]').",
    )
    rappture.add_argument("paths", nargs="+", metavar="PATH", help="a tool.xml, or a directory holding one")
    rappture.add_argument("--name", default=None, type=tool_name_option,
                          help="the tool's name (with one PATH; default: the tool's own)")
    rappture.add_argument("--instructions", default=None, metavar="TEXT", help=INSTRUCTIONS_HELP)
    rappture.add_argument("--async", dest="background", action="store_true",
                          help="run each call as a durable job (default: when <limits> allows runs over 30 s)")
    rappture.add_argument("--timeout", type=seconds_or_inf, default=None, metavar="SECONDS",
                          help="seconds a run may take (default: the tool's <limits><cputime>; inf: no limit)")
    rappture.add_argument("--no-plot", dest="plot", action="store_false",
                          help="return curves and histograms as data only, without PNG plots")
    _cache_arguments(rappture)
    serving_arguments(rappture)
    rappture.set_defaults(run=serve.rappture)

    hub = commands.add_parser(
        "hub-tools",
        help="list the Rappture tools and Sim2Ls installed on a hub, or serve the ones named",
        description="Without NAME: list the Rappture tools (ROOT/<tool>/<revision>/rappture/tool.xml) and Sim2Ls "
        "(ROOT/<name>/<revision>/simtool/<name>.ipynb) installed under ROOT (it takes --root alone). With NAMEs "
        "(NAME or NAME/REVISION): serve them as MCP tools, with the options below.",
    )
    hub.add_argument("names", nargs="*", metavar="NAME", help="a tool to serve: NAME (its default revision: "
                     "current, else the highest rNN, else dev) or NAME/REVISION")
    hub.add_argument("--root", default=None, metavar="DIR", help="where the tools are installed (default /apps)")
    _tool_arguments(hub)
    _cache_arguments(hub)
    serving_arguments(hub)
    hold_environment_defaults(hub)  # ($MCP_PORT ...: read once it serves, never by the listing)
    hub.set_defaults(run=serve.hub_tools)

    bridge = commands.add_parser(
        "bridge",
        help="connect a stdio MCP client to a server's URL (Streamable HTTP, falling back to legacy SSE)",
        description="Relay MCP between stdin/stdout and URL: a desktop client launches this command and reaches "
        "a running server (a notebook's, a nanoHUB tool's) without Node. URL is the server's base URL or its "
        "/mcp (or /sse) endpoint.",
    )
    bridge.add_argument("url", metavar="URL", help="the server's URL, e.g. http://127.0.0.1:8000/mcp")
    bridge.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                        help="an HTTP header sent with every request (repeatable)")
    bridge.add_argument("--cookie", action="append", default=[], metavar="'NAME=VALUE'",
                        help="a cookie sent with every request (repeatable), e.g. a nanoHUB session cookie")
    add_token_options(bridge, "a bearer token sent as 'Authorization: Bearer TOKEN'")
    bridge.set_defaults(run=serve.bridge, token_served=False)  # sent: the bridge checks it (placeholders first)

    desktop = commands.add_parser(
        "desktop-config",
        help="print the configuration a desktop client (Claude Desktop, VS Code, Cursor) needs on this machine",
        description="Print the JSON to paste into a desktop client's MCP configuration: this environment's Python "
        "and the app's absolute path (the client starts servers from a directory of its own), or a bridge to a "
        "running server with --url.",
    )
    desktop.add_argument("app", metavar="APP", nargs="?", default=None,
                         help="the Python file defining `server` (served over stdio)")
    desktop.add_argument("--url", default=None, help="instead of APP: a running server's URL, reached via the bridge")
    desktop.add_argument("--client", choices=["claude", "vscode", "cursor"], default="claude",
                         help="whose configuration format (default claude)")
    desktop.add_argument("--name", default=None,
                         help="the entry's name (default: the server's name; with --url, asked of the running "
                         "server, else nanohubmcp)")
    add_token_options(desktop, "with --url, or an APP whose server has auth=: the bearer token, put in the entry's "
                      "env as MCP_TOKEN")
    desktop.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                         help="an environment variable the server needs (repeatable)")
    desktop.set_defaults(run=documents.print_desktop_config, token_served=False)  # written into the entry
    card = commands.add_parser(
        "server-json",
        help="write the MCP Registry's server.json for an app file's `server`, a Rappture tool.xml or a Sim2L",
        description="Import APP (a Python file defining a module-level `server`) and write the server.json the "
        "MCP Registry reads (schema 2025-12-11): its reverse-DNS name, version, description, the pypi package "
        "nanohub-mcp run as `nanohubmcp run APP --transport stdio`, and on nanoHUB (or with --public-url) its "
        "remotes. APP may also be a Rappture tool.xml or a Sim2L notebook: the server `nanohubmcp rappture APP` "
        "(or `sim2l APP`) serves, run so by the package.",
    )
    card.add_argument("app", metavar="APP", help="the Python file defining `server`, a tool.xml or a Sim2L .ipynb")
    card.add_argument("-o", "--output", metavar="FILE", default="-",
                      help="where to write it (default '-': standard output)")
    card.add_argument("--name", default=None, metavar="NAMESPACE/NAME", type=registry_name,
                      help="the registry name, e.g. io.github.me/calculator (default: $NANOHUBMCP_REGISTRY_NAME, "
                      "else derived from the public host and the server's name)")
    card.add_argument("--public-url", default=None, metavar="URL", type=http_url,
                      help="the base URL clients reach the running server at (default: the weber URL on a nanoHUB "
                      "tool session, else none: no remotes)")
    card.set_defaults(run=documents.write_server_json)
    provenance = commands.add_parser(
        "provenance",
        help="list a server's provenance records, show one, or export one as an RO-Crate",
        description="provenance list: the newest provenance records of a server's state directory (id, tool, "
        "caller, status, when, seconds, cache, code, error). provenance show CALL_ID: print the record CALL_ID as "
        "JSON. provenance export CALL_ID: write the record CALL_ID as an RO-Crate.",
    )
    actions = provenance.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list",
        help="the newest records, newest first",
        description="provenance list: the newest provenance records of a server's state directory, newest first: "
        "each record's id (for provenance export), tool, caller (the principal; else session: and its digest; else "
        "-), status, start (UTC), seconds, cache, code hash and error. "
        "Reads the records file without writing to it (a running server keeps writing).",
    )
    listing.add_argument("--limit", type=record_count, default=LIST_ROWS, metavar="N",
                         help=f"how many records at most, 1-{MAX_LIST_ROWS} (default {LIST_ROWS})")
    listing.add_argument("--tool", default=None, metavar="NAME", help="only the records of the tool NAME")
    listing.add_argument("--caller", default=None, metavar="WHO",
                         help="only the records of the caller WHO: a principal's subject (alice), a session as the "
                         "caller column names it (session:3f2a9c01b7de, or the start of it), or - (no caller)")
    records_directory_arguments(listing)
    listing.set_defaults(run=provenance_commands.list_provenance)
    show = actions.add_parser(
        "show",
        help="print a record as JSON",
        description="provenance show CALL_ID: print the provenance record CALL_ID (its id, as provenance list "
        "shows it, or its URI) of a server's state directory as JSON: every field the listing reads, in full "
        "(the error, the arguments, the result kept, the code, where it ran). Reads the records file without "
        "writing to it.",
    )
    show.add_argument("call_id", metavar="CALL_ID", help="the record's id or URI")
    records_directory_arguments(show)
    show.set_defaults(run=provenance_commands.show_provenance)
    export = actions.add_parser(
        "export",
        help="write a record as an RO-Crate",
        description="provenance export CALL_ID: write the provenance record CALL_ID (the end of the URI in a "
        "result's _meta['io.nanohub/provenance'], or the whole URI; provenance list shows the ids) of a server's "
        "state directory as an RO-Crate (Process Run Crate profile): the tool's code, inputs, result and the "
        "run. Needs the provenance extra (python3 -m pip install 'nanohub-mcp[provenance]'; in a checkout: "
        "python3 -m pip install -e '.[provenance]').",
    )
    export.add_argument("call_id", metavar="CALL_ID", help="the record's id or URI")
    records_directory_arguments(export)
    export.add_argument("-o", "--output", default=None, metavar="DIR",
                        help="the crate's directory (default: ./provenance-CALL_ID)")
    export.add_argument(
        "--force", action="store_true",
        help="write into DIR even if it holds files other than an earlier crate's (they stay, unlisted)",
    )
    export.add_argument(
        "--license", default=None, metavar="LICENSE",
        help="the crate's license: an SPDX identifier on the SPDX License List (CC-BY-4.0, CC0-1.0; any case, "
        "stated as the list spells it) or the license's URI (default: none stated)",
    )
    export.set_defaults(run=provenance_commands.export_provenance)
    for command in commands.choices.values():  # a UsageError is reported as argparse reports its own
        command.set_defaults(usage_error=command.error)
    for command in actions.choices.values():  # (provenance's own subcommands: their usage, not provenance's)
        command.set_defaults(usage_error=command.error)
    return parser


LIST_ROWS = 20
"""Records ``provenance list`` shows by default (the newest)."""
MAX_LIST_ROWS = 10_000
"""Records ``provenance list --limit`` may ask for at most."""


def record_count(text: str) -> int:
    """A ``--limit`` of records, 1 to :data:`MAX_LIST_ROWS` (argparse type)."""
    count = text_whole(text)  # "20.0", "1e2" too, as every count reads a whole number
    if count is None or not 1 <= count <= MAX_LIST_ROWS:
        raise argparse.ArgumentTypeError(text_refusal("", f"a number of records from 1 to {MAX_LIST_ROWS}", text))
    return int(count)


def records_directory_arguments(command: argparse.ArgumentParser) -> None:
    """``--state-dir`` and ``--name``: whose provenance records a ``provenance`` subcommand reads."""
    command.add_argument("--state-dir", default=None, metavar="DIR",
                         help="the server's state directory (default: the one of the server named by --name, else "
                         "$NANOHUBMCP_STATE_DIR, else the one server directory holding records under the default "
                         "root, ~/.local/share/nanohubmcp)")
    command.add_argument("--name", default=None, metavar="NAME",
                         help="the server's name (MCPServer's first argument), for its default state directory; "
                         "it wins over $NANOHUBMCP_STATE_DIR")


def parse_arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """``argv`` (default ``sys.argv[1:]``) parsed; a usage error exits 2 with the usage of the parser it belongs to.

    ``ArgumentParser.parse_args`` reports an argument no parser knows with the top-level usage and
    ``nanohubmcp: error:``, even when it follows a subcommand; here one after the subcommand's name is
    reported by that subcommand (``usage: nanohubmcp run ...``, ``nanohubmcp run: error: unrecognized
    arguments: --bogus``), as argparse reports every other mistake in its arguments.
    """
    parser = build_parser()
    given = list(sys.argv[1:] if argv is None else argv)
    if "provenance" in given:  # a record id beginning with "-" is the CALL_ID, not an option
        after = given.index("provenance") + 1
        given = given[:after] + id_words_last(given[after:])
    args, extras = parser.parse_known_args(given)
    if extras:
        before_command = given[: given.index(args.command)] if args.command in given else given
        report = parser.error if any(extra in before_command for extra in extras) else args.usage_error
        report(f"unrecognized arguments: {' '.join(extras)}")  # exits 2
    if args.command == "hub-tools" and not args.names:
        _refuse_what_a_listing_ignores(parser, args)
    read_environment_defaults(args, serving=args.command != "hub-tools" or bool(args.names))
    return args


LISTING_READS = frozenset({"command", "names", "root", "run", "usage_error"})
"""What ``hub-tools`` without a NAME reads of its arguments (``--root``): every other option serves."""


def _refuse_what_a_listing_ignores(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``hub-tools`` without a NAME lists the tools and serves nothing: a serving option given (``--port 5``,
    ``--workers 3``, ``--async``, ...) would do nothing, so it is a usage error (exit status 2), before a
    token file is read. An option counts as given when it changed what the command would read without it
    (an environment variable's value, ``$MCP_PORT``, is no option given, and the listing never reads it:
    :mod:`.unread_defaults`)."""
    plain = vars(parser.parse_args(["hub-tools"]))  # (the same environment: its defaults, as converted)
    given = [_option_of(dest) for dest, value in vars(args).items()
             if dest not in LISTING_READS and value != plain.get(dest)]
    if given:
        named = ", ".join(given)
        args.usage_error(f"serving options need a NAME to serve: without one, hub-tools only lists the tools and "
                         f"{named} would do nothing; name the tools to serve (hub-tools NAME...), or leave {named} "
                         "out")


def _option_of(dest: str) -> str:
    """The option whose value lands in ``dest`` (``token_file`` -> ``--token-file``)."""
    return {"background": "--async"}.get(dest, "--" + dest.replace("_", "-"))


def tool_name_option(text: str) -> str:
    """``--name`` of ``sim2l`` and ``rappture``: any text but an empty one (the tool's own name is the default;
    what else a tool name may hold is checked where the tool is registered)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("a tool name is not empty: leave --name out to serve the tool under its own")
    return text


def registry_name(text: str) -> str:
    """An MCP Registry name, ``namespace/name`` (argparse type; the rule is the server.json writer's)."""
    from ..errors import ConfigurationError
    from ..transports.registry_name import registry_name as checked

    try:
        return checked("", None, explicit=text)
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


CELL_TIMEOUT_HELP = ("seconds one notebook cell may run (default, or inf: no limit; a cancelled call's kernel is "
                     "stopped either way)")


def _cache_arguments(command: argparse.ArgumentParser) -> None:
    """``--cache`` / ``--cache-shared`` of the commands serving Rappture tools (``rappture``, ``hub-tools``):
    :func:`.serve.rappture_cache` reads them."""
    caching = command.add_mutually_exclusive_group()
    caching.add_argument("--cache", action="store_true",
                         help="Rappture tools: answer repeated inputs from the result cache, one entry per caller "
                         "(not with --async; Sim2Ls answer them from their stored runs already)")
    caching.add_argument("--cache-shared", action="store_true",
                         help="like --cache, one entry for every caller (results that do not depend on who asks)")


def _tool_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--async", dest="background", action="store_true",
                         help="run each call as a durable job (answered at once with a job id; for long runs)")
    command.add_argument("--results-dir", default=None, metavar="DIR",
                         help="where Sim2L runs are stored (default: the server's state directory)")
    command.add_argument("--cell-timeout", type=seconds_or_no_limit, default=None, metavar="SECONDS",
                         help="Sim2L: " + CELL_TIMEOUT_HELP)
