"""The exported ``start_mcp.py`` around its cells: the header docstring, the ``server`` line, and the
command line with ``if __name__ == "__main__": server.run(...)`` at the end.

The header says where the script came from and how to run it, and carries :data:`EXPORT_MARKER`
(:func:`.earlier_export.looks_exported` looks for it). Without ``--host`` the script binds the notebook's
host (127.0.0.1 if other machines reach that one), and without ``--port`` it serves on
``$MCP_PORT``, else on the notebook's port (:meth:`.export_settings.ExportSettings.command_line`).
The port is checked as ``nanohubmcp`` checks ``--port``, by :func:`nanohubmcp.cli.add_port_option`:
a value outside 0-65535 exits 2 with one line. As the notebook's server requires a bearer token
(unless ``%config NanohubMCP.token = ''``), so does the script: ``$MCP_TOKEN`` or ``--token-file PATH``
(:func:`nanohubmcp.cli.add_script_token_options`), else it exits 2 with one line
(:func:`nanohubmcp.cli.required_token`); the notebook's token itself is never written into it. With
``--transport stdio`` (or ``$MCP_TRANSPORT=stdio``; :func:`nanohubmcp.cli.add_transport_option`), what a
desktop client starts, it needs no token and writes nothing but MCP messages on stdout (the port-0 note
goes to stderr, over HTTP only).
Before ``server`` and the cells, the script makes the notebook's folder its working directory, as the
notebook's kernel had it (:func:`nanohubmcp.cli.work_in_notebook_folder`: ``open("data.txt")`` in a cell
reads the file beside the notebook wherever the script is started from), and reads a relative
``--token-file`` from the directory it was started in.
``start_mcp --app`` and ``nanohubmcp run`` import the script and run ``server`` themselves, with the token
they are given; ``server.require_token(...)`` under the ``server`` line makes them refuse to serve without one.
The comment above ``server.run(**_command_line_options(), ...)`` starts with
:data:`~nanohubmcp.nanohub.run_call.OWN_COMMAND_LINE`: their note on the ``run()`` arguments they leave out
takes that ``**`` argument for the script's own command line (theirs gives it), not one left out.
``python start_mcp.py`` serves inside :func:`nanohubmcp.cli.ends_as_served`: once served, its process ends as
``nanohubmcp run``'s does, at once (the interpreter's freeing of the cells' modules took seconds).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._version import __version__
from ..nanohub.run_call import OWN_COMMAND_LINE
from .script_text import call_arguments, escape_docstring, literal, tidy

if TYPE_CHECKING:
    from .export_settings import ExportSettings

__all__ = ["EXPORT_MARKER", "frame"]

EXPORT_MARKER = "by nanohubmcp"
"""Text on the ``Exported:`` line of every script's header (see :func:`.earlier_export.looks_exported`)."""

_HEADER = '''"""{doc}

An MCP server exported from the Jupyter notebook {source}.
Exported: {day} {marker} {version}. Edit the notebook and export it again
(nanohubmcp export, or jupyter nbconvert --to mcp) rather than editing this file.

Run it:
    python {file} [--host {host}] [--port {port}]    # or set MCP_PORT
    python {file} --transport stdio    # a desktop client (or MCP_TRANSPORT=stdio; no token)
    start_mcp --app {file}    # on nanoHUB{token_run}

Its cells run in the notebook's folder ({folder}), as they did in the notebook's
kernel: however it is started (python, nanohubmcp run, start_mcp --app, a desktop client), the
script makes that folder the working directory before the cells run, so open("data.txt") reads
the file beside the notebook. Relative paths on its command line are the caller's.
"""'''
_FOLDER = """from nanohubmcp.cli import work_in_notebook_folder

# The cells run in the notebook's folder, as in its kernel (see above); --token-file PATH is the caller's.
_CALLER_DIRECTORY = work_in_notebook_folder(__file__{folder})"""
"""Before ``server`` and the cells' code: the working directory the notebook's kernel had
(:func:`nanohubmcp.cli.work_in_notebook_folder`)."""
_STDIO_FIRST = '''if __name__ == "__main__":  # over stdio what the cells below print goes to stderr (stdout: MCP)
    from nanohubmcp.cli import keep_stdout_for_stdio, refusals_in_one_line

    keep_stdout_for_stdio()
    refusals_in_one_line()  # a tool the cells register that cannot be served: one line naming it, exit status 1'''
