"""What a Sim2L run saved, read without running any of it: output values and the files they name.

simtool's ``DB.save`` keeps an output as a scrapbook entry holding ``jsonpickle.dumps(value)``, or as
``file://<path>`` naming a file of the run (``file=``, or a value that is such a string). simtool reads both
back with ``jsonpickle.loads``, which imports and calls whatever the JSON names (``{"py/reduce":
[{"py/function": "os.system"}, ...]}``): the run writes that JSON, and a run may write what a caller sent
(a ``Dict`` argument dumped to the file it saves). So the server reads them itself:

=====================================  ==========================================================
saved                                  read as
=====================================  ==========================================================
JSON values                            themselves (``NaN``/``Infinity`` too, as simtool wrote them)
jsonpickle's ``py/tuple``, ``py/set``  lists
``py/b64``                             bytes
a numpy number or array (its           the number (a Python one), the array (``numpy.ndarray``):
``py/reduce`` of ``numpy.dtype``,      only dtypes of numbers, booleans and strings; an array's
``multiarray.scalar``,                 bytes must fill its shape
``multiarray._reconstruct``)
``py/id``                              the object it refers to (numbered as jsonpickle numbers them)
any other ``py/`` tag                  refused (:class:`Undecodable`): no module is imported, nothing called
=====================================  ==========================================================

A ``file://`` reference names a file of the run only when, resolved (symbolic links followed), it is a regular
file inside the run directory, not the store's ``run.json``; a value is read from it only up to
:data:`VALUE_FILE_LIMIT` bytes.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from typing import Any

from ...server.wire.left_files import LeftFileRefused, read_left_file

__all__ = ["VALUE_FILE_LIMIT", "NotARunFile", "Undecodable", "decode", "read_value_file", "run_file"]

VALUE_FILE_LIMIT = 64 * 1024 * 1024
"""The most bytes read of a file holding an output's value (a Number, Dict, Text... saved with ``file=``)."""

_SCALAR = frozenset({"numpy._core.multiarray.scalar", "numpy.core.multiarray.scalar"})
_RECONSTRUCT = frozenset({"numpy._core.multiarray._reconstruct", "numpy.core.multiarray._reconstruct"})
_DTYPE_KINDS = "biufcUS"
"""numpy dtype kinds an output may hold: booleans, integers, floats, complex numbers, strings (not objects)."""


class Undecodable(ValueError):
    """A saved value the server does not decode: not JSON, or a jsonpickle object other than the table's.
    The message says what it holds (``it holds a Python object (jsonpickle 'py/reduce' of 'os.system')``)."""


class NotARunFile(ValueError):
    """A ``file://`` reference that is not a regular file inside the run directory (or one over the size a
    value file may have); the message says which, after the path as saved."""


class _Pending:
    """jsonpickle's number for an object still being decoded (a ``py/id`` to it is a cycle: refused)."""


def decode(text: Any) -> Any:
    """The value jsonpickle's JSON ``text`` (or an already parsed JSON value) holds, as the module table says.

    Raises:
        Undecodable: not JSON, or an object the table does not list.
    """
    if isinstance(text, (str, bytes)):
        try:
            text = json.loads(text)
        except ValueError as exc:
            raise Undecodable(f"it is not JSON ({exc})") from None
    return _Decoder().value(text)


class _Decoder:
    def __init__(self) -> None:
        self.objects: list[Any] = []  # jsonpickle's reference table: lists, dicts and py/reduce, in order met

    def _numbered(self) -> int:
        self.objects.append(_Pending)
        return len(self.objects) - 1

    def value(self, item: Any) -> Any:
        if isinstance(item, list):
            index = self._numbered()
            self.objects[index] = found = [self.value(v) for v in item]
            return found
        if not isinstance(item, dict):
            return item
        tags = [key for key in item if isinstance(key, str) and key.startswith("py/")]
        if not tags:
            index = self._numbered()
            mapping = {k: self.value(v) for k, v in item.items()}
            self.objects[index] = mapping
            return mapping
        tag = tags[0]
        if tag in ("py/tuple", "py/set") and isinstance(item[tag], list):
            return [self.value(v) for v in item[tag]]
        if tag == "py/b64" and isinstance(item[tag], str):
            try:
                return base64.b64decode(item[tag], validate=True)
            except binascii.Error:
                raise Undecodable("it holds a py/b64 that is not base64") from None
        if tag == "py/id" and isinstance(item[tag], int) and 0 <= item[tag] < len(self.objects):
            target = self.objects[item[tag]]
            if target is not _Pending:
                return target
        if tag == "py/reduce" and isinstance(item[tag], list):
            index = self._numbered()
            self.objects[index] = found = self._reduce(item[tag])
            return found
        raise Undecodable(f"it holds a Python object (jsonpickle {_said(item, tag)}), which is not decoded: "
                          "save JSON values (numbers, strings, lists, dicts) or numpy numbers and arrays")

    def _reduce(self, parts: list[Any]) -> Any:
        what = parts[0] if parts and isinstance(parts[0], dict) else {}
        function, kind = what.get("py/function"), what.get("py/type")
        import numpy

        if kind == "numpy.dtype":
            return _dtype(numpy, self._tuple(parts, 1), self._tuple(parts, 2))
        if function in _SCALAR:
            arguments = self._tuple(parts, 1)
            if arguments is not None and len(arguments) == 2:
                return _array(numpy, arguments[0], arguments[1], ()).item()
        if function in _RECONSTRUCT:  # its arguments, (numpy.ndarray, (0,), b"b"), are not read: its state is
            state = self._tuple(parts, 2)
            if state is not None and len(state) == 5:
                _, shape, dtype, fortran, data = state
                if not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0 for n in shape):
                    raise Undecodable("it holds a numpy array whose shape is not a list of sizes")
                return _array(numpy, dtype, data, tuple(shape), fortran=fortran is True)
        called, tag = (function, "py/function") if function is not None else (kind, "py/type")
        raise Undecodable(f"it holds a Python object (jsonpickle 'py/reduce' of {called!r} as its {tag}), which "
                          "is not decoded: save JSON values (numbers, strings, lists, dicts) or numpy numbers and "
                          "arrays")

    def _tuple(self, parts: list[Any], index: int) -> list[Any] | None:
        """The decoded ``parts[index]`` of a ``py/reduce`` (a tuple: its arguments, its state); None if absent."""
        if len(parts) <= index or parts[index] is None:
            return None
        found = self.value(parts[index])
        if not isinstance(found, list):
            raise Undecodable("it holds a py/reduce whose arguments are not a tuple")
        return found


