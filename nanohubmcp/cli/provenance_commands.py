"""The ``nanohubmcp provenance`` subcommands: ``list`` (a state directory's newest provenance records), ``show``
(one record as JSON) and ``export`` (a call's record as an RO-Crate), and how they find the server's records.
Each takes the parsed arguments (:mod:`.parser` defines them) and returns the exit status; the records are
:mod:`nanohubmcp.server.provenance`'s, imported when the subcommand runs.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..errors import ConfigurationError, NanohubMCPError, UsageError

__all__ = ["export_provenance", "list_provenance", "records_directory", "show_provenance"]

WHOSE = "give the server's state directory (--state-dir DIR) or its name (--name NAME)"
MAX_NAMED = 10
"""Server directories an error lists by name at most."""


def records_directory(state_dir: str | None, name: str | None) -> str:
    """The state directory whose provenance records ``provenance list``/``export`` read: ``state_dir``,
    else the default directory of the server named ``name`` (a command-line option wins over the
    environment), else ``$NANOHUBMCP_STATE_DIR``, else the one server directory under the default root
    (:func:`.state_dir.default_root`) that holds records.

    Raises:
        NanohubMCPError: that directory holds no records (saying when ``$NANOHUBMCP_STATE_DIR`` chose
            it); none given and no server directory, or several, under the default root hold records
            (naming the root and them).
    """
    from ..server.provenance.record_db import DB_FILE
    from ..server.wire.state_dir import ENV_STATE_DIR, default_root, resolve_state_dir, safe_name

    if name is not None and not name.strip():  # (safe_name would read it as "server")
        raise NanohubMCPError(f"--name {name!r} names no server: {WHOSE}")
    from_env = os.environ.get(ENV_STATE_DIR, "").strip()
    if state_dir or name is not None or from_env:
        if state_dir:
            directory, source = resolve_state_dir("server", state_dir), ""
        elif name is not None:
            directory, source = os.path.join(default_root(), safe_name(name)), ""
        else:
            directory = resolve_state_dir("server", from_env)
            source = f" (named by ${ENV_STATE_DIR})"
        if not os.path.isfile(os.path.join(directory, DB_FILE)):
            hint = _hub_tools_hint(name) if not state_dir and name is not None else ""
            raise NanohubMCPError(f"no provenance records in {directory}{source}: {WHOSE}{hint}")
        return directory
    root = default_root()
    try:
        found = sorted(entry.name for entry in os.scandir(root)
                       if entry.is_dir() and os.path.isfile(os.path.join(entry.path, DB_FILE)))
    except OSError:  # no such root (no server has kept anything here)
        found = []
    if len(found) == 1:
        return os.path.join(root, found[0])
    if not found:
        raise NanohubMCPError(f"no provenance records in any server's directory under {root}: {WHOSE}")
    named = ", ".join(found[:MAX_NAMED]) + (", ..." if len(found) > MAX_NAMED else "")
    raise NanohubMCPError(
        f"{len(found)} servers keep provenance records under {root} ({named}): give the server's name "
        "(--name NAME) or its state directory (--state-dir DIR)"
    )


def _hub_tools_hint(name: str) -> str:
    """What to add when the server ``name`` has no records but ``hub-tools`` keeps some, under one directory
    whatever tools it served (named after its one tool, so ``--name cooling`` is what a user tries): where they
    are, and whether the tool ``name`` is among them; else ``""`` (and for a name no tool's folder has: one
    :func:`.state_dir.safe_name` changes, such as a path)."""
    import sqlite3

    from ..server.provenance.record_db import DB_FILE, read_recent
    from ..server.wire.state_dir import default_root, safe_name
    from .serve import HUB_TOOLS_DIR

    hub = os.path.join(default_root(), HUB_TOOLS_DIR)
    if safe_name(name) != name or name == HUB_TOOLS_DIR or not os.path.isfile(os.path.join(hub, DB_FILE)):
        return ""  # (a name no tool's folder has, such as a path, says nothing of hub-tools)
    try:
        recorded = bool(read_recent(hub, 1, tool=name))
    except (OSError, sqlite3.Error):  # (read by the command itself next, which says what is wrong)
        recorded = False
    said = f"; hub-tools keeps its tools' records under --name {HUB_TOOLS_DIR} ({hub})"
    if recorded:
        return said + f", those of the tool {name} among them: provenance list --name {HUB_TOOLS_DIR} --tool {name}"
    return said + f": provenance list --name {HUB_TOOLS_DIR} shows them"


def _read_records(directory: str, limit: int, *, tool: str | None = None, caller: str | None = None,
                  record_id: str | None = None) -> list[dict[str, Any]]:
    """:func:`.record_db.read_recent` of ``directory``, its failures said in one line."""
    import sqlite3

    from ..server.provenance.record_db import DB_FILE, read_recent

    try:
        return read_recent(directory, limit, tool=tool, caller=caller, record_id=record_id)
    except FileNotFoundError:  # (gone since it was found)
        raise NanohubMCPError(f"no provenance records in {directory}: {WHOSE}") from None
    except sqlite3.Error as exc:
        path = os.path.join(directory, DB_FILE)
        raise NanohubMCPError(f"cannot read the provenance records in {path}: {exc}") from None


def list_provenance(args: argparse.Namespace) -> int:
    from ..server.provenance.listing import format_records

    directory = records_directory(args.state_dir, args.name)
    rows = _read_records(directory, args.limit, tool=args.tool, caller=args.caller)
    if not rows:
        of = f" of the tool {args.tool!r}" if args.tool is not None else ""
        of += f" of the caller {args.caller!r}" if args.caller is not None else ""
        print(f"No provenance records{of} in {directory} (none made, or all expired with the job store's TTL).")
        return 0
    print(format_records(rows, clock="utc", caller=True))  # (whoever reads the file may read every record)
    return 0


def _named_record(call_id: str) -> None:
    """Refuse a CALL_ID that names no record (empty, or spaces only), as ``--name ''`` is refused."""
    if not call_id.strip():
        raise NanohubMCPError(f"CALL_ID {call_id!r} names no record: give a record's id or URI "
                              "(nanohubmcp provenance list shows them)")


def show_provenance(args: argparse.Namespace) -> int:
    """``provenance show CALL_ID``: the record as indented JSON, with every field ``provenance list`` reads (the
    whole error, the arguments, the kept result, the code and where it ran), whoever made it (as ``list``)."""
    import json

    from ..server.provenance.records import no_record, record_id_of

    _named_record(args.call_id)
    directory = records_directory(args.state_dir, args.name)
    rows = _read_records(directory, 1, record_id=record_id_of(args.call_id) or args.call_id)
    if not rows:
        raise NanohubMCPError(no_record(args.call_id, f"in {directory}"))
    print(json.dumps(rows[0], indent=2, default=str))
    return 0


def export_provenance(args: argparse.Namespace) -> int:
    from ..server.provenance.crate import export
    from ..server.provenance.licenses import license_uri
    from ..server.provenance.records import ProvenanceStore, record_id_of

    if args.license is not None:  # a command-line value: checked before reading anything (exit 2)
        try:
            license_uri(args.license)
        except ConfigurationError:
            raise  # the library that checks it is missing: not the command line's fault
        except NanohubMCPError as exc:
            raise UsageError(str(exc)) from None
    _named_record(args.call_id)
    if args.output is not None and not args.output.strip():
        raise UsageError(f"-o {args.output!r} names no directory: give the crate's directory, or leave -o out for "
                         "./provenance-CALL_ID")
    directory = records_directory(args.state_dir, args.name)
    store = ProvenanceStore(0.0, lambda: directory)
    record_id = record_id_of(args.call_id) or args.call_id
    output = Path(args.output) if args.output is not None else Path(f"provenance-{record_id}")
    try:
        written = export(store, args.call_id, output, force=args.force, license=args.license,
                         where=f"in {directory}")
    finally:
        store.close()
    print(f"wrote the RO-Crate of {record_id} to {written}")
    return 0
