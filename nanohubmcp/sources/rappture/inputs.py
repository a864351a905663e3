"""A Rappture tool's ``<input>`` section as a flat list of arguments.

Rappture nests inputs in ``<group>``, ``<phase>`` and ``<structure>`` (whose ``<parameters>``
hold numbers); an MCP tool takes one flat object. Each value-bearing element becomes one
argument, named by its ``id``; when two elements share an id, the ids of their enclosing groups
are put in front, joined by ``_`` (``models_tau`` and ``ambient_tau``), until every name is
unique. Siblings sharing an id (``input.number(length)`` and ``input.choice(length)``: a tool.xml mistake) are
named with their kind after it (``length_number``, ``length_choice``; ``length_number2`` when another input is
``length_number`` already), the others keep their names, and a ``RegistrationWarning`` names the duplicate id and
each of them (its path and label); of siblings of one kind sharing an id (one Rappture path: the
program reads only the first) the first is the argument, the others are skipped, with a warning. An element
without an id is named by its tag (``loader``, ``loader2``, …, Rappture's own naming). The labels of the enclosing
groups go into the argument's description.

What becomes an argument: ``number``, ``integer``, ``boolean``, ``choice``, ``multichoice``,
``string``, ``loader`` and ``periodicelement``. What does not, with the reason kept in
:attr:`Inputs.skipped` (and listed in the tool's description): ``image`` and ``drawing`` (pictures
for a person to look at or click), ``note`` (text for the reader), any element whose
``<enable>`` is a constant ``no`` (Rappture hides it and the program reads its default), a ``loader``
with no example files (it offers nothing), and elements Rappture has no input of. ``separator`` elements are
layout and are dropped quietly.

An ``<enable>`` condition is kept as text, with the Rappture paths in it replaced by argument
names, so the description can say when the argument matters.
"""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import RegistrationWarning
from ...registration import user_frame
from .loader import find_examples

__all__ = ["VALUE_KINDS", "Input", "Inputs", "Option", "Skipped", "read_inputs", "text_of"]

VALUE_KINDS = frozenset(
    {"number", "integer", "boolean", "choice", "multichoice", "string", "loader", "periodicelement"}
)
"""Input elements that become arguments."""

_CONTAINERS = frozenset({"group", "phase"})
_LAYOUT = frozenset({"separator", "about"})
_SKIP_REASONS = {
    "image": "an image input is a picture shown to the person at the screen, not a value the model can give",
    "drawing": "a drawing input is a picture with clickable hotspots, not a value the model can give",
    "note": "a note is text for the reader of the form, not a value",
}
_OFF = frozenset({"no", "off", "false", "0"})
_ON = frozenset({"yes", "on", "true", "1"})


def text_of(element: ET.Element | None, path: str = "") -> str:
    """The stripped text at ``path`` under ``element`` ('' when absent)."""
    if element is None:
        return ""
    found = element.find(path) if path else element
    return (found.text or "").strip() if found is not None else ""


@dataclass(frozen=True)
class Option:
    """One option of a ``choice`` or ``multichoice``: its value (the label when it has none)."""

    value: str
    label: str
    description: str = ""


@dataclass(eq=False)
class Input:
    """One argument: a value-bearing input element of the tool.

    Attributes:
        kind: the element's tag (``number``, ``choice``, …).
        name: the argument name (see the module docstring).
        path: the element's Rappture path, e.g. ``input.group(tabs).number(temp)``.
        element: the element in the parsed tool.xml (its ``current`` is written in the driver).
        label / description: from ``about``.
        context: labels (or ids) of the enclosing groups, outermost first.
        units / minimum / maximum / default: as written (numbers may carry their own units).
        presets: ``(value, label)`` of each ``<preset>``.
        options: of a choice, multichoice, or a loader's examples.
        enable: the ``<enable>`` condition in argument names, or None.
        lines: rows of a string's ``<size>`` (``40x10`` -> 10); >1 is multi-line text.
        hints: a string's ``<hints>``.
        extra: per-kind settings (a periodic element's ``returnvalue``, ``active``/``inactive``;
            a loader's example files).
    """

    kind: str
    name: str
    path: str
    element: ET.Element = field(repr=False)
    label: str = ""
    description: str = ""
    context: tuple[str, ...] = ()
    units: str = ""
    minimum: str = ""
    maximum: str = ""
    default: str = ""
    presets: list[tuple[str, str]] = field(default_factory=list)
    options: list[Option] = field(default_factory=list)
    enable: str | None = None
    lines: int = 1
    hints: str = ""
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Skipped:
    """An input element that is not an argument, and why."""

    path: str
    kind: str
    label: str
    reason: str


@dataclass
class Inputs:
    """What :func:`read_inputs` found: the arguments in document order and what was skipped."""

    arguments: list[Input]
    skipped: list[Skipped]


