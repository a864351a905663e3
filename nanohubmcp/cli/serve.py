"""The ``nanohubmcp`` subcommands that serve: ``run``, ``sim2l``, ``rappture``, ``hub-tools``, ``bridge``.

Each builds (or imports) an ``MCPServer`` and serves it over HTTP or stdio until stopped, or, for
``bridge``, relays a stdio client to a running server's URL. Each takes the parsed arguments
(:mod:`.parser` defines them) and returns the exit status; what the server, the sources and the
transports do is theirs, imported when the subcommand runs so that ``nanohubmcp --help`` stays quick.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError, NanohubMCPError, UsageError
from ..transports.limit_option import LIMIT_OPTIONS, check_limit_options, limit_keywords

if TYPE_CHECKING:
    from ..facade import MCPServer

__all__ = ["bridge", "hub_tools", "rappture", "run_app", "sim2l"]


def run_app(args: argparse.Namespace) -> int:
    from ..nanohub.child import load_app

    check_limit_options(args)  # a limit run() refuses is a usage error, named by its option
    transport = _prepare(args)  # before the app is imported
    if transport == "http":  # the card's and catalogs' name: refused before the app is imported (exit 2)
        from ..transports.registry_name import check_name_variable

        try:
            check_name_variable()
        except ConfigurationError as exc:
            raise UsageError(str(exc)) from None
    if args.state_url is not None:
        # Read by every MCPServer(...) built without state_url=; load_app gives it to the app's over its own.
        from ..state import ENV_VAR, parse, redact

        try:
            parse(args.state_url)  # a bad URL fails here, before the app is imported
        except ConfigurationError as exc:
            raise UsageError(f"--state-url: {exc}") from None
        if redact(args.state_url) != args.state_url:  # a password (or token) in the command line
            print(f"warning: --state-url carries a password, visible to other users of this machine (ps, "
                  f"/proc/<pid>/cmdline); set {ENV_VAR} in the environment instead", file=sys.stderr)
        os.environ[ENV_VAR] = args.state_url
    if args.access_log:
        from ..transports.workers import log_requests

        log_requests()
    state_dir = _absolute(args.state_dir) if args.state_dir is not None else None
    app = _absolute(args.app)  # the app may change the working directory (an exported notebook's script does)
    server = load_app(args.app, state_dir=state_dir, state_url=args.state_url)
    if args.workers > 1 and not server.core.state_url.shared:  # the app could have named one: known only now
        raise UsageError(f"--workers {args.workers} needs a shared state store, or each process would answer the "
                         "others' sessions with 404: give --state-url redis://HOST:6379/0 (or set "
                         "NANOHUBMCP_STATE_URL, or state_url= in the app)")
    if transport == "http":
        _note_skipped_keywords(args, app)
    _run(server, host=args.host, port=args.port, transport=transport, token=args.token, workers=args.workers,
         **_proxy_options(args), **limit_keywords(args))
    return 0


OPTION_OF_KEYWORD = {
    "public_url": "--public-url", "path_prefix": "--path-prefix", "allowed_origins": "--allowed-origins",
    "proxy_headers": "--proxy-headers", "host": "--host", "token": "--token-file", "workers": "--workers",
    "transport": "--transport", **LIMIT_OPTIONS,
}
"""``run()`` keywords an app file may pass that ``nanohubmcp run`` takes as options instead (``port=`` is
never named: the banner shows the port served, and the examples' ``port=8000`` is the default anyway)."""


def _note_skipped_keywords(args: argparse.Namespace, app: str) -> None:
    """One line on stderr naming every ``server.run(...)`` keyword of the app file ``app`` (its absolute
    path) this command leaves out (it serves the server itself), with the options that give them, unless
    the command line does."""
    from ..nanohub.app_file import checked_app_file
    from ..nanohub.run_call import skipped_keywords_note

    given = {"public_url": args.public_url, "path_prefix": args.path_prefix, "allowed_origins": args.allowed_origins,
             "proxy_headers": args.proxy_headers, "host": args.host, "transport": args.transport,
             "workers": args.workers if args.workers != 1 else None,
             "token": args.token if args.token is not None else os.environ.get("MCP_TOKEN"),
             **limit_keywords(args)}  # fmt: skip
    note = skipped_keywords_note(checked_app_file(app), "nanohubmcp run", OPTION_OF_KEYWORD,
                                 {k for k, v in given.items() if v is not None})
    if note:
        print(f"note: {note}", file=sys.stderr)


def _serve(server: MCPServer, args: argparse.Namespace, transport: str) -> int:
    _run(server, host=args.host, port=args.port, transport=transport, token=args.token, **_proxy_options(args))
    return 0


def _run(server: MCPServer, **options: Any) -> None:
    """``server.run(**options)``; a busy port is said in the command line's words (``--port 0``, not ``port=0``)."""
    from ..transports.ports import PortInUse

    try:
        server.run(**options)
    except PortInUse as exc:
        raise exc.saying("--port 0") from None


def _proxy_options(args: argparse.Namespace) -> dict[str, Any]:
    """``--public-url``, ``--path-prefix``, ``--allowed-origins``, ``--proxy-headers`` as ``run()``'s arguments
    (None: not given)."""
    return {"path_prefix": args.path_prefix or "", "public_url": args.public_url,
            "allowed_origins": args.allowed_origins, "proxy_headers": args.proxy_headers}


def _prepare(args: argparse.Namespace) -> str:
    """Set up what must hold before the server is built or the app imported, and return the
    transport: ``--state-dir`` (read by ``MCPServer(...)`` through ``NANOHUBMCP_STATE_DIR``; ``run``
    also hands it to :func:`~nanohubmcp.nanohub.child.load_app`, over the app's own ``state_dir=``) and,
    for stdio, a stdout only the protocol writes to."""
    from .. import serving

    if args.state_dir is not None:
        from ..server.options import check_state_dir
        from ..server.wire.state_dir import ENV_STATE_DIR

        try:  # a file there kept the cached results, records and jobs in memory, lost at the stop
            check_state_dir(args.state_dir, "--state-dir")
        except ConfigurationError as exc:
            raise UsageError(str(exc)) from None
        os.environ[ENV_STATE_DIR] = _absolute(args.state_dir)

    transport = serving.resolve_transport(args.transport)
    if transport == "stdio":
        from ..transports.lines import protect_stdout

        protect_stdout()  # whatever the app, papermill or a notebook prints must not reach the client
    return transport


def _absolute(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def sim2l(args: argparse.Namespace) -> int:
    if args.name and len(args.paths) > 1:
        raise UsageError("--name names one tool: give one PATH with it")
    transport = _prepare(args)
    # Loading papermill and simtool and reading the notebooks takes seconds (more on a loaded machine) before
    # the banner: say so at once, on stderr (stdout may be the stdio protocol's).
    named = ", ".join(os.path.basename(path) for path in args.paths)
    print(f"nanohubmcp sim2l: reading {named} and loading papermill and simtool (some seconds) ...",
          file=sys.stderr, flush=True)
    server = sim2l_server(args)
    return _serve(server, args, transport)


def sim2l_server(args: argparse.Namespace) -> MCPServer:
    """The server ``nanohubmcp sim2l`` serves: each notebook of ``args.paths`` registered, its
    ``instructions`` ``args.instructions`` or made from the notebooks (:mod:`.served_text`).

    Raises:
        RegistrationError: a notebook that is not a Sim2L (the message names it); two of one name.
    """
    from ..facade import MCPServer
    from ..sources.sim2l.notebook import read_sim2l
    from ..sources.sim2l.tool import tool_name
    from .served_text import instructions_for, one_name_each

    specs = [read_sim2l(path) for path in args.paths]
    # the names the tools are served as: two Sim2L names may differ only where a tool name may not
    one_name_each("sim2l", "add_sim2l", [(args.name or tool_name(spec), spec.path) for spec in specs])
    instructions = args.instructions or instructions_for(
        "Sim2L", [(args.name or spec.name, spec.description) for spec in specs])
    server = MCPServer(args.name or (Path(args.paths[0]).stem if len(args.paths) == 1 else "sim2l"),
                       instructions=instructions)
    for path in args.paths:
        server.add_sim2l(path, name=args.name, background=args.background, results_dir=args.results_dir,
                         cell_timeout=args.cell_timeout)
    return server


def rappture(args: argparse.Namespace) -> int:
    if args.name and len(args.paths) > 1:
        raise UsageError("--name names one tool: give one PATH with it")
    transport = _prepare(args)
    return _serve(rappture_server(args), args, transport)


def rappture_server(args: argparse.Namespace) -> MCPServer:
    """The server ``nanohubmcp rappture`` serves: each tool of ``args.paths`` registered, its
    ``instructions`` ``args.instructions`` or made from the tools (:mod:`.served_text`).

    Raises:
        RegistrationError: a file that is not a Rappture tool (the message names it); two of one name.
    """
    from ..facade import MCPServer
    from ..sources.rappture import load_rappture_tool
    from .served_text import instructions_for, one_name_each

    tools = [load_rappture_tool(path, name=args.name) for path in args.paths]
    one_name_each("rappture", "add_rappture_tool", [(tool.name, str(tool.path)) for tool in tools])
    instructions = args.instructions or instructions_for(
        "Rappture tool", [(tool.title or tool.name, tool.about) for tool in tools])
    server = MCPServer(tools[0].name if len(tools) == 1 else "rappture", instructions=instructions)
    for path in args.paths:
        server.add_rappture_tool(path, name=args.name, background=args.background or None, timeout=args.timeout,
                                 plot=args.plot)
    return server


def hub_tools(args: argparse.Namespace) -> int:
    from ..sources.hub import (
        DEFAULT_ROOT,
        find_hub_tools,
        name_keepers,
        pick,
        served_name,
        served_names,
        was_cut,
    )

    root = args.root or DEFAULT_ROOT
    if not os.path.isdir(root):  # a typo in --root is not an empty hub
        if args.root:
            raise NanohubMCPError(f"--root {root}: no such directory")
        raise NanohubMCPError(f"{root}: no such directory (not a hub? give --root DIR, where the tools are installed)")
    if not args.names:
        tools = find_hub_tools(root)
        if not tools:
            print(f"No Rappture tool or Sim2L is installed under {root}.", file=sys.stderr)
            return 0
        width = max(len(t.name) for t in tools)
        keepers = name_keepers([t.name for t in tools])  # a made name another has is served only without it
        for tool in tools:
            others = [r for r in tool.revisions if r != tool.revision]
            more = f"  (also {', '.join(others)})" if others else ""
            name = served_name(tool.name)
            if not name:
                more += "  (cannot be served)"
            elif name != tool.name:
                cut = ", cut to 128 characters" if was_cut(tool.name) else ""
                keeper = keepers[tool.name]
                beside = f", but not beside the tool {keeper}" if keeper != tool.name else ""
                more += f"  (served as {name}{cut}{beside})"
            print(f"{tool.name:<{width}}  {tool.kind:<8}  {tool.revision:<7}  {tool.path}{more}")
        print(f"Serve some: nanohubmcp hub-tools NAME... [--root {root}]", file=sys.stderr)
        return 0
    from ..facade import MCPServer

    try:
        chosen = pick(root, args.names)
    except LookupError as exc:
        raise NanohubMCPError(str(exc)) from None
    served = served_names(chosen)
    for tool, why in served.skipped:
        print(f"warning: not serving {os.path.dirname(tool.path)}: {why}", file=sys.stderr)
    if not served.named:
        raise NanohubMCPError("none of the tools named can be served (see the warnings above)")
    transport = _prepare(args)
    server = MCPServer(args.names[0].partition("/")[0] if len(args.names) == 1 else "hub-tools")
    for tool, name in served.named:
        if tool.kind == "sim2l":
            server.add_sim2l(tool.path, name=name, background=args.background, results_dir=args.results_dir,
                             cell_timeout=args.cell_timeout)
        else:
            server.add_rappture_tool(tool.path, name=name, background=args.background or None)
    return _serve(server, args, transport)


def bridge(args: argparse.Namespace) -> int:
    from ..transports.bridge import BridgeOptions, run_bridge

    token = args.token if args.token is not None else os.environ.get("MCP_TOKEN")
    options = BridgeOptions.from_arguments(args.url, headers=args.header, cookies=args.cookie, token=token)
    return run_bridge(options)
