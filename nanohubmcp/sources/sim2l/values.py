"""A call's arguments as the values papermill injects, checked by simtool's own parameter types.

Each argument (or, when left out, the declared ``value``) is set on the ``simtool.params`` object of
its type, which is what a Sim2L's own ``DB`` and nanoHUB's runs use: numbers with units are
converted by pint to the declared units (``"25 degC"`` for a ``K`` input) and checked against the
limits after conversion, a Choice must be one of its options, an Element becomes the declared
property of the element (mendeleev). The value injected is the object's ``serialValue``. File and
Image arguments become files of the run, passed as ``file://.notebookInputFiles/<name>`` as
simtool passes them.

A number with units (a Number's string, an Array's strings) is first held to the one shape
:mod:`nanohubmcp.sources.units_text` accepts (a finite number, then unit names, ``*``, ``/``,
parentheses and single-digit powers), so pint never evaluates arithmetic a client wrote (``9**9**9 K``
held the GIL for hours).

A value simtool refuses is an :class:`~nanohubmcp.errors.InvalidArguments` naming the input and
saying what fits (JSON-RPC -32602 where the protocol version reports argument errors so).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import InvalidArguments
from ...protocol.message_values import one_line
from ..units_text import ACCEPTED, UnitTextError, check_quantity, code_points, shown
from . import arrays
from .notebook import Declaration, Sim2LSpec

__all__ = ["INPUT_FILES_DIR", "Prepared", "prepare"]

INPUT_FILES_DIR = ".notebookInputFiles"
"""Where a run's File and Image inputs are written, relative to the run directory (simtool's name)."""


@dataclass
class Prepared:
    """A call's inputs, ready to run.

    Attributes:
        parameters: the values papermill injects (JSON-ready), by input name.
        files: file name -> bytes, written under :data:`INPUT_FILES_DIR` before the run.
        identity: what identifies the run (the values, with files as their SHA-256 digests).
    """

    parameters: dict[str, Any] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    identity: dict[str, Any] = field(default_factory=dict)


_LIMIT = re.compile(r"(Maximum|Minimum) value is ")
_SHOWN = 80
"""Characters of a refused value (as JSON) quoted in its message."""


def _refuse(name: str, message: str) -> InvalidArguments:
    return InvalidArguments(f"input '{name}': {message}", [f"{name}: {message}"])


def _file_bytes(item: Declaration, value: Any) -> tuple[str, bytes]:
    if isinstance(value, str) and item.type == "File":
        return f"{item.name}.txt", value.encode("utf-8")
    if not isinstance(value, dict) or not isinstance(value.get("base64"), str):
        wanted = "the file's text, or " if item.type == "File" else ""
        raise _refuse(item.name, f'give {wanted}an object {{"name": ..., "base64": ...}}')
    try:
        data = base64.b64decode(value["base64"], validate=True)
    except (binascii.Error, ValueError):
        raise _refuse(item.name, "'base64' is not base64 text") from None
    name = os.path.basename(str(value.get("name") or item.name))
    if name in ("", ".", ".."):
        name = item.name
    return name, data


_NAME_BYTES = 255
"""The longest file name (in bytes) the common file systems store (ext4, XFS, APFS; NTFS: 255 UTF-16 units)."""


def _check_file_name(input_name: str, file_name: str) -> None:
    """Refuse a file name no file can have (a NUL, a lone surrogate, longer than 255 bytes): the run
    writes the file under that name, and the operating system would refuse it there."""
    surrogate = any("\ud800" <= char <= "\udfff" for char in file_name)
    quoted = json.dumps(file_name[:40], ensure_ascii=surrogate) + ("…" if len(file_name) > 40 else "")
    if "\x00" in file_name:
        raise _refuse(input_name, f"the file name {quoted} holds U+0000 (NUL), which no file name may hold: "
                                  "give a \"name\" without it")
    if surrogate:  # (quoted in ASCII: the message must be UTF-8)
        raise _refuse(input_name, f"the file name {quoted} holds a lone UTF-16 surrogate (U+D800 to U+DFFF), "
                                  "which is no character a file name may hold: give a \"name\" in valid Unicode")
    size = len(file_name.encode("utf-8"))
    if size > _NAME_BYTES:
        raise _refuse(input_name, f"the file name {quoted} is {size} bytes long (UTF-8); a file name may have at "
                                  f"most {_NAME_BYTES}: give a shorter \"name\"")


def _check_image(item: Declaration, data: bytes) -> None:
    import PIL.Image

    try:
        with PIL.Image.open(io.BytesIO(data)) as picture:
            picture.verify()
    except Exception:
        raise _refuse(item.name, "the bytes are not an image PIL can read (PNG, JPEG, GIF...)") from None


def _checked(item: Declaration, value: Any) -> Any:
    """``value`` through simtool's parameter object of the declared type: its ``serialValue``."""
    from simtool.params import Params

    try:
        holder = Params.types[item.type](**item.simtool_fields())
    except Exception as exc:  # a declaration simtool cannot hold (e.g. unknown units)
        raise _refuse(item.name, f"the Sim2L declares it in a way simtool refuses: {exc}") from None
    if item.type == "Number" and isinstance(value, str) and not item.units:
        raise _refuse(item.name, "give a number (this input declares no units)")
    if item.type == "Integer" and isinstance(value, float) and value.is_integer():
        value = int(value)  # (2.0, 1e1: integers by JSON Schema; simtool would hand the notebook the float)
    if item.type == "Array" and not isinstance(value, list):
        raise _refuse(item.name, "give an array (a JSON list of numbers)")
    if item.type == "Array":
        value = _array(item, holder, value)
    elif item.type == "Number" and item.units:
        _check_texts(item, value, item.name)
    try:
        holder.value = value
    except Exception as exc:  # ValueError, pint's DimensionalityError / UndefinedUnitError, mendeleev's lookups
        if item.type == "Array":
            _refuse_element(item, holder, value, item.name)
        raise _refuse(item.name, _reason(item, exc, value)) from None
    serial = holder.serialValue
    if item.type == "Number" and isinstance(serial, float) and not math.isfinite(serial):
        raise _refuse(item.name, f"{_json_shown(value)} is not a finite number")
    return serial


