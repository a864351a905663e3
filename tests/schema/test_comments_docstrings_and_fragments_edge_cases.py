"""Edge cases of the helpers behind describe_function: type comments, docstrings, nullable, defaults."""

from __future__ import annotations

import enum
import linecache
import sys

import pytest

from nanohubmcp.schema.comments import TypeComments, _function_arguments, read_type_comments
from nanohubmcp.schema.docstrings import read_docstring
from nanohubmcp.schema.fragments import NOT_JSON, member_schema, nullable, published_default


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        ("# type: (int, str) -> None", ["int", "str"]),
        ("# type: () -> None", []),
        ("# type: (...) -> None", None),
        ("# type: (Dict[str, int], *str, **float) -> None", ["Dict[str, int]", "str", "float"]),
        ("# type: (int) -> Callable[[int], str]", ["int"]),
        ("# type: int", None),
        ("# type: int -> str", None),
        ("# noqa: E501", None),
        ("# type: ignore", None),
    ],
)
def test_function_form_parsing(comment: str, expected: list[str] | None) -> None:
    assert _function_arguments(comment) == expected


def test_lambdas_and_objects_without_source_have_no_comments() -> None:
    assert read_type_comments(lambda a: a) == TypeComments()
    assert read_type_comments(len) == TypeComments()


def test_the_signature_comment_after_a_remark_on_the_def_line_counts() -> None:
    # CPython's own parser agrees: ast.parse(..., type_comments=True) reads "(int) -> int" here.
    def noqa_first(a):  # a remark comes first
        # type: (int) -> int
        return a

    def annotated_return(a) -> dict[str, int]:  # type: (int) -> dict
        return {}

    def ignored(
        a,  # type: ignore
        b,  # type: int
        c,  # the last one, untyped
    ):
        pass

    assert read_type_comments(noqa_first).arguments == ["int"]
    assert read_type_comments(annotated_return).arguments == ["int"]
    assert read_type_comments(ignored).per_argument == {"b": "int"}


def test_stale_or_broken_source_is_tolerated(tmp_path, monkeypatch) -> None:
    module = tmp_path / "edited_later.py"
    module.write_text("def f(a):  # type: (int) -> int\n    return a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import edited_later

    assert read_type_comments(edited_later.f).arguments == ["int"]
    # Live editing: the file changes under the running function and no longer tokenizes.
    module.write_text('def f(a):  # type: (int) -> int\n    """never closed\n')
    linecache.clearcache()
    assert read_type_comments(edited_later.f) == TypeComments()
    del sys.modules["edited_later"]


def test_docstring_sections_end_where_the_indentation_does() -> None:
    rest = read_docstring("Do it.\n\n:param a: first\n    continued\n:param b:\n\nTrailing text.")
    assert rest.description == "Do it.\n\nTrailing text."
    assert rest.params["a"] == "first\ncontinued"
    google = read_docstring("Do it.\n\nArgs:\n    c: third\nClosing words.")
    assert google.description == "Do it.\n\nClosing words."
    assert google.params == {"c": "third"}


def test_numpy_entries_without_text_give_no_description() -> None:
    doc = read_docstring("Do it.\n\nParameters\n----------\nx : int\ny : int\n    The y.\n")
    assert doc.params == {"y": "The y."}


def test_empty_docstrings() -> None:
    assert read_docstring(None).description is None
    assert read_docstring("   \n  ").params == {}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({}, {}),
        ({"type": "string"}, {"type": ["string", "null"]}),
        ({"type": ["string", "null"]}, {"type": ["string", "null"]}),
        ({"enum": ["a", 1]}, {"enum": ["a", 1, None]}),
        ({"type": "string", "enum": ["a"]}, {"type": ["string", "null"], "enum": ["a", None]}),
        (
            {"$ref": "#/$defs/T", "description": "d"},
            {"anyOf": [{"$ref": "#/$defs/T"}, {"type": "null"}], "description": "d"},
        ),
        ({"const": 3}, {"anyOf": [{"const": 3}, {"type": "null"}]}),
    ],
)
def test_nullable(schema, expected) -> None:
    assert nullable(schema) == expected


class Shape(enum.Enum):
    SQUARE = (1, 1)


def test_defaults_outside_the_published_enum_are_not_published() -> None:
    assert published_default({"enum": ["SQUARE"]}, Shape.SQUARE) is NOT_JSON
    assert member_schema({"type": "integer"}, has_default=True, default=3, description="n") == {
        "type": "integer",
        "description": "n",
        "default": 3,
    }


@pytest.mark.parametrize(
    "doc",
    [
        "Sum of two numbers.",
        "  First line.\n\n\n\n    Second paragraph after three blank lines.\n\n\n",
        "Line one.\r\nLine two.\x0cLine three.",
        "A rule -- not a section.\n\n\n\nEnd.",
    ],
)
def test_a_docstring_without_sections_reads_as_the_section_scanner_reads_it(doc: str) -> None:
    # Docstrings with no colon, "@" or "--" skip the section scanner (no pattern compiled at start);
    # the text must be what the scanner keeps: every line, runs of blank lines collapsed to one.
    import inspect
    import re

    text = inspect.cleandoc(doc)
    scanned = re.sub(r"\n{3,}", "\n\n", "\n".join(text.splitlines())).strip()
    info = read_docstring(doc)
    assert info.description == scanned
    assert info.params == {}
    assert read_docstring(None) == read_docstring("   ") == (None, {})
