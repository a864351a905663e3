"""A Rappture tool's code for its provenance records: its ``tool.xml`` and the program files its
``<command>`` runs.

A word of the command that names a file through ``@tool`` (``python @tool/fermi.py @driver``,
``@tool/../bin/app``, ``--script=@tool/run.tcl``) and is a file counts; programs found on ``PATH`` (``python``,
``octave``) are the environment's, not the tool's, and a file the program reads by itself is not
seen. The files are watched (:class:`~nanohubmcp.server.provenance.code_files.WatchedCode`): a
call stats them, and when tool.xml or a program was edited since they were last read they are
read again (the command too, from the edited tool.xml), so the code hash is of the files the call
runs.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

from ...server.provenance.code_files import WatchedCode, bundle, read_entry
from .inputs import text_of

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


def tool_version(root: ET.Element) -> str | None:
    """The tool's own version as its tool.xml states it: ``<tool><version><application><revision>`` (where a hub's
    installation writes it, and what Rappture's viewers call the tool's revision), else a ``<tool><version>``
    holding text alone; None when it states none."""
    revision = text_of(root, "tool/version/application/revision")
    if revision:
        return revision
    element = root.find("tool/version")
    if element is not None and len(element) == 0 and (element.text or "").strip():
        return (element.text or "").strip()
    return None


def _read(tool: RapptureTool) -> tuple[str, list[str], dict[str, str | None]]:
    """``(code text, the files read, {"version": the tool's own, or None})``: tool.xml as it is now (first), then
    the programs its command names, named relative to the tool's directory. The command registered counts too (run
    off a hub, it is what runs; on a hub ``rappture`` reads tool.xml's own)."""
    directory = str(tool.directory)
    commands = [tool.command]
    version = tool_version(tool.root)
    with contextlib.suppress(ET.ParseError, OSError):  # mid-edit or gone: its bytes (or absence) count below
        root = ET.parse(tool.path).getroot()
        commands.append(text_of(root, "tool/command"))
        version = tool_version(root)
    paths = [str(tool.path)]
    for command in commands:
        paths += [path for path in program_files(command, directory) if path not in paths]
    files: list[dict[str, Any]] = []
    for path in paths:
        entry = read_entry(path, os.path.relpath(path, directory))
        if entry is not None:
            files.append(entry)
    return bundle("rappture", files), paths, {"version": version}


def watched_code(tool: RapptureTool) -> WatchedCode:
    """``tool``'s files, watched: read now, and again when a call finds one edited."""
    return WatchedCode(lambda: _read(tool))