def _component(element: ET.Element, parent: ET.Element) -> str:
    """Rappture's path component: ``tag(id)``, else ``tag`` / ``tagN`` by position among siblings."""
    ident = element.get("id")
    if ident:
        return f"{element.tag}({ident})"
    same = [c for c in parent if c.tag == element.tag]
    index = same.index(element)
    return element.tag if index == 0 else f"{element.tag}{index}"


@dataclass
class _Walk:
    arguments: list[tuple[Input, tuple[str, ...]]] = field(default_factory=list)  # with container ids
    skipped: list[Skipped] = field(default_factory=list)
    enables: list[tuple[Input, list[str]]] = field(default_factory=list)


def _enable_chain(element: ET.Element, inherited: list[str]) -> list[str] | None:
    """The enable conditions in force; None when the element is hidden (``<enable>no``)."""
    own = text_of(element, "about/enable")
    if own.lower() in _OFF:
        return None
    return [*inherited, own] if own and own.lower() not in _ON else list(inherited)


def _walk(
    parent: ET.Element, path: str, ids: tuple[str, ...], labels: tuple[str, ...], enables: list[str], found: _Walk
) -> None:
    for child in parent:
        if not isinstance(child.tag, str) or child.tag in _LAYOUT:
            continue
        cpath = f"{path}.{_component(child, parent)}"
        label = text_of(child, "about/label")
        chain = _enable_chain(child, enables)
        if chain is None:
            if child.tag in VALUE_KINDS or child.tag in _CONTAINERS:
                found.skipped.append(
                    Skipped(cpath, child.tag, label, "hidden by <enable>no</enable>: the program reads its default")
                )
            continue
        if child.tag in _CONTAINERS:
            _walk(
                child,
                cpath,
                (*ids, child.get("id") or child.tag),
                (*labels, label or child.get("id") or ""),
                chain,
                found,
            )
        elif child.tag == "structure":
            for holder, hpath in (
                (child.find("current/parameters"), "current.parameters"),
                (child.find("parameters"), "parameters"),
            ):
                if holder is not None:
                    _walk(
                        holder,
                        f"{cpath}.{hpath}",
                        (*ids, child.get("id") or "structure"),
                        (*labels, label or "Structure"),
                        chain,
                        found,
                    )
        elif child.tag in VALUE_KINDS:
            item = _read(child, cpath, labels)
            found.arguments.append((item, (*ids, child.get("id") or "")))
            if chain:
                found.enables.append((item, chain))
        else:
            reason = _SKIP_REASONS.get(child.tag, f"<{child.tag}> is not a Rappture input this server can fill")
            found.skipped.append(Skipped(cpath, child.tag, label, reason))


def _read(element: ET.Element, path: str, labels: tuple[str, ...]) -> Input:
    kind = element.tag
    item = Input(
        kind=kind,
        name="",
        path=path,
        element=element,
        label=text_of(element, "about/label"),
        description=text_of(element, "about/description"),
        context=tuple(x for x in labels if x),
        units=text_of(element, "units"),
        minimum=text_of(element, "min"),
        maximum=text_of(element, "max"),
        default=text_of(element, "default"),
        hints=text_of(element, "about/hints"),
    )
    item.presets = [(text_of(p, "value"), text_of(p, "label")) for p in element.findall("preset")]
    if kind in ("choice", "multichoice"):
        for option in element.findall("option"):
            olabel = text_of(option, "about/label")
            value = text_of(option, "value") or olabel
            item.options.append(Option(value, olabel or value, text_of(option, "about/description")))
    if kind == "string":
        size = text_of(element, "size")
        match = re.fullmatch(r"\s*\d+\s*x\s*(\d+)\s*", size)
        item.lines = int(match.group(1)) if match else (2 if "\n" in item.default else 1)
    if kind == "periodicelement":
        for key in ("returnvalue", "active", "inactive"):
            item.extra[key] = text_of(element, key)
    if kind == "loader":
        item.extra["example"] = " ".join(text_of(e) for e in element.findall("example"))
    return item


def _unique_names(found: list[tuple[Input, tuple[str, ...]]]) -> None:
    """Name every argument by its id, prefixing group ids until the names are unique."""
    depth = {id(item): 1 for item, _ in found}
    for _ in range(32):
        names: dict[str, list[Input]] = {}
        for item, ids in found:
            parts = [p for p in ids[-depth[id(item)] :] if p] or [_fallback(item)]
            item.name = re.sub(r"[^A-Za-z0-9_.-]", "_", "_".join(parts))
            names.setdefault(item.name, []).append(item)
        clashes = [group for group in names.values() if len(group) > 1]
        if not clashes:
            return
        for group in clashes:
            for item in group:
                depth[id(item)] += 1
    # Still equal after every prefix: siblings of other kinds sharing an id (those of one kind share a path and
    # are one argument: _one_per_path). Only they are renamed, by kind, to a name no other argument has (an input
    # may be called length_number already): a number after it where one has.
    taken = {name for name, group in names.items() if len(group) == 1}
    for group in clashes:
        shared = group[0].name
        for item in group:
            item.name = _free(f"{shared}_{item.kind}", taken)
        named = ", ".join(f"{item.path}{_labelled(item)} as {item.name}" for item in group)
        warnings.warn(
            f"Rappture inputs share the id {shared!r} under one parent, so they are offered with their kind after it "
            f"({named}): give each input an id of its own", RegistrationWarning, stacklevel=user_frame())


