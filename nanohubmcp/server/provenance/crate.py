"""A provenance record as an RO-Crate following the Process Run Crate profile (Workflow Run
RO-Crate profiles, version 0.5), written with the ``rocrate`` library (the ``provenance`` extra).

The crate holds:

- ``code/<tool>.py``: the tool's code (its function's source, or a notebook tool's defining
  cell) — a ``File`` and ``SoftwareSourceCode``, the action's ``instrument``, with its version (if any),
  the file's own SHA-256 (``identifier``), the record's code hash (``additionalProperty``, a
  ``PropertyValue`` saying what it covers) and the Python and package versions it ran with
  (``softwareRequirements``; its ``description`` says when the record's package list is incomplete);
  for a Rappture tool ``code/tool.xml`` (the instrument) and the programs its ``<command>`` runs
  (``code/fermi.py``: its parts), for a Sim2L ``code/<notebook>.py``, its code cells
  (:mod:`.crate_code`);
- ``inputs.json`` and one ``PropertyValue`` per argument: the action's ``object`` (a secret
  argument is named, never valued, as in the record); its ``value`` is a string, number or
  boolean argument itself, an object, array or null argument's JSON text;
- ``result.json``: the tool's result (when its record kept it), byte for byte the text its
  ``result_digest`` hashed (so ``sha256`` of the file is the digest, given as its ``identifier``)
  — the action's ``result``, with the result's resource links as further results;
- ``provenance.json``: the record itself;
- a ``CreateAction`` with ``instrument``, ``object``, ``result``, ``agent`` (the principal, when
  the caller was authenticated; a session alone is no agent), ``startTime``/``endTime``,
  ``actionStatus`` and where it ran, mentioned by the root dataset, which ``conformsTo`` the profile;
- for a call the result cache answered (``cache: "hit"``), the record of the run that produced
  the result (``cached_from``) as a ``CreativeWork`` the result ``isBasedOn``: the hit's own
  action is the lookup (its executor, host and times are the lookup's).

Source: RO-Crate 1.1; Workflow Run RO-Crate, Process Run Crate profile 0.5
(https://w3id.org/ro/wfrun/process/0.5).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ...errors import ConfigurationError, NanohubMCPError
from . import crate_dir
from .crate_code import add_code
from .crate_code import given as _given
from .crate_code import safe_name as _safe
from .licenses import SPDX_PAGE, license_uri
from .records import ProvenanceStore, no_record, record_id_of

PROFILE = "https://w3id.org/ro/wfrun/process/0.5"
PROFILE_NAME = "Process Run Crate"
PROFILE_VERSION = "0.5"
STATUS = {
    "completed": "http://schema.org/CompletedActionStatus",
    "failed": "http://schema.org/FailedActionStatus",
    "cancelled": "http://schema.org/FailedActionStatus",
    "working": "http://schema.org/ActiveActionStatus",
}


def export(
    store: ProvenanceStore,
    call_id: str,
    directory: str | os.PathLike[str],
    *,
    force: bool = False,
    license: str | None = None,
    where: str = "here",
) -> Path:
    """Write the RO-Crate of the record ``call_id`` (its id or its ``nanohubmcp://provenance/…``
    URI) of ``store`` into ``directory``; returns the directory. ``where`` says in the not-found error
    where the record was looked for (``"in /path/to/state"``; default ``"here"``, this server).

    Raises:
        NanohubMCPError: a malformed ``license`` (checked first, :func:`license_uri`); no such record
            (unknown, or expired with the job store's TTL), or ``directory`` holds other files or cannot
            be written (see :func:`write_crate`).
        ConfigurationError: the ``rocrate`` library is not installed.
    """
    if license is not None:
        license_uri(license)  # a malformed license is refused before the record is looked up
    record_id = record_id_of(call_id) or call_id
    record = store.find(record_id)
    if record is None:
        raise NanohubMCPError(no_record(call_id, where))
    code = record.get("code") or {}
    return write_crate(record, store.source(str(code.get("hash"))), directory, force=force, license=license)


def write_crate(
    record: dict[str, Any],
    source: str | None,
    directory: str | os.PathLike[str],
    *,
    force: bool = False,
    license: str | None = None,
) -> Path:
    """Write the RO-Crate of ``record`` (a provenance record) into ``directory``; returns it.

    Args:
        record: the record (``ProvenanceStore.find``).
        source: the tool's code as text (``ProvenanceStore.source``), or None when not kept.
        directory: where the crate's files and ``ro-crate-metadata.json`` go (made if missing). It
            must be new, empty or an earlier crate of this exporter, whose listed files are removed
            first (:mod:`.crate_dir`), unless ``force``: the crate's files would replace files of the
            same names, and other files would sit in the crate unlisted.
        force: write into a directory that holds other files anyway (they stay, unlisted).
        license: the crate's ``license`` (an SPDX identifier or a URI, :func:`license_uri`); none
            is stated unless given — licensing the data is its owner's decision.

    Raises:
        NanohubMCPError: ``directory`` holds files no earlier crate there lists (and not ``force``), or it
            cannot be made or written (a file, a path under a file, no permission); a malformed
            ``license``.
        ConfigurationError: the ``rocrate`` library is not installed.
    """
    stated = None if license is None else license_uri(license)
    out = Path(directory)
    earlier = crate_dir.earlier_files(out, PROFILE, force=force)  # refuses a directory of other files
    try:
        from rocrate.model.contextentity import ContextEntity
        from rocrate.rocrate import ROCrate
    except ImportError:
        raise ConfigurationError(
            "exporting provenance as an RO-Crate needs the rocrate library: pip install 'nanohub-mcp[provenance]'"
        ) from None
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file there or above it, or a place that cannot hold a directory
        raise NanohubMCPError(f"cannot write the crate to {out}: {exc.strerror or exc}") from None
    crate = ROCrate()
    tool = str(record["tool"])
    crate.name = f"Provenance of a call of the MCP tool {tool}"
    crate.description = f"The call {record['id']} of the tool {tool}: its code, inputs, outputs and where it ran."
    crate.datePublished = _iso(record.get("ended") or record["started"])
    if stated is not None:  # a contextual entity, as RO-Crate 1.1 § Root Data Entity recommends
        name = stated.removeprefix(SPDX_PAGE)  # the SPDX identifier, else the URI
        crate.root_dataset["license"] = crate.add(
            ContextEntity(crate, stated, properties={"@type": "CreativeWork", "name": name})
        )
    profile = crate.add(
        ContextEntity(
            crate, PROFILE, properties={"@type": "CreativeWork", "name": PROFILE_NAME, "version": PROFILE_VERSION}
        )
    )
    crate.root_dataset["conformsTo"] = profile

    with tempfile.TemporaryDirectory() as scratch:
        staged = Path(scratch)
        code = record.get("code") or {}
        requirements = [
            crate.add(
                ContextEntity(
                    crate,
                    f"#package-{name}",
                    properties=_given({"@type": "SoftwareApplication", "name": name, "softwareVersion": version}),
                )
            )
            for name, version in sorted((record.get("packages") or {}).items())
        ]
        python = record.get("python") or {}
        requirements.append(
            crate.add(
                ContextEntity(
                    crate,
                    "#python",
                    properties=_given({
                        "@type": "SoftwareApplication",
                        "name": python.get("implementation") or "Python",
                        "softwareVersion": python.get("version"),
                    }),
                )
            )
        )
        described = f"{code.get('module')}.{code.get('qualname')}"
        if record.get("made_from_job"):  # the call's own record was lost: its code is not known
            described = ("not known: the call's own record was missing when its job ended (its server was killed "
                         "before writing it, or it expired while the job ran); this one was made from the job's")
        if record.get("packages_complete") is False:  # looked up without the distributions table: say so
            described += (
                "; its softwareRequirements may miss packages (the installed distributions were not read when "
                "the record was made, in time or before the server stopped: packages were looked up by import name)"
            )
        properties: dict[str, Any] = _given({
            "@type": ["File", "SoftwareSourceCode"],
            "name": tool,
            "programmingLanguage": {"@id": "#python"},
            "encodingFormat": "text/x-python",
            "version": code.get("version"),
            "description": described,
            "softwareRequirements": requirements,
        })
        instrument = add_code(crate, staged, tool, source, code, properties)

        arguments = record.get("arguments") or {}
        inputs_file = staged / "inputs.json"
        inputs_file.write_text(json.dumps(arguments, indent=1, sort_keys=True, default=str))
        objects: list[Any] = [
            crate.add_file(
                inputs_file,
                dest_path="inputs.json",
                properties={"name": "the call's arguments", "encodingFormat": "application/json"},
            )
        ]
        for name, value in sorted(arguments.items()):
            objects.append(
                crate.add(
                    ContextEntity(
                        crate,
                        f"#input-{_safe(name)}",
                        properties={"@type": "PropertyValue", "name": name, "value": _input_value(value)},
                    )
                )
            )

        results: list[Any] = []
        if record.get("result") is not None:
            result_file = staged / "result.json"
            data = _result_bytes(record)
            result_file.write_bytes(data)
            properties = {"name": "the tool's result (a CallToolResult)", "encodingFormat": "application/json"}
            digest = record.get("result_digest")
            if digest == "sha256:" + hashlib.sha256(data).hexdigest():
                properties["identifier"] = digest  # only when the file's bytes are what the digest hashed
            produced = record.get("cached_from")
            if produced:  # a cache hit: the result is the one another call's run produced
                properties["isBasedOn"] = crate.add(
                    ContextEntity(
                        crate,
                        "#produced-by",
                        properties={
                            "@type": "CreativeWork",
                            "name": "the provenance record of the call whose run produced this result",
                            "identifier": record_id_of(str(produced)) or str(produced),
                            "url": str(produced),
                        },
                    )
                )
            results.append(crate.add_file(result_file, dest_path="result.json", properties=properties))
        for index, uri in enumerate(record.get("resource_links") or ()):
            results.append(
                crate.add(
                    ContextEntity(
                        crate,
                        f"#link-{index}",
                        properties={"@type": "CreativeWork", "name": "a resource the result links", "url": uri},
                    )
                )
            )
        if not results and record.get("result_digest"):
            results.append(
                crate.add(
                    ContextEntity(
                        crate,
                        "#result",
                        properties={
                            "@type": "PropertyValue",
                            "name": "result digest",
                            "value": record["result_digest"],
                        },
                    )
                )
            )

        record_file = staged / "provenance.json"
        record_file.write_text(json.dumps(record, indent=1, default=str))  # the kept result in its own key order
        crate.add_file(
            record_file,
            dest_path="provenance.json",
            properties={
                "name": "the provenance record",
                "encodingFormat": "application/json",
                "about": {"@id": "#action"},
            },
        )

        action: dict[str, Any] = {
            "@type": "CreateAction",
            "name": f"Call of {tool}",
            "startTime": _iso(record["started"]),
            "actionStatus": {"@id": STATUS.get(str(record.get("status")), STATUS["working"])},
            "identifier": record["id"],
        }
        if record.get("ended") is not None:
            action["endTime"] = _iso(record["ended"])
        if record.get("error"):
            action["error"] = str(record["error"])
        where = record.get("where") or {}
        ran = f"on executor {record.get('executor')} at " + ", ".join(
            f"{key} {value}" for key, value in sorted(where.items()) if value is not None
        )
        action["description"] = f"Ran {ran}"
        if record.get("cache") == "hit":
            produced = record.get("cached_from") or "not recorded"
            action["description"] = (
                f"Answered from the result cache (the run that produced the result: {produced}); the lookup ran {ran}"
            )
        principal = record.get("principal")
        if principal:
            action["agent"] = crate.add(
                ContextEntity(crate, "#agent", properties={"@type": "Person", "name": str(principal)})
            )
        created = crate.add_action(instrument, identifier="#action", object=objects, result=results, properties=action)
        crate.root_dataset["mentions"] = [created]
        try:
            crate_dir.clear_earlier(out, earlier)
            crate.write(out)
        except OSError as exc:
            raise NanohubMCPError(f"cannot write the crate to {out}: {exc.strerror or exc}") from None
    return out


def _result_bytes(record: dict[str, Any]) -> bytes:
    """The kept result's file: the exact text its digest hashed (``result_text``, UTF-8); a record
    made before that text was kept (no ``result_text``) as the compact JSON with sorted keys and
    ASCII escapes its digest was then made of."""
    text = record.get("result_text")
    if isinstance(text, str):
        return text.encode()
    return json.dumps(record["result"], sort_keys=True, separators=(",", ":"), default=str).encode()


def _input_value(value: Any) -> Any:
    """An argument as its ``PropertyValue``'s ``value``: a string, a finite number or a boolean as
    itself (as Workflow Run Crate's parameter mappings write them); anything else — an object, an
    array, null — as its JSON text (``inputs.json`` holds every argument as JSON)."""
    if isinstance(value, (str, bool, int)) or (isinstance(value, float) and math.isfinite(value)):
        return value
    return json.dumps(value, default=str, sort_keys=True)


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds")
