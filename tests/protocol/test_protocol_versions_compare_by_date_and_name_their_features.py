"""``ProtocolVersion``: a version string that orders by date and answers what the version allows
by name, so no call site compares date strings."""

from __future__ import annotations

import json

import pytest

from nanohubmcp.protocol import versions
from nanohubmcp.protocol.versions import ProtocolVersion


def test_it_is_the_version_string_on_the_wire_and_in_lookups() -> None:
    v = ProtocolVersion.of("2025-06-18")
    assert v == "2025-06-18"
    assert {"2025-06-18": 1}[v] == 1
    assert json.dumps({"protocolVersion": v}) == '{"protocolVersion": "2025-06-18"}'
    assert ProtocolVersion.of("2025-06-18") is v  # one instance per version


def test_versions_order_by_date() -> None:
    ordered = sorted(ProtocolVersion.of(v) for v in versions.SUPPORTED_VERSIONS)
    assert ordered == ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
    assert ProtocolVersion.of("2025-11-25") > "2025-06-18"
    assert ProtocolVersion.of("2024-11-05") <= "2024-11-05"


def test_an_unknown_version_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="2099-01-01"):
        ProtocolVersion.of("2099-01-01")


@pytest.mark.parametrize(
    ("feature", "first"),
    [
        ("progress_messages", "2025-03-26"),
        ("completions", "2025-03-26"),
        ("tool_annotations", "2025-03-26"),
        ("resumable_streams", "2025-03-26"),
        ("audio_content", "2025-03-26"),
        ("structured_content", "2025-06-18"),
        ("titles", "2025-06-18"),
        ("resource_links", "2025-06-18"),
        ("every_block", "2025-06-18"),
        ("icons", "2025-11-25"),
        ("argument_errors_as_tool_errors", "2025-11-25"),
        ("priming_events", "2025-11-25"),
        ("elicitation_modes", "2025-11-25"),
        ("modern", "2026-07-28"),
    ],
)
def test_each_feature_starts_with_its_version(feature: str, first: str) -> None:
    have = [v for v in sorted(map(ProtocolVersion.of, versions.SUPPORTED_VERSIONS)) if getattr(v, feature)]
    assert have[0] == first
    assert have == sorted(v for v in map(ProtocolVersion.of, versions.SUPPORTED_VERSIONS) if v >= first)


def test_features_of_one_version_or_a_range() -> None:
    assert [v for v in versions.SUPPORTED_VERSIONS if ProtocolVersion.of(v).batches] == ["2025-03-26", "2024-11-05"]
    assert [v for v in versions.SUPPORTED_VERSIONS if ProtocolVersion.of(v).tasks] == ["2025-11-25"]
    assert [v for v in versions.SUPPORTED_VERSIONS if ProtocolVersion.of(v).can_ask_client] == list(
        versions.HANDSHAKE_VERSIONS)


def test_a_header_names_the_stateless_era_by_date() -> None:
    assert versions.names_modern("2026-07-28")
    assert versions.names_modern("2027-01-01")  # later: modern, then refused as unsupported by name
    assert not versions.names_modern("2025-11-25")
    assert not versions.names_modern("latest")