def _one_per_path(found: _Walk) -> None:
    """Keep the first of the inputs sharing a Rappture path (siblings of one kind and id, a tool.xml mistake): the
    program reads a path's first element, so a second argument would be a value it never sees (the driver writes
    the one argument's value at the path). The others are skipped, with a ``RegistrationWarning``."""
    at: dict[str, list[Input]] = {}
    kept: list[tuple[Input, tuple[str, ...]]] = []
    for item, ids in found.arguments:
        if item.path not in at:
            kept.append((item, ids))
        else:
            found.skipped.append(Skipped(item.path, item.kind, item.label, "a second input at the same path"))
        at.setdefault(item.path, []).append(item)
    for path, group in at.items():
        if len(group) > 1:  # each named by its label and place: the path is the same for all
            later = ", ".join(f"the {_ordinal(n)}{_labelled(item)}" for n, item in enumerate(group[1:], 2))
            warnings.warn(
                f"Rappture inputs share the path {path} (one kind, one id, one parent): the program reads only the "
                f"first, so the 1st{_labelled(group[0])} is offered and {later} not: give each input an id of its "
                "own", RegistrationWarning, stacklevel=user_frame())
    found.arguments[:] = kept


def _labelled(item: Input) -> str:
    return f" ({item.label!r})" if item.label else ""


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _free(name: str, taken: set[str]) -> str:
    """``name``, else ``name2``, ``name3``... : the first that is not in ``taken`` (which then holds it)."""
    found, n = name, 2
    while found in taken:
        found, n = f"{name}{n}", n + 1
    taken.add(found)
    return found


def _fallback(item: Input) -> str:
    return item.path.rsplit(".", 1)[-1].replace("(", "_").replace(")", "")


_PATH_TOKEN = re.compile(r"input(?:\.[A-Za-z_#0-9]*(?:\([^)]*\))?)+")


def _named_condition(condition: str, by_id: dict[str, str]) -> str:
    """``input.group(dd).boolean(recomb)`` -> ``recomb`` (the argument's name) when it is known."""

    def name(match: re.Match[str]) -> str:
        token = match.group(0)
        ids = re.findall(r"\(([^)]*)\)", token)
        last = ids[-1] if ids else token.rsplit(".", 1)[-1]
        return by_id.get(last, token)

    return _PATH_TOKEN.sub(name, condition)


def read_inputs(root: ET.Element, tool_dir: Path | None = None) -> Inputs:
    """Read the ``<input>`` section of a parsed tool.xml (``root`` is ``<run>``).

    Args:
        root: the document element.
        tool_dir: the directory of tool.xml (where a loader's examples are looked up).
    Returns:
        :class:`Inputs`; an empty list when the tool has no inputs.
    """
    section = root.find("input")
    found = _Walk()
    if section is not None:
        _walk(section, "input", (), (), [], found)
    _one_per_path(found)
    _unique_names(found.arguments)
    by_id = {ids[-1]: item.name for item, ids in found.arguments if ids and ids[-1]}
    for item, chain in found.enables:
        item.enable = " and ".join(_named_condition(c, by_id) for c in chain)
    arguments = [item for item, _ in found.arguments]
    for item in arguments:
        if item.kind == "loader":
            item.options = loader_examples(item, tool_dir)
    empty = [item for item in arguments if item.kind == "loader" and not item.options]  # offers nothing
    found.skipped.extend(Skipped(item.path, item.kind, item.label, "a loader with no example files") for item in empty)
    return Inputs([item for item in arguments if all(item is not e for e in empty)], found.skipped)


def loader_examples(item: Input, tool_dir: Path | None) -> list[Option]:
    """A loader's examples as options (:func:`.loader.find_examples`: where they are looked up, the
    name each is offered under, the one the ``<default>`` names); each example's file is kept in
    ``item.extra`` under ``example:<value>``, and ``item.default`` becomes the named example's
    value, so it is the schema's default and the example a call without the argument starts from.
    """
    found = find_examples(item.name, item.extra.get("example", "").split(), item.default, tool_dir)
    for example in found.examples:
        item.extra[f"example:{example.value}"] = str(example.file)
    item.default = found.default
    return [Option(e.value, e.value, e.description) for e in found.examples]