"""Before the cells' code: a ``print()`` at import must not reach a stdio client ahead of the MCP messages, and
a tool the server refuses (one a decorator made a generator, which the export cannot tell) is said in one line
(:func:`nanohubmcp.cli.refusals_in_one_line`), as ``nanohubmcp run`` of the script says it."""
_TOKEN_RUN = """
Its clients send a bearer token, as the notebook's server required; the notebook's token is not
exported: set MCP_TOKEN to a token of your choice (or pass --token-file PATH), else neither
python {file} nor start_mcp --app {file} serves it over HTTP (over stdio none is needed)."""
_FOOTER = '''def _command_line_options(argv=None):
    """--host, --port, --transport and the token of `python this_file.py` (start_mcp --app passes its own)."""
    import argparse

    from nanohubmcp.cli import add_port_option, add_script_token_options, add_transport_option{token_import}

    parser = argparse.ArgumentParser(description={description})
    parser.add_argument("--host", default={host}, help={host_help})
    add_port_option(parser, default={port}, help={port_help})  # a bad --port or $MCP_PORT exits 2
    add_transport_option(parser)  # --transport, else $MCP_TRANSPORT, else http; stdio: stdout is the client's
    add_script_token_options(parser, directory=_CALLER_DIRECTORY)  # --token-file, else $MCP_TOKEN; --token "" exits 2
    args = parser.parse_args(argv)
    port = args.port{token}{zero_note}  # the token first: a script that refuses to start notes no port
    return {{"host": args.host, "port": port, "transport": args.transport, "token": token}}


if __name__ == "__main__":
    import nanohubmcp.cli

    with nanohubmcp.cli.ends_as_served(server):  # served, it ends as nanohubmcp run does: at once, no heap freed
        {own_command_line} (start_mcp --app and nanohubmcp run use their own)
        server.run(**_command_line_options(){run})'''


_ZERO_PORT_NOTE = '''
    if int(port) == 0 and args.transport == "http":  # over stdio no port is opened, and stdout is the client's
        import sys

        print("Port 0, as in the notebook (%config NanohubMCP.port = 0): serving on any free port, shown "
              "below; pass --port N or set MCP_PORT for a fixed one.", file=sys.stderr, flush=True)'''
"""Printed (on stderr) by an exported script whose port is the notebook's 0 (any free port), over HTTP."""

_REQUIRED_TOKEN = '''
    # The notebook's server required a bearer token; so does this script over HTTP (without one it exits 2
    # saying so). Over stdio none is needed: the client is the process that started the script.
    why = "as the notebook's server did (its token is not exported)"
    token = required_token(parser, args.token, why=why, transport=args.transport)'''
_SERVER_REQUIRES_TOKEN = '''
# However it is served (python, nanohubmcp run, start_mcp --app), never over HTTP without a token.
server.require_token("as the notebook's server did (its token is not exported)")'''
_OPTIONAL_TOKEN = '''
    token = args.token  # None: $MCP_TOKEN, else no token (the notebook turned its token off)'''


def frame(settings: ExportSettings, blocks: Sequence[str], futures: Sequence[str], *, source: str, file: str,
          name: str, doc: str, day: datetime.date, notebook_folder: str = ".") -> str:
    """The whole file: header, ``server``, the cells' code (``blocks``, in order), the command line
    and ``__main__``. ``futures``: the ``from __future__`` names the cells import (moved to the top);
    ``source``: the notebook's path; ``file``: the script's file name; ``doc``: the notebook's leading
    markdown (else the server's ``name``); ``day``: the export's date; ``notebook_folder``: the
    notebook's folder relative to the script's (``"."``: beside it), made the working directory."""
    line = settings.command_line()
    token_run = _TOKEN_RUN.format(file=escape_docstring(file)) if line.token_required else ""
    parts = [
        _HEADER.format(doc=escape_docstring(doc or name), source=escape_docstring(source), day=day.isoformat(),
                       port=line.port, marker=EXPORT_MARKER, version=__version__, file=escape_docstring(file),
                       host=line.host, token_run=token_run,
                       folder="the script's own" if notebook_folder == "." else escape_docstring(
                           f"{notebook_folder} from the script's")),
        f"from __future__ import {', '.join(futures)}" if futures else "",
        _STDIO_FIRST,
        _FOLDER.format(folder="" if notebook_folder == "." else f", {literal(notebook_folder)}"),
        f"from nanohubmcp import MCPServer\n\nserver = MCPServer({call_arguments([name], settings.placed('ctor'))})"
        + (_SERVER_REQUIRES_TOKEN if line.token_required else ""),
        *(tidy(block) for block in blocks),
        _FOOTER.format(
            description=literal(f"Serve {name} over MCP."), host=literal(line.host),
            host_help=literal(line.host_help), port=repr(line.port), port_help=literal(line.port_help),
            own_command_line=OWN_COMMAND_LINE,
            run="".join(f", {k}={literal(v)}" for k, v in settings.placed("run").items() if v not in (None, "")),
            zero_note=_ZERO_PORT_NOTE if line.port == 0 else "",
            token_import=", required_token" if line.token_required else "",
            token=_REQUIRED_TOKEN if line.token_required else _OPTIONAL_TOKEN,
        ),
    ]
    return "\n\n\n".join(part for part in parts if part.strip()) + "\n"