def _said(item: dict[str, Any], tag: str) -> str:
    shown = json.dumps(item[tag])
    return f"{tag!r} of {shown[:60]}{'…' if len(shown) > 60 else ''}"


def _dtype(numpy: Any, arguments: list[Any] | None, state: list[Any] | None) -> Any:
    if not arguments or not isinstance(arguments[0], str):
        raise Undecodable("it holds a numpy dtype without its type code")
    try:
        dtype = numpy.dtype(arguments[0], align=False, copy=True)  # a copy: its state is set next
        if state is not None:
            dtype.__setstate__(tuple(state))  # its byte order: plain values, no object is made
    except Exception:  # numpy's own refusal of the text or the state (TypeError, ValueError, ...)
        raise Undecodable(f"it holds a numpy dtype numpy does not read ({arguments[0]!r})") from None
    if dtype.kind not in _DTYPE_KINDS or dtype.fields is not None:
        raise Undecodable(f"it holds a numpy dtype of Python objects or records ({dtype.str})")
    return dtype


def _array(numpy: Any, dtype: Any, data: Any, shape: tuple[int, ...], *, fortran: bool = False) -> Any:
    if not isinstance(dtype, numpy.dtype) or not isinstance(data, bytes):
        raise Undecodable("it holds a numpy value that is not a numeric dtype and its bytes")
    count = 1
    for size in shape:
        count *= size
    if dtype.itemsize == 0 or len(data) != count * dtype.itemsize:
        raise Undecodable(f"it holds a numpy value whose {len(data)} bytes do not fill its shape {list(shape)}")
    return numpy.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C").copy()


def run_file(directory: str, path: str, *, excluded: tuple[str, ...] = ()) -> str:
    """The file ``path`` (a ``file://`` reference's path, relative to the run directory ``directory``) as a path
    relative to the resolved run directory; ``excluded``: names in it that are never a run's file.

    Raises:
        NotARunFile: absolute, holding NUL, outside the run directory once resolved (``../``, a symbolic link
            out), not a regular file, or one of ``excluded``.
    """
    if not path or "\x00" in path or os.path.isabs(path):
        raise NotARunFile(f"{path!r} is not a path relative to the run directory")
    root = os.path.realpath(directory)
    target = os.path.realpath(os.path.join(root, path))
    if not target.startswith(root + os.sep):
        plain = os.path.normpath(os.path.join(root, path))
        if plain.startswith(root + os.sep):  # in the run by its name: a symbolic link on the way leads out
            raise NotARunFile(f"{path!r} is a symbolic link out of the run directory: copy the file into the run "
                              "and save the copy")
        raise NotARunFile(f"{path!r} is outside the run directory")
    relative = os.path.relpath(target, root)
    if relative in excluded:
        raise NotARunFile(f"{path!r} is the server's own record of the run")
    if not os.path.isfile(target):
        raise NotARunFile(f"{path!r} is not a regular file of the run")
    return relative


def read_value_file(directory: str, relative: str, limit: int = VALUE_FILE_LIMIT) -> bytes:
    """The bytes of the run file ``relative`` (:func:`run_file`'s answer), opened without following a symbolic
    link or waiting on a FIFO.

    Raises:
        NotARunFile: not a regular file (any more), or over ``limit`` bytes.
    """
    path = os.path.join(os.path.realpath(directory), relative)
    try:
        return read_left_file(path, limit)
    except (FileNotFoundError, LeftFileRefused) as exc:
        if isinstance(exc, LeftFileRefused) and exc.reason == "size":
            most = f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit} bytes"
            raise NotARunFile(f"{relative!r} is over the {most} an output's value file may have") from None
        raise NotARunFile(f"{relative!r} is not a regular file of the run") from None
