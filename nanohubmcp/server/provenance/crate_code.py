"""The code entities of a provenance RO-Crate (:mod:`.crate`): the tool's code under ``code/``.

- a Python tool: ``code/<tool>.py``, its function's source (or a notebook tool's defining cell);
- a Rappture tool: ``code/tool.xml`` with the programs its ``<command>`` names as its parts
  (``code/fermi.py``; a file kept by its digest alone, binary or too large, is named, not copied);
- a Sim2L: ``code/<notebook>.py``, its code cells.

Every ``File`` here carries as ``identifier`` the SHA-256 of its own bytes in the crate (``sha256sum``
of it), nothing else. The record's code hash — for a Python tool the SHA-256 of its source, for a
Rappture tool or a Sim2L the SHA-256 of the bundle of its files (:func:`.code_files.bundle`: their
names, digests, sizes and texts as one JSON text), so no one file's digest — is the ``#code-hash``
``PropertyValue``, the instrument's ``additionalProperty``, whose ``description`` says what it covers.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from . import code_files

__all__ = ["add_code", "given", "safe_name"]

KINDS = {"rappture": "Rappture", "sim2l": "Sim2L"}
FORMATS = {".xml": "application/xml", ".py": "text/x-python", ".tcl": "text/x-tcl", ".m": "text/x-matlab",
           ".sh": "text/x-shellscript", ".c": "text/x-c", ".f90": "text/x-fortran", ".jl": "text/x-julia"}


def add_code(crate: Any, staged: Path, tool: str, source: str | None, code: dict[str, Any],
             properties: dict[str, Any]) -> Any:
    """Add ``tool``'s code to ``crate`` (files written under ``staged`` first); returns the instrument.

    ``source``: the code text the record's hash names (``ProvenanceStore.source``; None: not kept, a
    placeholder file says so); ``code``: the record's ``code`` (``hash``, ``module``); ``properties``:
    the instrument's other properties (type, name, version, requirements)."""
    from rocrate.model.contextentity import ContextEntity

    parts = code_files.files_of(source)
    if code.get("hash"):
        properties = {**properties, "additionalProperty": crate.add(ContextEntity(crate, "#code-hash", properties={
            "@type": "PropertyValue",
            "name": "code hash",
            "value": code["hash"],
            "description": _covers(parts, source),
        }))}
    if parts is not None:  # a Rappture tool's tool.xml and programs, a Sim2L's code cells: a file each
        return _add_parts(crate, staged, parts, properties, tool, str(code.get("module")))
    data = (source if source is not None else f"# the source of {tool} was not kept\n").encode()
    code_file = staged / f"{safe_name(tool)}.py"
    code_file.write_bytes(data)
    return crate.add_file(code_file, dest_path=f"code/{code_file.name}",
                          properties={**properties, "identifier": _sha256(data)})


def _covers(parts: dict[str, Any] | None, source: str | None) -> str:
    """What the record's code hash is the SHA-256 of, for a reader of the crate."""
    if parts is None:
        kept = "" if source is not None else " (not kept: the code file here is a placeholder)"
        return ("SHA-256 of the tool's source as UTF-8: its function's source, or a notebook tool's defining "
                f"cell — the bytes of the code file{kept}")
    names = ", ".join(str(part.get("name")) for part in parts["files"]) or "none"
    return (f"SHA-256 of the {KINDS.get(str(parts.get('kind')), 'tool')} code bundle: one JSON text (sorted keys, "
            f"compact) of each file's name, SHA-256, size and UTF-8 text, for the files {names} — not the digest "
            "of any one file; it changes when any of them does")


def _add_parts(crate: Any, staged: Path, parts: dict[str, Any], properties: dict[str, Any], tool: str,
               path: str) -> Any:
    """Add the files of a tool's code bundle under ``code/``; returns the first (tool.xml, the
    notebook's code), the instrument, which has the others as parts. A file kept by its digest
    alone (binary, or too large) is named with its digest, not copied."""
    from rocrate.model.contextentity import ContextEntity

    entities: list[Any] = []
    for index, part in enumerate(parts["files"]):
        name = str(part.get("name") or f"file{index}")
        safe = "/".join(safe_name(piece) for piece in name.split("/") if piece not in ("", ".", "..")) or f"file{index}"
        described: dict[str, Any] = given({
            "name": name,
            "encodingFormat": FORMATS.get(os.path.splitext(name)[1].lower(), "text/plain"),
            "identifier": f"sha256:{part['sha256']}" if part.get("sha256") else None,
            "contentSize": str(part["size"]) if part.get("size") is not None else None,
        })
        if index == 0:
            described = {**properties, **described,
                         "description": f"The {KINDS.get(str(parts.get('kind')), 'other')} tool {tool} ({path})"}
        if described["encodingFormat"] != "text/x-python":
            described.pop("programmingLanguage", None)
        elif index:
            described["programmingLanguage"] = {"@id": "#python"}
        text = part.get("text")
        if isinstance(text, str):
            data = text.encode()
            staged_file = staged / "code" / safe
            staged_file.parent.mkdir(parents=True, exist_ok=True)
            staged_file.write_bytes(data)
            described["identifier"] = _sha256(data)  # of the bytes written: what a reader can check
            entities.append(crate.add_file(staged_file, dest_path=f"code/{safe}", properties=described))
        else:
            described["@type"] = described.get("@type", "SoftwareSourceCode")
            described["encodingFormat"] = "application/octet-stream"
            described["description"] = f"{name}: not text (or too large) to copy; named by its SHA-256"
            entities.append(crate.add(ContextEntity(crate, f"#code-{index}", properties=described)))
    if len(entities) > 1:
        entities[0]["hasPart"] = entities[1:]
    return entities[0]


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def given(properties: dict[str, Any]) -> dict[str, Any]:
    """``properties`` without those that are None: JSON-LD has no use for a null property."""
    return {key: value for key, value in properties.items() if value is not None}


def safe_name(name: str) -> str:
    """``name`` as a file name: characters other than letters, digits, ``-_.`` as ``_``."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "tool"
