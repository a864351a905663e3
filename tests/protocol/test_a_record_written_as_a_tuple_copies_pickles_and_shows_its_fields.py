"""The records written out as tuples (for start-up cost, in place of ``typing.NamedTuple``) copy, pickle and show
their fields as the named tuples did.

Before (5fc5ea77 to this fix): ``copy.copy``, ``copy.deepcopy`` and ``pickle`` of a ``StateURL``, a ``Route`` or a
``DocInfo`` raised ``TypeError`` (tuple's own ``__getnewargs__`` hands the whole tuple to a ``__new__`` that takes
the fields), and their repr was a bare tuple (review r26 LOW-2). A state URL's repr never shows its password.
"""

from __future__ import annotations

import copy
import pickle

import pytest

from nanohubmcp.schema.docstrings import DocInfo
from nanohubmcp.server.middleware import Route
from nanohubmcp.state.url import StateURL, parse

RECORDS = [
    parse("redis://:s3cret@127.0.0.1:6379/0"),
    StateURL("sqlite", "sqlite:///tmp/x", "/tmp/x"),
    Route("tools/call", False, True, True),
    DocInfo("Sum of two numbers.", {"a": "the first"}),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_a_record_copies_and_pickles_as_itself(record: tuple[object, ...]) -> None:
    for made in (copy.copy(record), copy.deepcopy(record), pickle.loads(pickle.dumps(record))):
        assert type(made) is type(record)
        assert made == record
        assert made._fields == record._fields  # type: ignore[attr-defined]


def test_a_records_repr_names_its_fields() -> None:
    assert repr(Route("tools/call", False, True, True)) == (
        "Route(method='tools/call', modern=False, authorized=True, in_session=True)")
    assert repr(DocInfo(None, {})) == "DocInfo(description=None, params={})"


def test_a_state_urls_repr_hides_its_password() -> None:
    shown = repr(parse("redis://:s3cret@127.0.0.1:6379/0"))
    assert "s3cret" not in shown
    assert shown.startswith("StateURL(kind='redis', url='redis://")
