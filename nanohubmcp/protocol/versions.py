"""MCP protocol versions: which exist, which we speak, and how an era is chosen.

A request belongs to the stateless era (2026-07-28) when its ``params._meta`` or its
``MCP-Protocol-Version`` header names that version or a later one; otherwise to the handshake era.

Source: MCP 2025-11-25, Basic § Lifecycle § Version negotiation; MCP 2026-07-28, Basic §
Versioning.
"""

from __future__ import annotations

V2024_11_05 = "2024-11-05"
V2025_03_26 = "2025-03-26"
V2025_06_18 = "2025-06-18"
V2025_11_25 = "2025-11-25"
V2026_07_28 = "2026-07-28"

HANDSHAKE_VERSIONS: tuple[str, ...] = (V2025_11_25, V2025_06_18, V2025_03_26, V2024_11_05)
"""Versions negotiated with ``initialize``, newest first."""
MODERN_VERSIONS: tuple[str, ...] = (V2026_07_28,)
"""Stateless versions carried in every request's ``_meta``, newest first."""
SUPPORTED_VERSIONS: tuple[str, ...] = MODERN_VERSIONS + HANDSHAKE_VERSIONS
"""Every version this server speaks, newest first."""

LATEST_HANDSHAKE = V2025_11_25
"""Answered to an ``initialize`` asking for an unknown or missing version."""
SESSIONLESS_DEFAULT = V2025_03_26
"""Assumed for a sessionless request with no version header (Transports § Protocol Version Header)."""


def other_era_hint(method: str, modern: bool, in_other_era: bool) -> str:
    """What a refusal of ``method`` in one era tells a client about the other ("" when nothing):
    a stateless request has no ``initialize`` (the spec asks a server to name its versions then),
    a method of the other era says how to reach it. ``modern``: the request's era is the stateless
    one; ``in_other_era``: the other era has ``method``.

    Source: MCP 2026-07-28, Basic § Versioning (an ``initialize`` sent to a stateless server)."""
    if modern and method == "initialize":
        return (
            f"{V2026_07_28} has no initialize; the MCP-Protocol-Version header (or a _meta protocol version) "
            "made this a stateless request. Send each request with params._meta carrying "
            "'io.modelcontextprotocol/protocolVersion' and 'io.modelcontextprotocol/clientCapabilities' "
            "(server/discover answers this server's versions and capabilities); or, for a session, send "
            f"initialize without that header. Versions: {', '.join(MODERN_VERSIONS)} per request; "
            f"{', '.join(HANDSHAKE_VERSIONS)} through initialize"
        )
    if not in_other_era:
        return ""
    if modern:
        return f"{method} is a method of the handshake era ({', '.join(HANDSHAKE_VERSIONS)}), not of {V2026_07_28}"
    return (
        f"{method} is a method of {V2026_07_28}: send it with params._meta carrying "
        f"'io.modelcontextprotocol/protocolVersion': '{V2026_07_28}' and 'io.modelcontextprotocol/clientCapabilities'"
    )


def negotiate(requested: object) -> ProtocolVersion:
    """Return the version to answer an ``initialize`` asking for ``requested``.

    The requested version is echoed when it is a handshake-era version we speak; anything
    else (missing, unknown, not a string, or a stateless version) gets the latest
    handshake-era version, as the spec requires (a normal result, not an error).
    """
    if isinstance(requested, str) and requested in HANDSHAKE_VERSIONS:
        return ProtocolVersion.of(requested)
    return ProtocolVersion.of(LATEST_HANDSHAKE)


def names_modern(value: str) -> bool:
    """True when a version string from the wire (a header, ``_meta``) names the stateless era:
    2026-07-28 or a later date, spoken here or not (a later one is then refused by name). A date is three
    runs of ASCII digits, of any length, joined by ``-``; anything else (``²-1-1``) is no date: False.

    .. versionchanged:: 1.0
       A part of other digits than ASCII (``²``) is no date, and one of more than 4,300 digits a later date
       (each raised ValueError, answered as the server's error, HTTP 500); the parts are compared without
       being converted."""
    if value in MODERN_VERSIONS:  # what every 2026-07-28 request names: no parsing per request
        return True
    parts = value.split("-")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
        return False
    return tuple(map(_ordered, parts)) >= _ORDERED_2026_07_28


def _ordered(digits: str) -> tuple[int, str]:
    """ASCII ``digits`` as a key ordered as their number (more significant digits first, then the digits
    themselves): no conversion, whose time grows with the square of a long text's length."""
    significant = digits.lstrip("0")
    return len(significant), significant