def _check_texts(item: Declaration, value: Any, where: str) -> None:
    """Hold a Number's string with units to the accepted shape before pint reads it."""
    if isinstance(value, str):
        try:
            check_quantity(value)
        except UnitTextError as exc:
            raise _unit_text(item, where, exc) from None


def _unit_text(item: Declaration, where: str, exc: UnitTextError) -> InvalidArguments:
    return _refuse(where, f"cannot read {shown(exc.text)} as a number with units: it {exc.problem}; "
                          f"{exc.advice} (the input is in {item.units})")


def _array(item: Declaration, holder: Any, value: list[Any]) -> list[Any]:
    """An Array's ``value`` with its strings converted to the declared units as simtool converts
    them (:mod:`.arrays`: its shape and every element checked first, then the strings read a unit
    at a time); the first element refused, or out of the limits, is refused named by its index
    (``temps[3]``) and quoted alone, not the whole array."""
    from simtool.params import Params, ureg

    try:
        found = arrays.elements(value, item.name, item.units)
        if not found.read:  # numbers only: simtool takes them as they are
            return value
        plain = Params.types["Array"](**{k: v for k, v in item.simtool_fields().items() if k not in ("min", "max")})
        converted, refused = arrays.convert(plain, ureg, found, item.name)
    except arrays.ArrayRefusal as exc:
        raise _refused_element(item, exc) from None
    try:  # the limits, on numbers now: simtool's own check
        holder.value = converted
    except Exception:
        for index, number in enumerate(converted):
            try:
                holder.value = [number]
            except Exception as exc:
                raise _refuse(found.where(item.name, index), _reason(item, exc, found.values[index])) from None
    if refused is not None:
        raise _refused_element(item, refused)
    return arrays.nested(found.shape, converted)


def _refused_element(item: Declaration, refusal: arrays.ArrayRefusal) -> InvalidArguments:
    if isinstance(refusal.cause, UnitTextError):
        return _unit_text(item, refusal.where, refusal.cause)
    if refusal.cause is not None:
        return _refuse(refusal.where, _reason(item, refusal.cause, refusal.element))
    return _refuse(refusal.where, refusal.problem or "is refused")


def _refuse_element(item: Declaration, holder: Any, value: list[Any], where: str) -> None:
    """Raise the refusal of the first element of an Array simtool refuses alone, named by its index
    (``temps[3]``), so that the message quotes that element, not the whole array; return when every
    element passes alone (the array's shape is what simtool refused)."""
    for index, element in enumerate(value):
        at = f"{where}[{index}]"
        if isinstance(element, list):
            _refuse_element(item, holder, element, at)
            continue
        try:
            holder.value = [element]
        except Exception as exc:
            raise _refuse(at, _reason(item, exc, element)) from None


