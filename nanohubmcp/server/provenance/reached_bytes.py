"""The bytes each object a cached tool's code reaches counts as in the reach's digest: a user's
function or class by its compiled code (:func:`code_text`), a plain value by its ``repr``
(:func:`plain_text`), any other value by the SHA-256 of its pickle or, with none, by its identity in
this process (:func:`opaque_text`), a module used as a whole by what it holds and its file as loaded
(:func:`module_text`, :func:`loaded_file`).

Serves :mod:`.code_reach`, which owns the walk, what is followed and what is bound (the module's
docstring says what each kind of object counts as, and why).
"""

from __future__ import annotations

import hashlib
import secrets
import weakref
from types import CodeType, ModuleType
from typing import Any

from .code_modules import file_digest
from .code_parts import functions_of, is_users_code

MAX_VALUE_CHARS = 65536
"""A plain value whose ``repr`` is longer counts as any other value: by its pickle (:func:`opaque_text`)."""
PLAIN = (type(None), bool, int, float, complex, str, bytes)
CONTAINERS = (tuple, list, dict, set, frozenset)


def plain_text(value: Any, held: list[Any]) -> bytes:
    """A plain value's ``repr``; a longer one, or a container of something else, as :func:`opaque_text`."""
    left = [MAX_VALUE_CHARS]
    text = _plain_repr(value, left, 0)
    if text is None:
        return opaque_text(value, held)
    return text.encode("utf-8", "surrogatepass")


_PROCESS = secrets.token_hex(16)
"""Stands for this process in the key of a value that can only count by its identity (:func:`opaque_text`)."""


def opaque_text(value: Any, held: list[Any]) -> bytes:
    """What a value that is not plain holds: its type's name and the SHA-256 of its pickle, whose
    out-of-band buffers (an array's data, a table's columns) are hashed where they lie. A module counts
    by its name; a value that cannot be pickled by its identity in this process (and is kept in ``held``)."""
    import pickle  # the stdlib's; only when a cached tool reads such a value

    kind = type(value)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if isinstance(value, ModuleType):
        return f"module {value.__name__}".encode()
    if kind.__module__.partition(".")[0] == "nanohubmcp":  # the server, a Context: versioned with the package
        return name.encode()
    buffers: list[pickle.PickleBuffer] = []
    try:
        data = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
    except Exception:  # any object's own __reduce__ may raise anything: it counts by identity
        held.append(value)
        return f"{name} {_PROCESS} {id(value)}".encode()
    digest = hashlib.sha256(data)
    for buffer in buffers:
        try:
            digest.update(buffer.raw())
        except BufferError:  # not contiguous: copied
            digest.update(bytes(buffer))
    return f"{name} ".encode() + digest.digest()


MAX_DEPTH = 32
"""Containers nested deeper (or holding themselves) are not plain."""


def _plain_repr(value: Any, left: list[int], depth: int) -> str | None:
    """``repr`` of a plain value, sets and dicts in a stable order; None when not plain, nested
    deeper than :data:`MAX_DEPTH` or longer than ``left[0]`` characters (spent as it goes)."""
    if isinstance(value, PLAIN):
        text = repr(value)
    elif depth >= MAX_DEPTH:
        return None
    elif isinstance(value, dict):
        pairs = []
        for key, item in value.items():
            pair_key, pair_value = _plain_repr(key, left, depth + 1), _plain_repr(item, left, depth + 1)
            if pair_key is None or pair_value is None:
                return None
            pairs.append(f"{pair_key}:{pair_value}")
        text = "{" + ",".join(sorted(pairs)) + "}"
    elif isinstance(value, CONTAINERS):
        parts = []
        for item in value:
            part = _plain_repr(item, left, depth + 1)
            if part is None:
                return None
            parts.append(part)
        if isinstance(value, (set, frozenset)):
            parts.sort()
        text = type(value).__name__ + "(" + ",".join(parts) + ")"
    else:
        return None
    left[0] -= len(text)
    return text if left[0] >= 0 else None


def _code_bytes(code: CodeType) -> bytes:
    """What compiled code does, without where it was compiled (no file name or line numbers; marshal's
    output is not stable either: it depends on which strings happen to be shared): its instructions,
    names, argument counts and flags, and its constants, the code nested in it included."""
    parts = [code.co_code, repr((code.co_name, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                                 code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
                                 code.co_flags)).encode()]
    parts.extend(_constant(const) for const in code.co_consts)
    return b"\0".join(parts)


def _constant(const: Any) -> bytes:
    """A constant of compiled code, the same in every process: nested code as :func:`_code_bytes`, a
    frozenset (``x in {"a", "b"}``) in sorted order (its own order follows the per-process string hash)."""
    if isinstance(const, CodeType):
        return b"code(" + _code_bytes(const) + b")"
    if isinstance(const, frozenset):
        return b"frozenset(" + b",".join(sorted(_constant(item) for item in const)) + b")"
    if isinstance(const, tuple):
        return b"(" + b",".join(_constant(item) for item in const) + b")"
    return repr(const).encode("utf-8", "surrogatepass")


def code_text(value: Any) -> bytes:
    """What a user's function or class runs (the same bytes in every process): the compiled code of the
    function (each method of the class, by name, after the names of its bases) with the values of its
    defaults. Never the source file's text: a file edited but not loaded again is not what runs."""
    parts = []
    if isinstance(value, type):
        parts.append(" ".join(f"{base.__module__}.{base.__qualname__}" for base in value.__bases__).encode())
    for function in functions_of(value):
        parts.append(function.__name__.encode() + b"=" + _code_bytes(function.__code__))
        defaults = (function.__defaults__ or ()) + tuple((function.__kwdefaults__ or {}).items())
        if defaults:
            parts.append(plain_text(defaults, []))
    return b"\0".join(parts)


_FILES: weakref.WeakKeyDictionary[ModuleType, tuple[Any, bytes]] = weakref.WeakKeyDictionary()
"""A loaded module's ``__spec__`` (a reload makes a new one) and its file's digest as first read then."""


def loaded_file(module: ModuleType) -> bytes:
    """The digest of a loaded module's file as first read after it was loaded (kept until a reload, which
    makes a new ``__spec__``): an edit not loaded yet changes nothing here, as it changes nothing that runs."""
    spec = getattr(module, "__spec__", None)
    held = _FILES.get(module)
    if held is not None and held[0] is spec:
        return held[1]
    digest = file_digest(getattr(module, "__file__", None))
    _FILES[module] = (spec, digest)
    return digest


def is_dunder(name: Any) -> bool:
    return str(name).startswith("__") and str(name).endswith("__")


def module_text(module: ModuleType, holds: dict[str, Any], held: list[Any]) -> bytes:
    """A module used as a whole (``holds``: its names, as read once): the code of the functions and classes
    it holds, its plain values, the type of anything else (a module by its name), and its file as loaded
    (:func:`loaded_file`)."""
    parts = [loaded_file(module)]
    for name, value in sorted(holds.items(), key=lambda item: str(item[0])):
        if is_dunder(name):
            continue
        if isinstance(value, (PLAIN, CONTAINERS)):
            text = plain_text(value, held)
        elif is_users_code(value):
            text = code_text(value)
        else:
            text = opaque_text(value, held)
        parts.append(f"\0{name}=".encode() + text)
    return b"".join(parts)