class ProtocolVersion(str):
    """A protocol version this server speaks: its date string, ordered by date, and what it allows.

    It is the version string itself (it compares equal to ``"2025-11-25"``, hashes like it and
    goes on the wire as it), so it can sit wherever a version string did; call sites ask for
    features by name (``version.structured_content``) instead of comparing dates. There is one
    instance per version (:meth:`of`), whose features are fixed when it is made: asking one is an
    attribute read.

    Attributes (each true from the version named on, per the MCP specification of that version):
        modern: stateless era (2026-07-28): no ``initialize``; every request carries its version
            in ``_meta``.
        batches: JSON-RPC batches (2024-11-05 and 2025-03-26 only; removed in 2025-06-18).
        progress_messages: ``notifications/progress`` may carry a ``message`` (2025-03-26).
        completions: the ``completions`` capability (2025-03-26).
        tool_annotations: tool ``annotations`` (readOnlyHint, …; 2025-03-26).
        resumable_streams: Streamable HTTP with event ids a client resumes from (2025-03-26).
        audio_content: ``audio`` content blocks (2025-03-26).
        structured_content: tool ``outputSchema`` / ``structuredContent`` (2025-06-18).
        titles: ``title`` on tools, resources and prompts (2025-06-18).
        resource_links: ``resource_link`` content blocks (2025-06-18).
        every_block: every content block type this server sends (``resource_link`` and ``audio``: a
            result needs no conversion for it; 2025-06-18).
        icons: ``icons`` on tools, resources and prompts (2025-11-25).
        argument_errors_as_tool_errors: invalid tool arguments are an ``isError`` result, not
            -32602 (SEP-1303, 2025-11-25).
        priming_events: a resumable SSE stream opens with an empty priming event (SEP-1699,
            2025-11-25).
        elicitation_modes: elicitation requests name their ``mode`` (form or URL; 2025-11-25).
        tasks: MCP Tasks as the handshake era has them (2025-11-25 only; an extension in
            2026-07-28).
        can_ask_client: the server may send the client requests of its own on a stream
            (elicitation, sampling, roots); the stateless era asks through multi round-trip
            results instead.
    """

    modern: bool
    batches: bool
    progress_messages: bool
    completions: bool
    tool_annotations: bool
    resumable_streams: bool
    audio_content: bool
    structured_content: bool
    titles: bool
    resource_links: bool
    every_block: bool
    icons: bool
    argument_errors_as_tool_errors: bool
    priming_events: bool
    elicitation_modes: bool
    tasks: bool
    can_ask_client: bool
    _known: dict[str, ProtocolVersion] = {}  # noqa: RUF012 - the interned instances, one per version

    @classmethod
    def of(cls, value: str) -> ProtocolVersion:
        """The version named ``value`` (one instance per version).

        Raises:
            ValueError: ``value`` is not a version this server speaks (:data:`SUPPORTED_VERSIONS`).
        """
        known = cls._known.get(value)
        if known is None:
            if value not in SUPPORTED_VERSIONS:
                raise ValueError(f"not a protocol version this server speaks: {value!r}")
            known = cls._known[value] = cls._make(value)
        return known

    @classmethod
    def _make(cls, value: str) -> ProtocolVersion:
        made = cls(value)
        date = made.date
        made.modern = value in MODERN_VERSIONS
        made.batches = value in BATCH_VERSIONS
        made.progress_messages = made.completions = made.tool_annotations = made.resumable_streams = (
            date >= _DATE_2025_03_26)
        made.audio_content = date >= _DATE_2025_03_26
        made.structured_content = made.titles = made.resource_links = date >= _DATE_2025_06_18
        made.every_block = made.resource_links and made.audio_content
        made.icons = made.argument_errors_as_tool_errors = made.priming_events = made.elicitation_modes = (
            date >= _DATE_2025_11_25)
        made.tasks = value == V2025_11_25
        made.can_ask_client = not made.modern
        return made

    @property
    def date(self) -> tuple[int, int, int]:
        """``(year, month, day)``: what the version is ordered by."""
        year, month, day = self.split("-")
        return int(year), int(month), int(day)

    def _other(self, other: object) -> tuple[int, int, int]:
        return (other if isinstance(other, ProtocolVersion) else ProtocolVersion.of(str(other))).date

    def __lt__(self, other: object) -> bool:
        return self.date < self._other(other)

    def __le__(self, other: object) -> bool:
        return self.date <= self._other(other)

    def __gt__(self, other: object) -> bool:
        return self.date > self._other(other)

    def __ge__(self, other: object) -> bool:
        return self.date >= self._other(other)

    __hash__ = str.__hash__
    __eq__ = str.__eq__


BATCH_VERSIONS: tuple[str, ...] = (V2024_11_05, V2025_03_26)
"""Protocol versions with JSON-RPC batches (removed in 2025-06-18)."""
_DATE_2025_03_26 = (2025, 3, 26)
_DATE_2025_06_18 = (2025, 6, 18)
_DATE_2025_11_25 = (2025, 11, 25)
_DATE_2026_07_28 = (2026, 7, 28)
_ORDERED_2026_07_28 = tuple(_ordered(part) for part in ("2026", "07", "28"))