def _wanted(item: Declaration) -> str:
    """What a value of ``item`` may be, for messages about its units."""
    number = item.value if isinstance(item.value, (int, float)) and not isinstance(item.value, bool) else 1
    return f'give a number in {item.units}, or a string with units of the same kind (like "{number} {item.units}")'


def _json_shown(value: object) -> str:
    """``value`` as JSON for a message, cut to its first :data:`_SHOWN` characters (an Array may hold 100,000)."""
    text = one_line(json.dumps(value, ensure_ascii=False))
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _reason(item: Declaration, exc: Exception, value: object = None) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if len(text) > 2 * _SHOWN:  # simtool's own text may quote the whole array
        text = text[: 2 * _SHOWN] + "…"
    kind = type(exc).__name__
    if _LIMIT.match(text):  # simtool's "Maximum value is 2000": say in which units, and what was given
        units = f" {item.units}" if item.units else ""
        return f"{_json_shown(value)} is out of range: the {text[0].lower()}{text[1:]}{units}"
    given = shown(value) if isinstance(value, str) else _json_shown(value)
    if kind == "DimensionalityError":  # pint's text names its own spellings: say what the input is in
        dimension = getattr(exc, "dim1", "")
        of = f" of {dimension}" if dimension else ""
        return f"{given} has units{of}, not of the kind of {item.units}; {_wanted(item)}"
    if kind == "UndefinedUnitError":
        names = getattr(exc, "unit_names", ())
        named = ", ".join(repr(n) for n in ((names,) if isinstance(names, str) else names)) or "in it"
        points = code_points(named)  # U+212A KELVIN SIGN is shown as K: say which character it is
        named += f"; {points}" if points else ""
        return f"{given} has a unit pint does not know ({named}); the input is in {item.units}: {_wanted(item)}"
    if kind == "OverflowError":  # "1 YK/K*YK/K*...": known units, but the factor between them is not a double
        return (f"{given} cannot be converted to {item.units}: the conversion factor of its units is beyond a "
                "double's range")
    if item.type == "Number" and isinstance(value, str) and not text.endswith(" is not a number"):
        # pint's expression parser fails with whatever its tokenizer or evaluator raised
        # (AssertionError, TokenError, ZeroDivisionError, DefinitionSyntaxError...): none says what to fix.
        return f"cannot read {shown(value)} as a number with units: {ACCEPTED} (the input is in {item.units})"
    if item.type == "Element":
        return f"not an element symbol or name ({text})"
    if item.type == "Choice":
        return f"{text}; one of {', '.join(map(str, item.options or ()))}"
    return text


def prepare(spec: Sim2LSpec, arguments: dict[str, Any], tool: str | None = None) -> Prepared:
    """Check ``arguments`` (already valid against the input schema) and fill in declared values.

    ``tool`` is the name the tool is served under (default: the Sim2L's name), for messages.

    Raises:
        InvalidArguments: an input simtool refuses; the message names it (an Array's first refused
            element by its index, ``temps[3]``) and says what fits, quoting at most 80 characters of
            the value.
    """
    try:
        return _prepare(spec, arguments)
    except InvalidArguments as exc:  # worded as every other tool's argument error
        raise InvalidArguments(f"Invalid arguments for tool '{tool or spec.name}': {exc}", exc.errors) from None


def _prepare(spec: Sim2LSpec, arguments: dict[str, Any]) -> Prepared:
    prepared = Prepared()
    for name, item in spec.inputs.items():
        given = name in arguments
        value = arguments[name] if given else item.value
        if value is None:
            prepared.identity[name] = None
            continue
        if item.type in ("File", "Image"):
            if not given:  # a declared value names a file beside the notebook: the notebook reads it itself
                prepared.identity[name] = value
                continue
            file_name, data = _file_bytes(item, value)
            if file_name in prepared.files:  # two inputs sent files of one name: each keeps its own
                file_name = f"{name}-{file_name}"
            _check_file_name(name, file_name)
            if item.type == "Image":
                _check_image(item, data)
            prepared.files[file_name] = data
            prepared.parameters[name] = f"file://{INPUT_FILES_DIR}/{file_name}"
            prepared.identity[name] = {"file": file_name, "sha256": hashlib.sha256(data).hexdigest()}
            continue
        serial = _checked(item, value)
        prepared.parameters[name] = serial
        prepared.identity[name] = serial
    return prepared
