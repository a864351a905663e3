"""The ``nanohubmcp`` command: project tasks as subcommands.

Usage::

    nanohubmcp export NOTEBOOK [-o FILE] [--no-format] [--force]
    nanohubmcp run APP.py [--transport stdio|http] [--host HOST] [--port N] [--token TOKEN]
                          [--workers N] [--state-url redis://HOST:6379/0]
    nanohubmcp sim2l NOTEBOOK... [--name NAME] [--async] [--results-dir DIR] [serving options as run]
    nanohubmcp rappture TOOL.xml... [--name NAME] [--async] [--timeout S] [--no-plot] [serving options as run]
    nanohubmcp hub-tools [--root /apps] [NAME[/REVISION]...] [--async] [serving options as run]
    nanohubmcp bridge URL [--header 'Name: value' ...] [--cookie 'name=value'] [--token T]
    nanohubmcp desktop-config APP [--client claude|vscode|cursor] [--name NAME] [--env NAME=VALUE ...]
    nanohubmcp desktop-config --url URL [--token T] [--client ...]
    nanohubmcp server-json APP [-o FILE] [--name NAMESPACE/NAME] [--public-url URL]

``run`` imports a Python file and serves its module-level ``server`` (like ``start_mcp --app``);
``--transport stdio`` is what desktop clients (Claude Desktop, VS Code, Cursor) launch.
``sim2l`` serves Sim2L notebooks (see :mod:`nanohubmcp.sources.sim2l`), ``rappture`` Rappture
tools (:mod:`nanohubmcp.sources.rappture`); ``hub-tools`` lists the
Rappture tools and Sim2Ls installed on a hub, or serves the ones named (:mod:`nanohubmcp.sources.hub`).
``bridge`` speaks stdio to such a client and Streamable HTTP (or legacy SSE) to a running server.
``server-json`` writes the MCP Registry's ``server.json`` for an app file's ``server``
(:func:`nanohubmcp.transports.discovery.server_json`); on a nanoHUB tool session its remotes are the
weber URLs.

``export`` writes the notebook as a runnable MCP server script (default: ``start_mcp.py`` next
to the notebook; ``-o -`` prints it), translated by :func:`nanohubmcp.jupyter.translate.translate`
— the same translation as ``jupyter nbconvert --to mcp``, without needing nbconvert. The file is
written to a temporary name and renamed only once the whole notebook translated, so a failed
export leaves no file and no half-finished one. An existing file is replaced only when it is an
earlier export (``--force`` replaces any file).

Exit status: 0 written; 1 the notebook cannot be read or translated (one line on stderr,
naming the cell); 2 a usage error.

More subcommands are added with :func:`build_parser`'s ``subparsers`` and a ``run`` default.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ._version import __version__
from .errors import NanohubMCPError

if TYPE_CHECKING:
    from .facade import MCPServer

__all__ = ["build_parser", "main"]

PROG = "nanohubmcp"


def build_parser() -> argparse.ArgumentParser:
    """The ``nanohubmcp`` parser; each subcommand sets ``run`` (a function of the args -> exit status)."""
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
                        help="replace FILE even if it is not an earlier export")
    export.set_defaults(run=_export)

    run = commands.add_parser(
        "run",
        help="serve an app file's module-level `server` over HTTP or stdio",
        description="Import APP (a Python file defining a module-level `server = MCPServer(...)`) and serve it. "
        "With --transport stdio it speaks MCP on stdin/stdout, as desktop clients launch servers.",
    )
    run.add_argument("app", metavar="APP", help="the Python file defining `server`")
    serving_arguments(run)
    run.add_argument("--workers", type=int, default=1, metavar="N",
                     help="HTTP: N processes serving the one port (needs --state-url redis://…; default 1)")
    run.add_argument("--state-url", default=None, metavar="URL",
                     help="where sessions and streams shared by the processes live, e.g. redis://127.0.0.1:6379/0 "
                     "(default: $NANOHUBMCP_STATE_URL, else this process's memory)")
    run.add_argument("--access-log", action="store_true",
                     help="HTTP: log every request on stderr with the serving process's id (off by default: a line per "
                     "request costs ~6%% of a small call's CPU)")
    run.set_defaults(run=_run)

    sim2l = commands.add_parser(
        "sim2l",
        help="serve Sim2L notebooks as MCP tools (run with papermill)",
        description="Serve each Sim2L notebook (%%yaml INPUTS / OUTPUTS cells, a cell tagged parameters) as a "
        "tool: a call runs it with papermill and returns what DB(OUTPUTS).save recorded; identical inputs are "
        "answered from the stored run. Needs pip install 'nanohub-mcp[sim2l]'.",
    )
    sim2l.add_argument("paths", nargs="+", metavar="PATH", help="a Sim2L notebook (.ipynb)")
    sim2l.add_argument("--name", default=None, help="the tool's name (with one PATH; default: the Sim2L's name)")
    _tool_arguments(sim2l)
    serving_arguments(sim2l)
    sim2l.set_defaults(run=_sim2l)

    rappture = commands.add_parser(
        "rappture",
        help="serve Rappture tools (tool.xml) as MCP tools",
        description="Serve each Rappture tool as an MCP tool: its inputs become the input schema (numbers take "
        "units, e.g. '77K'); a call writes the driver, runs the tool (rappture -execute on a hub, else its "
        "<command>) and returns the run file's outputs. Needs pip install 'nanohub-mcp[rappture]'.",
    )
    rappture.add_argument("paths", nargs="+", metavar="PATH", help="a tool.xml, or a directory holding one")
    rappture.add_argument("--name", default=None, help="the tool's name (with one PATH; default: the tool's own)")
    rappture.add_argument("--async", dest="background", action="store_true",
                          help="run each call as a durable job (default: when <limits> allows runs over 30 s)")
    rappture.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                          help="seconds a run may take (default: the tool's <limits><cputime>)")
    rappture.add_argument("--no-plot", dest="plot", action="store_false",
                          help="return curves and histograms as data only, without PNG plots")
    serving_arguments(rappture)
    rappture.set_defaults(run=_rappture)

    hub = commands.add_parser(
        "hub-tools",
        help="list the Rappture tools and Sim2Ls installed on a hub, or serve the ones named",
        description="Without NAME: list the Rappture tools (ROOT/<tool>/<revision>/rappture/tool.xml) and Sim2Ls "
        "(ROOT/<name>/<revision>/simtool/<name>.ipynb) installed under ROOT. With NAMEs (NAME or NAME/REVISION): "
        "serve them as MCP tools.",
    )
    hub.add_argument("names", nargs="*", metavar="NAME", help="a tool to serve: NAME (its default revision: "
                     "current, else the highest rNN, else dev) or NAME/REVISION")
    hub.add_argument("--root", default=None, metavar="DIR", help="where the tools are installed (default /apps)")
    _tool_arguments(hub)
    serving_arguments(hub)
    hub.set_defaults(run=_hub_tools)

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
    bridge.add_argument("--token", default=None, metavar="TOKEN",
                        help="a bearer token sent as 'Authorization: Bearer TOKEN' (default: $MCP_TOKEN)")
    bridge.set_defaults(run=_bridge)

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
    desktop.add_argument("--name", default=None, help="the entry's name (default: the server's name)")
    desktop.add_argument("--token", default=None, metavar="TOKEN",
                         help="with --url: the bearer token, put in env as MCP_TOKEN (default: $MCP_TOKEN)")
    desktop.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                         help="an environment variable the server needs (repeatable)")
    desktop.set_defaults(run=_desktop_config)
    card = commands.add_parser(
        "server-json",
        help="write the MCP Registry's server.json for an app file's `server`",
        description="Import APP (a Python file defining a module-level `server`) and write the server.json the "
        "MCP Registry reads (schema 2025-12-11): its reverse-DNS name, version, description, the pypi package "
        "nanohub-mcp run as `nanohubmcp run APP --transport stdio`, and on nanoHUB (or with --public-url) its "
        "remotes.",
    )
    card.add_argument("app", metavar="APP", help="the Python file defining `server`")
    card.add_argument("-o", "--output", metavar="FILE", default="-",
                      help="where to write it (default '-': standard output)")
    card.add_argument("--name", default=None, metavar="NAMESPACE/NAME",
                      help="the registry name, e.g. io.github.me/calculator (default: $NANOHUBMCP_REGISTRY_NAME, "
                      "else derived from the public host and the server's name)")
    card.add_argument("--public-url", default=None, metavar="URL",
                      help="the base URL clients reach the running server at (default: the weber URL on a nanoHUB "
                      "tool session, else none: no remotes)")
    card.set_defaults(run=_server_json)
    provenance = commands.add_parser(
        "provenance",
        help="export a call's provenance record as an RO-Crate",
        description="provenance export CALL_ID: write the provenance record CALL_ID (the end of the URI in a "
        "result's _meta['io.nanohub/provenance'], or the whole URI) of a server's state directory as an "
        "RO-Crate (Process Run Crate profile): the tool's code, inputs, result and the run. Needs the "
        "provenance extra (pip install 'nanohub-mcp[provenance]').",
    )
    provenance.add_argument("action", choices=["export"], help="what to do")
    provenance.add_argument("call_id", metavar="CALL_ID", help="the record's id or URI")
    provenance.add_argument("--state-dir", default=None, metavar="DIR",
                            help="the server's state directory (default: $NANOHUBMCP_STATE_DIR, else the one "
                            "of the server named by --name)")
    provenance.add_argument("--name", default="server", help="the server's name, for its default state directory")
    provenance.add_argument("-o", "--output", default=None, metavar="DIR",
                            help="the crate's directory (default: ./provenance-CALL_ID)")
    provenance.set_defaults(run=_provenance)
    return parser


def serving_arguments(command: argparse.ArgumentParser) -> None:
    """``--transport``, ``--host``, ``--port``, ``--token``: how a serving subcommand serves."""
    command.add_argument("--transport", choices=["http", "stdio"], default=None,
                         help="http (default, or $MCP_TRANSPORT) or stdio")
    command.add_argument("--host", default=None,
                         help="HTTP: interface to bind (default 127.0.0.1, this machine only)")
    command.add_argument("--port", type=int, default=None, help="HTTP: TCP port (default $MCP_PORT or 8000)")
    command.add_argument("--token", default=None, metavar="TOKEN",
                         help="HTTP: the bearer token every request must carry (default: $MCP_TOKEN)")


def _tool_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--async", dest="background", action="store_true",
                         help="run each call as a durable job (answered at once with a job id; for long runs)")
    command.add_argument("--results-dir", default=None, metavar="DIR",
                         help="where Sim2L runs are stored (default: the server's state directory)")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``nanohubmcp`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except NanohubMCPError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 1


def _provenance(args: argparse.Namespace) -> int:
    from .server.provenance.crate import export
    from .server.provenance.records import DB_FILE, ProvenanceStore, record_id_of
    from .server.wire.state_dir import resolve_state_dir

    directory = resolve_state_dir(args.name, args.state_dir)
    if not os.path.exists(os.path.join(directory, DB_FILE)):
        raise NanohubMCPError(f"no provenance records in {directory} (give the server's --state-dir)")
    store = ProvenanceStore(0.0, lambda: directory)
    record_id = record_id_of(args.call_id) or args.call_id
    output = Path(args.output) if args.output else Path(f"provenance-{record_id}")
    try:
        written = export(store, args.call_id, output)
    finally:
        store.close()
    print(f"wrote the RO-Crate of {record_id} to {written}")
    return 0


def _export(args: argparse.Namespace) -> int:
    import nbformat

    from .jupyter.translate import looks_exported, translate

    notebook_path = Path(args.notebook)
    output = _output_path(notebook_path, args.output)
    try:
        with warnings.catch_warnings():  # nbformat's notes on old files (missing cell ids) do not matter here
            warnings.simplefilter("ignore")
            notebook = nbformat.read(notebook_path, as_version=4)
    except FileNotFoundError:
        raise NanohubMCPError(f"{notebook_path}: no such notebook") from None
    except Exception as exc:  # not JSON, not a notebook: say so in one line
        reason = " ".join(str(exc).split())[:200]
        raise NanohubMCPError(f"{notebook_path}: cannot read it as a notebook ({reason})") from None
    script = translate(
        notebook,
        source=str(notebook_path),
        output=str(output) if output else "start_mcp.py",
        format_code=args.format_code,
    )
    if output is None:
        sys.stdout.write(script.text)
        return 0
    if output.exists() and not args.force and not looks_exported(output.read_text(errors="replace")):
        raise NanohubMCPError(f"{output} exists and is not an earlier export; use --force to replace it")
    _write_atomically(output, script.text)
    found = {"tool": script.tools, "resource": script.resources, "prompt": script.prompts}
    counts = ", ".join(f"{len(v)} {kind}{'' if len(v) == 1 else 's'}" for kind, v in found.items())
    print(f"Wrote {output} ({counts}). Run it: python {output}, or start_mcp --app {output}", file=sys.stderr)
    for line in script.dropped:
        print(f"  dropped (see the comment in the script): {line}", file=sys.stderr)
    return 0


def _run(args: argparse.Namespace) -> int:
    from .nanohub.child import load_app

    transport = _stdio_safe(args)  # before the app is imported
    if args.state_url is not None:
        # Read by MCPServer(...) when the app builds it (an explicit state_url= in the app wins).
        from .state import ENV_VAR, parse

        parse(args.state_url)  # a bad URL fails here, before the app is imported
        os.environ[ENV_VAR] = args.state_url
    if args.access_log:
        from .transports.runner import log_requests

        log_requests()
    server = load_app(args.app)
    server.run(host=args.host, port=args.port, transport=transport, token=args.token, workers=args.workers)
    return 0


def _serve(server: MCPServer, args: argparse.Namespace, transport: str) -> int:
    server.run(host=args.host, port=args.port, transport=transport, token=args.token)
    return 0


def _stdio_safe(args: argparse.Namespace) -> str:
    from . import serving

    transport = serving.resolve_transport(args.transport)
    if transport == "stdio":
        from .transports.lines import protect_stdout

        protect_stdout()  # whatever the app, papermill or a notebook prints must not reach the client
    return transport


def _sim2l(args: argparse.Namespace) -> int:
    from .facade import MCPServer

    if args.name and len(args.paths) > 1:
        raise NanohubMCPError("--name names one tool: give one PATH with it")
    transport = _stdio_safe(args)
    server = MCPServer(args.name or (Path(args.paths[0]).stem if len(args.paths) == 1 else "sim2l"))
    for path in args.paths:
        server.add_sim2l(path, name=args.name, background=args.background, results_dir=args.results_dir)
    return _serve(server, args, transport)


def _rappture(args: argparse.Namespace) -> int:
    from .facade import MCPServer

    if args.name and len(args.paths) > 1:
        raise NanohubMCPError("--name names one tool: give one PATH with it")
    from .sources.rappture import load_rappture_tool

    transport = _stdio_safe(args)
    server = MCPServer(load_rappture_tool(args.paths[0], name=args.name).name if len(args.paths) == 1 else "rappture")
    for path in args.paths:
        server.add_rappture_tool(path, name=args.name, background=args.background or None, timeout=args.timeout,
                                 plot=args.plot)
    return _serve(server, args, transport)


def _hub_tools(args: argparse.Namespace) -> int:
    from .sources.hub import DEFAULT_ROOT, find_hub_tools, pick

    root = args.root or DEFAULT_ROOT
    if not args.names:
        tools = find_hub_tools(root)
        if not tools:
            print(f"No Rappture tool or Sim2L is installed under {root}.", file=sys.stderr)
            return 0
        width = max(len(t.name) for t in tools)
        for tool in tools:
            others = [r for r in tool.revisions if r != tool.revision]
            more = f"  (also {', '.join(others)})" if others else ""
            print(f"{tool.name:<{width}}  {tool.kind:<8}  {tool.revision:<7}  {tool.path}{more}")
        print(f"Serve some: nanohubmcp hub-tools NAME... [--root {root}]", file=sys.stderr)
        return 0
    from .facade import MCPServer

    try:
        chosen = pick(root, args.names)
    except LookupError as exc:
        raise NanohubMCPError(str(exc)) from None
    transport = _stdio_safe(args)
    server = MCPServer(args.names[0].partition("/")[0] if len(args.names) == 1 else "hub-tools")
    kinds = {(t.name, t.kind) for t in chosen}
    for tool in chosen:
        both = (tool.name, "rappture") in kinds and (tool.name, "sim2l") in kinds
        name = f"{tool.name}_{tool.kind}" if both else tool.name
        if tool.kind == "sim2l":
            server.add_sim2l(tool.path, name=name, background=args.background, results_dir=args.results_dir)
        else:
            server.add_rappture_tool(tool.path, name=name, background=args.background or None)
    return _serve(server, args, transport)


def _bridge(args: argparse.Namespace) -> int:
    from .transports.bridge import BridgeOptions, run_bridge

    token = args.token if args.token is not None else os.environ.get("MCP_TOKEN")
    options = BridgeOptions.from_arguments(args.url, headers=args.header, cookies=args.cookie, token=token)
    return run_bridge(options)


def _desktop_config(args: argparse.Namespace) -> int:
    from . import desktop_config

    token = args.token if args.token is not None else desktop_config.default_token()
    launch = desktop_config.launch_for(
        args.app, url=args.url, name=args.name, token=token, env=desktop_config.parse_env(args.env))
    print(desktop_config.render(launch, args.client))
    return 0


def _server_json(args: argparse.Namespace) -> int:
    import json

    from .nanohub.child import load_app
    from .nanohub.plan import WEBER_PORT
    from .nanohub.proxy import detect_proxy
    from .transports.discovery import server_json

    base = args.public_url or detect_proxy(port=WEBER_PORT, kind="tool").public_url
    if base and not base.endswith("/"):
        base += "/"
    with contextlib.redirect_stdout(sys.stderr):  # whatever the app prints must not mix with the document
        server = load_app(args.app)
    document = server_json(server.core, app=os.path.basename(args.app), base=base, name=args.name)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        _write_atomically(Path(args.output), text)
        print(f"Wrote {args.output} ({document['name']} {document['version']})", file=sys.stderr)
    return 0


def _output_path(notebook: Path, option: str | None) -> Path | None:
    """Where to write: None for standard output."""
    if option == "-":
        return None
    if option is None:
        return notebook.parent / "start_mcp.py"
    path = Path(option)
    return path / "start_mcp.py" if path.is_dir() else path


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``."""
    if not path.parent.is_dir():
        raise NanohubMCPError(f"{path.parent} is not a directory")
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise NanohubMCPError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
