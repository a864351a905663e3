"""What a Sim2L notebook declares: its name, revision, description, inputs and outputs.

A Sim2L is a Jupyter notebook with

- a cell starting ``%%yaml INPUTS``: one entry per input, ``name: {type, description (or the
  older desc), units, min, max, options, property, value}``;
- a cell starting ``%%yaml OUTPUTS``: the outputs the notebook saves with ``DB(OUTPUTS).save``;
- a code cell tagged ``parameters``, where papermill injects the call's values after it;
- optionally a cell tagged ``DESCRIPTION`` (``DESCRIPTION = "..."``) and notebook metadata
  ``simTool_info`` (``name``, ``revision``), as published Sim2Ls carry.

The notebook is read with nbformat and the YAML with PyYAML (both runtime dependencies): reading
a Sim2L needs none of the optional ``sim2l`` libraries. Errors are ``RegistrationError`` naming
the notebook and what to fix.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import yaml

from ...errors import RegistrationError
from ...protocol import ast_guard
from ...schema.iri_grammar import deferred_iri_grammar

__all__ = ["TYPES", "Declaration", "Sim2LSpec", "read_sim2l"]

TYPES = ("Boolean", "Integer", "Number", "Text", "Tag", "Choice", "List", "Dict", "Array", "File", "Image", "Element")
"""The value types a Sim2L declares (simtool's ``Params.types``)."""

KEYS = ("type", "description", "desc", "units", "min", "max", "options", "property", "value")


@dataclass(frozen=True)
class Declaration:
    """One input or output of a Sim2L, as its YAML cell declares it.

    Attributes:
        name: the key in the YAML cell (the notebook's variable name for an input).
        type: one of :data:`TYPES`.
        description: ``description``, or the older ``desc``; "" when neither is given.
        units: pint units text (Number, Array), or None.
        minimum / maximum: limits in ``units`` (numbers, or text with units such as ``"10 nm"``).
        options: the values of a Choice.
        property: the Element property its value becomes (default ``symbol``).
        value: the default (None when not declared).
        extra: any other keys, kept as written (e.g. ``dim``, ``maxlen``).
    """

    name: str
    type: str
    description: str = ""
    units: str | None = None
    minimum: Any = None
    maximum: Any = None
    options: list[Any] | None = None
    property: str | None = None
    value: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def simtool_fields(self) -> dict[str, Any]:
        """The keyword arguments simtool's ``Params`` class of this type takes (``desc`` as ``description``)."""
        fields: dict[str, Any] = {"type": self.type}
        if self.description:
            fields["description"] = self.description
        for key, value in (
            ("units", self.units),
            ("min", self.minimum),
            ("max", self.maximum),
            ("options", self.options),
            ("property", self.property),
        ):
            if value is not None:
                fields[key] = value
        return fields


@dataclass(frozen=True)
class Sim2LSpec:
    """A Sim2L notebook, read.

    Attributes:
        path: absolute path of the notebook.
        name: ``simTool_info.name``, else the file name without ``.ipynb``.
        revision: ``r<N>`` from ``simTool_info.revision`` or the ``/apps/<name>/rNN/`` path; else
            ``"local"``.
        description: the ``DESCRIPTION`` cell's text, else the first markdown cell's first line.
        inputs / outputs: declarations in the order written.
        digest: SHA-256 of the notebook's code: its code cells' sources and tags, in order, and its
            kernel's name (part of every run's identity; outputs, execution counts and cell ids
            do not count, so saving the notebook after running it keeps its stored runs).
        code: the code cells as one Python text, each after a ``# %%`` line with its tags (the
            percent format), after a line naming the kernel: what provenance records as the tool's code.
        declared: SHA-256 of the ``%%yaml INPUTS`` and ``OUTPUTS`` declarations as read (YAML values,
            not their spelling): a call compares it with the notebook's now and refuses an edited one.
    """

    path: str
    name: str
    revision: str
    description: str
    inputs: dict[str, Declaration]
    outputs: dict[str, Declaration]
    digest: str
    code: str = ""
    declared: str = ""


def _yaml_cell(cells: list[Any], tag: str, path: str) -> dict[str, Any] | None:
    marker = f"%%yaml {tag}"
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        lines = str(cell.get("source", "")).split("\n")
        for number, line in enumerate(lines):
            stripped = line.strip()
            if stripped.startswith(marker) and stripped[len(marker) : len(marker) + 1] in ("", " ", "\t"):
                text = "\n".join(lines[number + 1 :])
                try:
                    loaded = yaml.safe_load(text)
                except yaml.YAMLError as exc:
                    raise RegistrationError(
                        f"{path}: the %%yaml {tag} cell (cell {index + 1}) is not YAML: {' '.join(str(exc).split())}"
                    ) from None
                if loaded is None:
                    return {}
                if not isinstance(loaded, dict):
                    raise RegistrationError(f"{path}: the %%yaml {tag} cell must map names to declarations")
                return loaded
    return None


def _declaration(name: Any, body: Any, kind: str, path: str) -> Declaration:
    where = f"{path}: {kind} {name!r}"
    if not isinstance(name, str) or not name.isidentifier():
        raise RegistrationError(f"{where}: a name must be a Python identifier (it becomes a notebook variable)")
    if not isinstance(body, dict):
        raise RegistrationError(f"{where}: the declaration must be a mapping with at least 'type'")
    kind_name = body.get("type")
    if kind_name not in TYPES:
        raise RegistrationError(f"{where}: type {kind_name!r} is not a Sim2L type (one of {', '.join(TYPES)})")
    options = body.get("options")
    if kind_name == "Choice" and (not isinstance(options, list) or not options):
        raise RegistrationError(f"{where}: a Choice needs 'options', a list of its values")
    if kind_name == "Choice" and kind == "input" and isinstance(options, list):
        _check_choice_options(options, where)
        _check_choice_default(body, options, where)
    if kind_name in ("Number", "Integer") and kind == "input":
        _check_number_default(body, where)
    description = body.get("description", body.get("desc", ""))
    return Declaration(
        name=name,
        type=kind_name,
        description=str(description or "").strip(),
        units=str(body["units"]) if body.get("units") not in (None, "") else None,
        minimum=body.get("min"),
        maximum=body.get("max"),
        options=list(options) if isinstance(options, list) else None,
        property=str(body["property"]) if body.get("property") else None,
        value=body.get("value"),
        extra={k: v for k, v in body.items() if k not in KEYS},
    )


def _check_choice_options(options: list[Any], where: str) -> None:
    """Refuse a Choice option that is not a string (YAML reads ``yes``/``no``/``on``/``off``/``true``/``false``
    as booleans, ``1`` as a number): simtool's ``Choice`` takes only a string among its options, so such an
    option could never be chosen (a call sending ``"yes"`` is refused: ``yes is not a valid option``)."""
    others = [option for option in options if not isinstance(option, str)]
    if not others:
        return
    listed = ", ".join(repr(option) for option in others)
    one = len(others) == 1
    raise RegistrationError(
        f"{where}: {'its option' if one else 'its options'} {listed} {'is not a string' if one else 'are not strings'}"
        " (YAML reads yes, no, on, off, true and false unquoted as booleans, and 1 as a number); simtool's Choice "
        f"takes only a string that is one of its options, so a call could never choose {'it' if one else 'them'}: "
        "quote each option (options: ['yes', 'no'], not [yes, no])"
    )


def _check_choice_default(body: dict[str, Any], options: list[Any], where: str) -> None:
    """Refuse a Choice's declared default that simtool's ``Choice`` refuses: ``value: null`` written out (or
    ``value:`` with nothing after it), one that is not a string, or not one of ``options`` (simtool's parse of
    the INPUTS raises, so nanoHUB cannot run the notebook). No ``value`` at all is no default: accepted."""
    if "value" not in body:
        return
    value = body["value"]
    listed = ", ".join(repr(option) for option in options)
    if value is None:
        raise RegistrationError(
            f"{where}: its default (value) is null (written 'value: null', or 'value:' with nothing after it); "
            f"its options are {listed}. simtool's Choice refuses it ('None is not a string'; nanoHUB cannot run "
            "the notebook): make the default one of the options, or leave 'value' out"
        )
    if isinstance(value, str) and value in options:
        return
    why = "is not one of its options" if isinstance(value, str) else "is not a string (a Choice's value is text)"
    raise RegistrationError(
        f"{where}: its default (value) {value!r} {why}; its options are {listed}. simtool's Choice refuses it "
        "(nanoHUB cannot run the notebook, and a call leaving the input out would be refused): make the default "
        "one of the options"
    )


def _check_number_default(body: dict[str, Any], where: str) -> None:
    """Refuse a Number's or Integer's declared default outside its own ``min``/``max``: simtool's ``Number`` and
    ``Integer`` refuse it (``Maximum value is 1000``) when the notebook's INPUTS are read, so nanoHUB cannot run
    the notebook, and a call leaving the input out would run it with a value no client may send."""
    value, low, high = body.get("value"), body.get("min"), body.get("max")
    if not _plain_number(value):
        return
    if _plain_number(low) and value < low:
        word, bound = "minimum", low
    elif _plain_number(high) and value > high:
        word, bound = "maximum", high
    else:
        return
    raise RegistrationError(
        f"{where}: its default (value) {value!r} is {'below' if word == 'minimum' else 'above'} its {word} "
        f"{bound!r}; simtool refuses it ('{word.capitalize()} value is {bound}'; nanoHUB cannot run the "
        "notebook): make the default a value within min and max"
    )


def _plain_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _declarations(raw: dict[str, Any] | None, kind: str, path: str) -> dict[str, Declaration]:
    return {name: _declaration(name, body, kind, path) for name, body in (raw or {}).items()}


def _tagged(cells: list[Any], tag: str) -> Any:
    for cell in cells:
        if tag in (cell.get("metadata", {}).get("tags") or ()):
            return cell
    return None


def _described(cells: list[Any]) -> str:
    cell = _tagged(cells, "DESCRIPTION")
    if cell is not None:
        source = str(cell.get("source", ""))
        _, _, value = source.partition("=")
        try:
            text = ast_guard.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            text = value.strip().strip("'\"")
        if isinstance(text, str) and text.strip():
            return text.strip()
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            for line in str(cell.get("source", "")).splitlines():
                if line.strip():
                    return line.strip().lstrip("#").strip()
    return ""


def _revision(info: dict[str, Any], path: str) -> str:
    revision = info.get("revision")
    if isinstance(revision, int) and not isinstance(revision, bool):
        return f"r{revision}"
    if isinstance(revision, str) and revision:
        return revision if revision.startswith("r") else f"r{revision}"
    # A published Sim2L: /apps/<name>/<rNN>/simtool/<name>.ipynb
    parts = os.path.normpath(path).split(os.sep)
    if len(parts) >= 3 and parts[-2] == "simtool" and parts[-3].startswith("r") and parts[-3][1:].isdigit():
        return parts[-3]
    return "local"


def _code_text(notebook: Any) -> str:
    kernel = (notebook.metadata.get("kernelspec") or {}).get("name")
    parts = [f"# The code cells of a Sim2L notebook (kernel: {kernel or 'the default'})\n"]
    for cell in notebook.cells:
        if cell.get("cell_type") == "code":
            tags = sorted(cell.get("metadata", {}).get("tags") or ())
            marker = "# %%" + (f" tags={json.dumps(tags)}" if tags else "")
            parts.append(f"{marker}\n{str(cell.get('source', '')).rstrip()}\n")
    return "\n".join(parts)


def notebook_in(path: str | os.PathLike[str]) -> str:
    """The absolute path of the Sim2L notebook ``path`` names: ``path`` itself, or for a directory the one
    ``.ipynb`` it holds, else the one in its ``simtool/`` (as rappture takes a directory holding tool.xml).

    Raises:
        RegistrationError: a directory holding no notebook there, or several (they are named).
    """
    where = os.path.abspath(os.fspath(path))
    if not os.path.isdir(where):
        return where
    for folder in (where, os.path.join(where, "simtool")):
        try:
            found = sorted(n for n in os.listdir(folder) if n.endswith(".ipynb") and not n.startswith("."))
        except OSError:  # no simtool/ (or unreadable)
            continue
        if len(found) == 1:
            return os.path.join(folder, found[0])
        if found:
            raise RegistrationError(f"{folder} holds {len(found)} notebooks ({', '.join(found)}): give the Sim2L's")
    rappture = [os.path.join(where, n) for n in ("tool.xml", os.path.join("rappture", "tool.xml"))]
    hint = next((f"; it holds a Rappture tool, {found}: serve that with add_rappture_tool (nanohubmcp rappture "
                 f"{found})" for found in rappture if os.path.isfile(found)), "")
    raise RegistrationError(f"{where} is a directory without a notebook (in it or in its simtool/): give the "
                            f"Sim2L's .ipynb (or a directory holding it){hint}")


def _code_digest(notebook: Any) -> str:
    code = [
        [str(cell.get("source", "")), sorted(cell.get("metadata", {}).get("tags") or ())]
        for cell in notebook.cells
        if cell.get("cell_type") == "code"
    ]
    kernel = (notebook.metadata.get("kernelspec") or {}).get("name")
    text = json.dumps({"kernel": kernel, "code": code}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def read_sim2l(path: str | os.PathLike[str]) -> Sim2LSpec:
    """Read a Sim2L notebook's declarations (see the module docstring). ``path`` is the notebook, or a
    directory holding one (directly, or in ``simtool/`` as a hub installs it).

    Raises:
        RegistrationError: no such file, not a notebook, no ``%%yaml INPUTS``/``OUTPUTS`` cell,
            no cell tagged ``parameters``, or a declaration of an unknown type; a Choice input simtool's
            ``Choice`` refuses (options not all strings, a default that is null or none of them); a
            directory holding no notebook or several; the message names the notebook (or the directory).
    """
    with deferred_iri_grammar():  # nbformat imports jsonschema: its RFC 3987 grammar waits for an iri check
        import nbformat

    where = notebook_in(path)
    try:
        with open(where, "rb") as stream:
            raw = stream.read()
    except OSError as exc:
        raise RegistrationError(f"{where}: cannot read the Sim2L notebook ({exc.strerror or exc})") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat's notes on old files do not matter here
            notebook = nbformat.reads(raw.decode("utf-8"), as_version=4)
    except Exception as exc:
        if raw.lstrip()[:5] == b"<?xml" and b"<run" in raw[:4096]:  # the other format: say which command takes it
            raise RegistrationError(f"{where}: a Rappture tool.xml, not a Jupyter notebook: serve it with "
                                    f"add_rappture_tool (nanohubmcp rappture {where})") from None
        reason = " ".join(str(exc).split())[:200]
        raise RegistrationError(f"{where}: not a Jupyter notebook ({reason})") from None
    cells = list(notebook.cells)
    inputs, outputs = _yaml_cell(cells, "INPUTS", where), _yaml_cell(cells, "OUTPUTS", where)
    if inputs is None or outputs is None:
        missing = " and ".join(t for t, c in (("%%yaml INPUTS", inputs), ("%%yaml OUTPUTS", outputs)) if c is None)
        raise RegistrationError(f"{where}: not a Sim2L: it has no {missing} cell")
    if _tagged(cells, "parameters") is None:
        raise RegistrationError(
            f"{where}: not a Sim2L: no cell is tagged 'parameters' (papermill injects the inputs after it)"
        )
    info = notebook.metadata.get("simTool_info") or {}
    base = os.path.basename(where)
    name = str(info.get("name") or (base[: -len(".ipynb")] if base.endswith(".ipynb") else base))
    return Sim2LSpec(
        path=where,
        name=name,
        revision=_revision(info, where),
        description=_described(cells),
        inputs=_declarations(inputs, "input", where),
        outputs=_declarations(outputs, "output", where),
        digest=_code_digest(notebook),
        code=_code_text(notebook),
        declared=_declared_digest(inputs, outputs),
    )


def _declared_digest(inputs: dict[str, Any], outputs: dict[str, Any]) -> str:
    """SHA-256 of the INPUTS and OUTPUTS cells' YAML values (dates and other non-JSON values by their text)."""
    try:
        text = json.dumps({"inputs": inputs, "outputs": outputs}, sort_keys=True, ensure_ascii=True, default=repr)
    except TypeError:  # keys of several types (YAML's 1: and a: in one mapping) do not sort
        text = repr((inputs, outputs))
    return hashlib.sha256(text.encode("ascii")).hexdigest()
