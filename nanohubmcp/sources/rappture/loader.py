"""A Rappture ``<loader>``'s examples: the files it offers, the name each is offered under, and the
one its ``<default>`` names.

Rappture looks the files up in ``examples/`` beside tool.xml (the installed layout
``rappture/tool.xml`` + ``examples/`` one level up too), by each ``<example>`` pattern in turn
(``*.xml`` when there is none), and shows each by its ``<about><label>``. This module owns only that
lookup and naming; :mod:`.inputs` turns the result into the argument's options and default.

Names are unique: examples sharing a label are offered as ``label (file.xml)`` (with a warning), and
an example whose own label is a name so made for another gets its file name added in turn. A
``<default>`` written as a label that several examples share names the first of them in the loader's
order (Rappture's own loader keeps the first file it finds for a label), the file that was the
default before a copy of it was added.
"""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from ...errors import RegistrationWarning
from ...registration import user_frame

__all__ = ["Example", "LoaderExamples", "example_currents", "find_examples"]


@dataclass(frozen=True)
class Example:
    """One example file a loader offers.

    Attributes:
        value: the name clients send for it (unique among the loader's examples).
        file: the example file.
        under: its path under ``examples/`` (``l1/first.xml``).
        label: its ``<about><label>`` (its file name when it has none).
        description: its ``<about><description>``.
    """

    value: str
    file: Path
    under: str
    label: str
    description: str


@dataclass(frozen=True)
class LoaderExamples:
    """What :func:`find_examples` found: the examples in the loader's order, and the value of the one
    the ``<default>`` names (the ``<default>`` as written when it names none)."""

    examples: list[Example]
    default: str


def _text(doc: ET.Element, path: str) -> str:
    return (doc.findtext(path) or "").strip()


def _files(patterns: list[str], tool_dir: Path) -> list[tuple[Path, str, ET.Element]]:
    """(file, its path under examples/, its document) for each example, in the loader's order."""
    found: list[tuple[Path, str, ET.Element]] = []
    for folder in (tool_dir / "examples", tool_dir.parent / "examples"):
        if not folder.is_dir():
            continue
        seen: set[Path] = set()
        for pattern in patterns or ["*.xml"]:
            for file in sorted(folder.glob(pattern)):
                if file in seen:
                    continue
                seen.add(file)
                try:
                    doc = ET.parse(file).getroot()
                except (ET.ParseError, OSError):
                    continue
                found.append((file, file.relative_to(folder).as_posix(), doc))
        if found:
            break
    return found


def _unique_values(labels: list[str], unders: list[str]) -> list[str]:
    """Each example's name: its label, with ``(file)`` added while it is another's name too.

    Within a group of equal names, those that have had fewer file names added get one more (so a
    label that is literally another's made name ``Cold (cold.xml)`` becomes
    ``Cold (cold.xml) (x.xml)``, and the made name stays); when all have had as many, all do.
    Paths under ``examples/`` are distinct, so every round separates some names.
    """
    values = list(labels)
    added = [0] * len(values)
    for _ in range(len(values) + 1):
        groups: dict[str, list[int]] = {}
        for index, value in enumerate(values):
            groups.setdefault(value, []).append(index)
        clashes = [group for group in groups.values() if len(group) > 1]
        if not clashes:
            break
        for group in clashes:
            fewest = min(added[i] for i in group)
            for index in group:
                if added[index] == fewest:
                    values[index] = f"{values[index]} ({unders[index]})"
                    added[index] += 1
    return values


def find_examples(loader: str, patterns: list[str], default: str, tool_dir: Path | None) -> LoaderExamples:
    """The examples a loader offers and the one its ``<default>`` names (module docstring).

    Args:
        loader: the loader argument's name (for the warning).
        patterns: its ``<example>`` patterns, in order (none: ``*.xml``).
        default: its ``<default>`` as written: a file name (Rappture's documented form, also for an
            ``l1/*.xml`` pattern), a path under ``examples/``, or a label.
        tool_dir: the directory of tool.xml; None: no examples.

    Returns:
        :class:`LoaderExamples`; its ``default`` is the named example's value, or ``default`` as
        written when it names none.

    Warns:
        RegistrationWarning: no example is found, or the ``<default>`` names none of them (with ``tool_dir``);
            examples share a label (or one's label is the name made for another),
            naming the labels and, when the ``<default>`` is such a label, the file it names.
    """
    found = _files(patterns, tool_dir) if tool_dir is not None else []
    labels = [_text(doc, "about/label") or file.name for file, _, doc in found]
    unders = [under for _, under, _ in found]
    values = _unique_values(labels, unders)
    examples = [Example(value, file, under, label, _text(doc, "about/description"))
                for value, label, (file, under, doc) in zip(values, labels, found, strict=True)]
    chosen = default
    if default not in values:
        by_file = [e for e in examples if default in (e.file.name, e.under)]
        by_label = [e for e in examples if e.label == default]
        if by_file or by_label:
            chosen = (by_file or by_label)[0].value
    if tool_dir is not None:
        _warn_unfound(loader, patterns, default, chosen, examples)
    renamed = [e for e in examples if e.value != e.label]
    if renamed:
        shared = sorted({e.label for e in renamed})
        kept = next((e for e in examples if e.value == chosen and default == e.label != chosen), None)
        note = f"; its <default> {default!r} names the first of them, {kept.under}" if kept is not None else ""
        warnings.warn(
            f"Rappture loader {loader!r}: examples share a label ({', '.join(repr(x) for x in shared)}); "
            f"each is offered with its file name, e.g. 'label (file.xml)'{note}: give each example an "
            "<about><label> of its own", RegistrationWarning, stacklevel=user_frame())
    return LoaderExamples(examples, chosen)


def _warn_unfound(loader: str, patterns: list[str], default: str, chosen: str, examples: list[Example]) -> None:
    """Warn of a loader that offers no example (it is left out of the arguments), or whose ``<default>`` names
    none of those it offers (a call without it starts from the tool's own defaults)."""
    if not examples:
        warnings.warn(
            f"Rappture loader {loader!r}: no example file matches {' '.join(patterns or ['*.xml'])} in examples/ "
            "beside tool.xml (or one level up), so it offers nothing and is left out of the arguments: add the "
            "examples, or remove the <loader>", RegistrationWarning, stacklevel=user_frame())
    elif default and chosen not in {e.value for e in examples}:
        offered = ", ".join(e.under for e in examples[:6]) + (", ..." if len(examples) > 6 else "")
        warnings.warn(
            f"Rappture loader {loader!r}: its <default> {default!r} names none of its examples ({offered}), so a "
            "call leaving it out starts from the tool's own defaults: make the <default> one of them",
            RegistrationWarning, stacklevel=user_frame())


def example_currents(file: str | Path) -> dict[str, str]:
    """The ``current`` values an example file sets in its ``<input>``, by Rappture input path.

    Raises:
        ET.ParseError / OSError: the file does not parse, or cannot be read.
    """
    root = ET.parse(file).getroot()
    found: dict[str, str] = {}

    def walk(element: ET.Element, path: str) -> None:
        for child in element:
            if not isinstance(child.tag, str) or child.tag in ("about", "current"):
                continue
            ident = child.get("id")
            same = [c for c in element if c.tag == child.tag]
            index = same.index(child)
            part = f"{child.tag}({ident})" if ident else (child.tag if index == 0 else f"{child.tag}{index}")
            cpath = f"{path}.{part}"
            current = child.find("current")
            if current is not None and current.text is not None:
                found[cpath] = current.text.strip()
            walk(child, cpath)

    section = root.find("input")
    if section is not None:
        walk(section, "input")
    return found
