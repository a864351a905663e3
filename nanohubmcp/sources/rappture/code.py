"""A Rappture tool's code for its provenance records: its ``tool.xml`` and the program files its
``<command>`` runs.

A word of the command that names a file through ``@tool`` (``python @tool/fermi.py @driver``,
``@tool/../bin/app``, ``--script=@tool/run.tcl``) and is a file when the tool is registered counts;
programs found on ``PATH`` (``python``, ``octave``) are the environment's, not the tool's, and a
file the program reads by itself is not seen. The files are read once, at registration: the code
hash is of the files as they were then (:mod:`nanohubmcp.server.provenance.code_files`).
"""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING, Any

from ...server.provenance.code_files import bundle, read_entry

if TYPE_CHECKING:
    from .tool import RapptureTool


def program_files(command: str, tool_dir: str) -> list[str]:
    """The files (real paths, in the order named, each once) the ``<command>`` names through ``@tool``."""
    try:
        words = [word.replace("@tool", tool_dir) for word in shlex.split(command)]
    except ValueError:
        words = [word.replace("@tool", tool_dir) for word in command.split()]
    found: list[str] = []
    for word in words:
        for part in (word, word.rpartition("=")[2]):
            if tool_dir in part and os.path.isfile(part):
                real = os.path.realpath(part)
                if real not in found:
                    found.append(real)
                break
    return found


def code_text(tool: RapptureTool) -> str:
    """The code text of ``tool`` (tool.xml first, then its programs), named relative to its directory."""
    directory = str(tool.directory)
    files: list[dict[str, Any]] = []
    for path in [str(tool.path), *program_files(tool.command, directory)]:
        name = os.path.relpath(path, directory)
        entry = read_entry(path, name)
        if entry is not None:
            files.append(entry)
    return bundle("rappture", tool.name, files)
