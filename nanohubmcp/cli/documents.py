"""The ``nanohubmcp`` subcommands that write a file or print a document.

``export`` (a notebook as ``start_mcp.py``), ``server-json`` (the MCP Registry's ``server.json``),
and ``desktop-config`` (a desktop client's configuration entry), and the one way they write a
file: to a temporary name beside it, renamed over it once complete (the ``provenance`` subcommands:
:mod:`.provenance_commands`). Each takes the parsed arguments (:mod:`.parser` defines them) and returns
the exit status; the translation and the documents are their own modules', imported
when the subcommand runs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import NanohubMCPError

if TYPE_CHECKING:
    from ..facade import MCPServer
    from ..jupyter.translate import Script

__all__ = [
    "export_notebook",
    "print_desktop_config",
    "write_server_json",
]




def export_notebook(args: argparse.Namespace) -> int:
    from ..schema.iri_grammar import deferred_iri_grammar

    with deferred_iri_grammar():  # nbformat imports jsonschema: its RFC 3987 grammar waits for an iri check
        import nbformat

    from ..jupyter.earlier_export import refusal
    from ..jupyter.translate import translate

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
        output=str(output) if output else None,  # -o -: taken to be written beside the notebook
        format_code=args.format_code,
        refuse_empty=True,
    )
    if output is None:
        sys.stdout.write(script.text)
        return 0
    refused = None
    if output.exists() and not args.force:  # not read when forced: reading a FIFO (-o PIPE --force) would block
        refused = refusal(output.read_text(errors="replace"), str(notebook_path))
    if refused is not None:
        how = (f"give -o FILE to write {notebook_path.name}'s script, or --force to replace it"
               if refused.other_notebook else "use --force to replace it")
        raise NanohubMCPError(f"{output} {refused.reason}; {how}")
    _write_atomically(output, script.text)
    token = " with MCP_TOKEN set (the token its clients send)" if script.token_required else ""
    # A device or a FIFO (-o /dev/null) was written into: not a script to run.
    run = f" Run it{token}: python {output}, or start_mcp --app {output}" if output.resolve().is_file() else ""
    print(f"Wrote {output} ({export_counts(script)}).{run}", file=sys.stderr)
    for line in script.dropped:
        print(f"  dropped (see the comment in the script): {line}", file=sys.stderr)
    for line in script.notes:
        print(f"  note: {line}", file=sys.stderr)
    return 0


def print_desktop_config(args: argparse.Namespace) -> int:
    from .. import desktop_config

    token = args.token if args.token is not None else desktop_config.default_token()
    launch = desktop_config.launch_for(
        args.app, url=args.url, name=args.name, token=token, env=desktop_config.parse_env(args.env))
    unnamed = ""
    if args.url is not None and args.name is None:  # the server's name, asked of it (two bridges: two entries)
        from ..served_name import asked_name

        asked, unnamed = asked_name(launch.args[-1], token)  # (the bridge's URL, checked)
        launch.name = asked or launch.name
    print(desktop_config.render(launch, args.client))
    if unnamed:
        print(f"note: the entry is named {launch.name!r}: the server could not be asked its name ({unnamed}); "
              "give each bridged server's entry a name of its own with --name NAME", file=sys.stderr)
    if launch.needs_token and "MCP_TOKEN" not in launch.env:
        print(f"note: {launch.name}'s server has auth=: over stdio it starts only with its caller's token in "
              "MCP_TOKEN; add it to the entry's \"env\" (set MCP_TOKEN or pass --token-file PATH here)",
              file=sys.stderr)
    return 0


def write_server_json(args: argparse.Namespace) -> int:
    import json

    from ..nanohub.child import load_app
    from ..nanohub.plan import WEBER_PORT
    from ..nanohub.proxy import detect_proxy
    from ..serving.runners import token_required
    from ..transports.discovery import server_json
    from ..transports.registry_name import NAME_VARIABLE, registry_name

    # A tool session's weber URL is the session's own: it carries the session's filexfer cookie (a secret
    # that opens the session's proxy) and stops working when the session ends. Listed in remotes only
    # when given explicitly; the running server's card still advertises it (behind its token).
    session = detect_proxy(port=WEBER_PORT, kind="tool")
    session_url = session.public_url if session.on_hub else None
    base = args.public_url or None
    if base and not base.endswith("/"):
        base += "/"
    output = None if args.output == "-" else Path(args.output).absolute()  # before the app may change directory
    command = _served_by(args.app)
    with contextlib.redirect_stdout(sys.stderr):  # whatever the app prints must not mix with the document
        # (environ=None: a token= the file reads from its environment is declared whatever this one holds)
        server = load_app(args.app, environ=None) if command == "run" else _file_server(command, args.app)
    document = server_json(server.core, app=os.path.basename(args.app), base=base, name=args.name,
                           named_at=session_url,  # named as the running server's card names it
                           http_token=token_required(server), stdio_token=token_required(server, "stdio"),
                           command=command)
    if session_url and base is None:
        print(f"note: the weber URL of tool session {session.session} is this tool session's own: it holds the "
              "session's secret proxy cookie and stops working when the session ends, so it is not listed in "
              "remotes; give --public-url URL to list a URL meant to be public", file=sys.stderr)
    elif session_url and base is not None and base.startswith(session_url.rstrip("/")):
        print(f"warning: --public-url is the weber URL of tool session {session.session}: it holds the session's "
              "secret proxy cookie and stops working when the session ends; publish it only where that secret "
              "may go", file=sys.stderr)
    elif args.public_url and "remotes" not in document:
        print(f"warning: {args.public_url} is this machine's own (loopback) address, which no registry client "
              "can reach: the document lists no remotes; give the URL others use", file=sys.stderr)
    card_name = registry_name(server.core.name, base or session_url)
    if document["name"] != card_name:
        print(f"note: the running server's card and catalogs name it {card_name}; set "
              f"{NAME_VARIABLE}={document['name']} where it runs for them to agree", file=sys.stderr)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        _write_atomically(output, text)
        print(f"Wrote {args.output} ({document['name']} {document['version']})", file=sys.stderr)
    return 0


def _served_by(path: str) -> str:
    """The command serving ``path``: ``"rappture"`` for a Rappture tool.xml, ``"sim2l"`` for a Sim2L notebook
    (one with ``%%yaml INPUTS``/``OUTPUTS`` cells), else ``"run"`` (an app file: its own checks refuse the rest)."""
    if path.endswith(".xml") and os.path.isfile(path):
        return "rappture"
    if path.endswith(".ipynb") and os.path.isfile(path):
        from ..errors import RegistrationError
        from ..sources.sim2l.notebook import read_sim2l

        try:
            read_sim2l(path)
        except RegistrationError:
            return "run"  # another notebook: refused as an app file is, saying to export it
        return "sim2l"
    return "run"


def _file_server(command: str, path: str) -> MCPServer:
    """The server ``nanohubmcp rappture PATH`` or ``nanohubmcp sim2l PATH`` serves, with their defaults."""
    from .serve import rappture_server, sim2l_server

    args = argparse.Namespace(paths=[path], name=None, instructions=None, background=False, timeout=None, plot=True,
                              results_dir=None, cell_timeout=None, cache=False, cache_shared=False)
    return rappture_server(args) if command == "rappture" else sim2l_server(args)


def _output_path(notebook: Path, option: str | None) -> Path | None:
    """Where to write: None for standard output."""
    if option == "-":
        return None
    if option is None:
        return notebook.parent / "start_mcp.py"
    path = Path(option)
    return path / "start_mcp.py" if path.is_dir() else path


def export_counts(script: Script) -> str:
    """What an export serves, e.g. ``"4 tools (2 from %%mcp_tool cells, 1 Rappture tool, 1 Sim2L
    notebook), 0 resources, 0 prompts"``: the tools of ``%mcp rappture`` / ``%mcp sim2l`` lines count."""

    def many(count: int, word: str) -> str:
        return f"{count} {word}{'' if count == 1 else 's'}"

    kinds = [source.split(" ", 1)[0] for source in script.sources]
    tools = many(len(script.tools) + len(kinds), "tool")
    if kinds:
        parts = [f"{len(script.tools)} from %%mcp_tool cells"] if script.tools else []
        parts += [many(kinds.count("rappture"), "Rappture tool")] if "rappture" in kinds else []
        parts += [many(kinds.count("sim2l"), "Sim2L notebook")] if "sim2l" in kinds else []
        tools += f" ({', '.join(parts)})"
    return f"{tools}, {many(len(script.resources), 'resource')}, {many(len(script.prompts), 'prompt')}"


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``.

    A symbolic link stays a link (the file it names is replaced); a path that is not a regular
    file (``/dev/null``, a FIFO, a terminal) is written into, never renamed over: run as root,
    ``-o /dev/null`` would otherwise make the machine's ``/dev/null`` a regular file."""
    path = path.resolve() if path.is_symlink() else path
    if path.exists() and not path.is_file():
        try:
            with open(path, "w", encoding="utf-8") as stream:
                stream.write(text)
        except OSError as exc:
            raise NanohubMCPError(f"cannot write {path}: {exc.strerror or exc}") from None
        return
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
