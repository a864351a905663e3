"""The ``nanohubmcp`` subcommands that serve: ``run``, ``sim2l``, ``rappture``, ``hub-tools``, ``bridge``.

Each builds (or imports) an ``MCPServer`` and serves it over HTTP or stdio until stopped, or, for
``bridge``, relays a stdio client to a running server's URL. Each takes the parsed arguments
(:mod:`.parser` defines them) and returns the exit status; the serving options, the same for every
subcommand that serves, are checked and served with by :mod:`.serving_options`. What the server, the
sources and the transports do is theirs, imported when the subcommand runs so that ``nanohubmcp --help``
stays quick.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import NanohubMCPError, UsageError
from ..transports.limit_option import LIMIT_OPTIONS, limit_keywords
from .serving_options import absolute, prepare_serving, refuse_busy_port, refuse_unshared_workers, serve

if TYPE_CHECKING:
    from ..facade import MCPServer
    from ..sources.rappture.tool import RapptureTool
    from ..sources.sim2l.notebook import Sim2LSpec

__all__ = ["HUB_TOOLS_DIR", "bridge", "hub_state_dir", "hub_tools", "hub_tools_server", "rappture", "rappture_cache",
           "rappture_server", "run_app", "sim2l", "sim2l_server"]


def run_app(args: argparse.Namespace) -> int:
    from ..nanohub.child import load_app

    transport = prepare_serving(args, app=True)  # before the app is imported
    state_dir = absolute(args.state_dir) if args.state_dir is not None else None
    app = absolute(args.app)  # the app may change the working directory (an exported notebook's script does)
    server = load_app(args.app, state_dir=state_dir, state_url=args.state_url)
    # the app could have named a shared store: known only now
    refuse_unshared_workers(args.workers, shared=server.core.state_url.shared, app=True)
    if transport == "http":
        _note_skipped_keywords(args, app)
    return serve(server, args, transport)


OPTION_OF_KEYWORD = {
    "public_url": "--public-url", "path_prefix": "--path-prefix", "allowed_origins": "--allowed-origins",
    "proxy_headers": "--proxy-headers", "host": "--host", "token": "--token-file", "workers": "--workers",
    "transport": "--transport", "exit_grace": "--exit-grace", **LIMIT_OPTIONS,
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
             "workers": args.workers if args.workers != 1 else None, "exit_grace": args.exit_grace,
             "token": args.token if args.token is not None else os.environ.get("MCP_TOKEN"),
             **limit_keywords(args)}  # fmt: skip
    note = skipped_keywords_note(checked_app_file(app), "nanohubmcp run", OPTION_OF_KEYWORD,
                                 {k for k, v in given.items() if v is not None})
    if note:
        print(f"note: {note}", file=sys.stderr)


def sim2l(args: argparse.Namespace) -> int:
    if args.name and len(args.paths) > 1:
        raise UsageError("--name names one tool: give one PATH with it")
    transport = prepare_serving(args)
    refuse_busy_port(args, transport)  # before the seconds of papermill's and simtool's import
    # Loading papermill and simtool and reading the notebooks takes seconds (more on a loaded machine) before
    # the banner: say so at once, on stderr (stdout may be the stdio protocol's).
    named = ", ".join(os.path.basename(path) for path in args.paths)
    print(f"nanohubmcp sim2l: reading {named} and loading papermill and simtool (some seconds) ...",
          file=sys.stderr, flush=True)
    return serve(sim2l_server(args), args, transport)


def sim2l_server(args: argparse.Namespace) -> MCPServer:
    """The server ``nanohubmcp sim2l`` serves: each notebook of ``args.paths`` registered, its
    ``instructions`` ``args.instructions`` or made from the notebooks, its version one notebook's revision
    (:mod:`.served_text`).

    Raises:
        RegistrationError: a notebook that is not a Sim2L (the message names it); two of one name.
    """
    from ..facade import MCPServer
    from ..sources.sim2l.notebook import read_sim2l
    from ..sources.sim2l.tool import tool_name
    from .served_text import one_name_each

    specs = [read_sim2l(path) for path in args.paths]
    # the names the tools are served as: two Sim2L names may differ only where a tool name may not
    one_name_each("sim2l", "add_sim2l", [(args.name or tool_name(spec), spec.path) for spec in specs])
    version, instructions = _told([], [(args.name or spec.name, spec) for spec in specs], args.instructions)
    server = MCPServer(args.name or (Path(args.paths[0]).stem if len(args.paths) == 1 else "sim2l"),
                       version, instructions)
    for path in args.paths:
        server.add_sim2l(path, name=args.name, background=args.background, results_dir=args.results_dir,
                         cell_timeout=args.cell_timeout)
    return server


def rappture(args: argparse.Namespace) -> int:
    if args.name and len(args.paths) > 1:
        raise UsageError("--name names one tool: give one PATH with it")
    rappture_cache(args)  # refused with --async before anything is read
    transport = prepare_serving(args)
    return serve(rappture_server(args), args, transport)


def rappture_cache(args: argparse.Namespace) -> bool | str:
    """The ``cache=`` of ``add_rappture_tool`` that ``--cache`` / ``--cache-shared`` give (``rappture``,
    ``hub-tools``).

    Raises:
        UsageError: either with ``--async``: a job's result is the job's, not the cache's.
    """
    if (args.cache or args.cache_shared) and args.background:
        option = "--cache-shared" if args.cache_shared else "--cache"
        raise UsageError(f"{option} is for calls answered at once, and --async makes each call a job: leave out one "
                         "of them")
    return "shared" if args.cache_shared else bool(args.cache)


def rappture_server(args: argparse.Namespace) -> MCPServer:
    """The server ``nanohubmcp rappture`` serves: each tool of ``args.paths`` registered, its
    ``instructions`` ``args.instructions`` or made from the tools, its version one tool's own (tool.xml's
    ``<tool><version>``; :mod:`.served_text`).

    Raises:
        RegistrationError: a file that is not a Rappture tool (the message names it); two of one name.
    """
    from ..facade import MCPServer
    from ..sources.rappture import load_rappture_tool
    from .served_text import one_name_each

    tools = [load_rappture_tool(path, name=args.name) for path in args.paths]
    one_name_each("rappture", "add_rappture_tool", [(tool.name, str(tool.path)) for tool in tools])
    version, instructions = _told(tools, [], args.instructions)
    server = MCPServer(tools[0].name if len(tools) == 1 else "rappture", version, instructions)
    for path in args.paths:
        server.add_rappture_tool(path, name=args.name, background=args.background or None, timeout=args.timeout,
                                 plot=args.plot, cache=rappture_cache(args))
    return server


def _told(rappture: list[RapptureTool], sim2l: list[tuple[str, Sim2LSpec]], given: str | None) -> tuple[str, str]:
    """The version and ``instructions=`` of a server of the Rappture tools ``rappture`` and the Sim2Ls ``sim2l``
    (each with the name it is described by), ``given`` (``--instructions``) winning: the one reading the
    ``rappture``, ``sim2l`` and ``hub-tools`` servers and their ``server.json`` share (:mod:`.served_text`)."""
    from ..sources.rappture.code import tool_version
    from .served_text import instructions_for, version_for

    # (both kinds: several tools, said "<kind>s served with nanohubmcp: <names>")
    kind = "Rappture tool" if not sim2l else "Sim2L" if not rappture else "Rappture tools and Sim2L"
    described = [(tool.title or tool.name, tool.about) for tool in rappture]
    described += [(name, spec.description) for name, spec in sim2l]
    revisions = [tool_version(tool.root) for tool in rappture] + [spec.revision for _, spec in sim2l]
    return version_for(revisions), given or instructions_for(kind, described, titled=bool(rappture))


def hub_tools(args: argparse.Namespace) -> int:
    if not args.names:
        return _list_hub_tools(_hub_root(args))
    rappture_cache(args)  # refused with --async before anything is read
    transport = prepare_serving(args)  # (a listing serves nothing: parse_arguments refused its serving options)
    return serve(hub_tools_server(args), args, transport)


def _hub_root(args: argparse.Namespace) -> str:
    """``--root``, else the default root, once it is known to be a directory (a typo in ``--root`` is not an
    empty hub)."""
    from ..sources.hub import DEFAULT_ROOT

    root: str = args.root or DEFAULT_ROOT
    if not os.path.isdir(root):
        if args.root:
            raise NanohubMCPError(f"--root {root}: no such directory")
        raise NanohubMCPError(f"{root}: no such directory (not a hub? give --root DIR, where the tools are installed)")
    return root


def _list_hub_tools(root: str) -> int:
    from ..sources.hub import find_hub_tools, name_keepers, same_as, served_name, was_cut

    tools = find_hub_tools(root)
    if not tools:
        print(f"No Rappture tool or Sim2L is installed under {root}.", file=sys.stderr)
        return 0
    width = max(len(t.name) for t in tools)
    keepers = name_keepers([t.name for t in tools])  # a made name another has is served only without it
    targets = [same_as(tool, tool.revision) for tool in tools]  # current -> r2: r2 is that revision, no other
    revisions = [f"{t.revision} -> {target}" if target else t.revision
                 for t, target in zip(tools, targets, strict=True)]
    revision_width = max(7, *map(len, revisions))
    for tool, target, revision in zip(tools, targets, revisions, strict=True):
        others = [r for r in tool.revisions if r not in (tool.revision, target)]
        more = f"  (also {', '.join(others)})" if others else ""
        name = served_name(tool.name)
        if not name:
            more += "  (cannot be served)"
        elif name != tool.name:
            cut = ", cut to 128 characters" if was_cut(tool.name) else ""
            keeper = keepers[tool.name]
            beside = f", but not beside the tool {keeper}" if keeper != tool.name else ""
            more += f"  (served as {name}{cut}{beside})"
        print(f"{tool.name:<{width}}  {tool.kind:<8}  {revision:<{revision_width}}  {tool.path}{more}")
    print(f"Serve some: nanohubmcp hub-tools NAME... [--root {root}]", file=sys.stderr)
    return 0


def hub_tools_server(args: argparse.Namespace) -> MCPServer:
    """The server ``nanohubmcp hub-tools NAME...`` serves: the tools ``args.names`` names under ``args.root``
    (each skipped one said on stderr), named after the one tool, else ``hub-tools``; its state directory
    :func:`hub_state_dir`, whatever tools it serves.

    Raises:
        NanohubMCPError: ``--root`` is no directory, a name no tool has (the message names those that come
            close), none of the tools named can be served.
        RegistrationError: a tool that cannot be read (the message says why).
    """
    from ..facade import MCPServer
    from ..sources.hub import pick, served_names
    from ..sources.rappture import load_rappture_tool
    from ..sources.sim2l.notebook import read_sim2l

    try:
        chosen = pick(_hub_root(args), args.names)
    except LookupError as exc:
        raise NanohubMCPError(str(exc)) from None
    served = served_names(chosen)
    for tool, why in served.skipped:
        print(f"warning: not serving {os.path.dirname(tool.path)}: {why}", file=sys.stderr)
    if not served.named:
        raise NanohubMCPError("none of the tools named can be served (see the warnings above)")
    version, instructions = _told(  # described as `nanohubmcp rappture` / `sim2l` and their server.json describe them
        [load_rappture_tool(tool.path, name=name) for tool, name in served.named if tool.kind != "sim2l"],
        [(name, read_sim2l(tool.path)) for tool, name in served.named if tool.kind == "sim2l"], None)
    server = MCPServer(args.names[0].partition("/")[0] if len(args.names) == 1 else "hub-tools", version,
                       instructions, state_dir=hub_state_dir())
    for tool, name in served.named:
        if tool.kind == "sim2l":
            server.add_sim2l(tool.path, name=name, background=args.background, results_dir=args.results_dir,
                             cell_timeout=args.cell_timeout)  # (repeated inputs: answered from its stored runs)
        else:
            server.add_rappture_tool(tool.path, name=name, background=args.background or None,
                                     cache=rappture_cache(args))
    return server


HUB_TOOLS_DIR = "hub-tools"
"""The name of every ``hub-tools`` server's state directory under the default root (:func:`hub_state_dir`), and so
what ``provenance list --name`` takes for its records."""


def hub_state_dir() -> str | None:
    """The state directory of every ``hub-tools`` server, whatever tools it serves: ``hub-tools`` under the
    default root (``$SESSIONDIR/nanohubmcp/hub-tools`` on nanoHUB, ``~/.local/share/nanohubmcp/hub-tools``),
    so adding a tool to the command keeps its stored runs, cache and records. None when one is named
    (``--state-dir``, ``$NANOHUBMCP_STATE_DIR``, a ``sqlite:///DIR`` state URL): that one is used."""
    from ..server.wire.state_dir import default_root, named_state_dir
    from ..state.url import resolve

    if named_state_dir() or resolve(None).path is not None:
        return None
    return os.path.join(default_root(), HUB_TOOLS_DIR)


def bridge(args: argparse.Namespace) -> int:
    from ..transports.bridge import BridgeOptions, run_bridge

    token = args.token if args.token is not None else os.environ.get("MCP_TOKEN")
    options = BridgeOptions.from_arguments(args.url, headers=args.header, cookies=args.cookie, token=token)
    return run_bridge(options)
