"""A JSON pointer's array index is ASCII digits without a leading zero (RFC 6901 § 4). Review r21 N4:
``schema.paths.pointed`` asked ``str.isdigit()``, which a superscript ``²`` passes, then ``int()``, which
refuses it: a ValueError where the pointer points to nothing."""

from __future__ import annotations

import pytest

from nanohubmcp.schema.paths import pointed


@pytest.mark.parametrize("pointer", ["/²", "/\u0661", "/01", "/-", "/ 1", "/1 ", "/+1", "/3"])
def test_a_token_that_is_no_ascii_index_points_to_nothing_in_an_array(pointer: str) -> None:
    assert pointed(["a", "b", "c"], pointer) == (False, None)


@pytest.mark.parametrize(("pointer", "found"), [("", ["a", "b"]), ("/0", "a"), ("/1", "b")])
def test_an_ascii_index_points_to_its_item(pointer: str, found: object) -> None:
    assert pointed(["a", "b"], pointer) == (True, found)


def test_a_key_of_any_digits_still_names_an_object_member() -> None:
    assert pointed({"²": {"01": 2}}, "/²/01") == (True, 2)
    assert pointed({"items": [[10, 11], [20, 21]]}, "/items/1/0") == (True, 20)
