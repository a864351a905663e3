"""Provenance record ids: minted unguessable, typed back on command lines.

A record's id is the end of its URI; people paste it into ``nanohubmcp provenance export ID`` and
``%mcp history ID``. An id never begins with ``-`` (a command line would read it as an option);
:func:`id_words_last` lets those commands take one that does anyway (from a state directory
written before ids were minted so).
"""

from __future__ import annotations

import base64
import os
import re
import threading
from collections import deque
from collections.abc import Sequence

__all__ = ["IDS_AT_ONCE", "RecordIds", "id_words_last", "may_be_record_id"]

IDS_AT_ONCE = 1024
"""Record ids made from one read of the system's random source."""
RUN_BITS = 35
"""Bits of an id's run counter: its first character is then one of ``A``-``Z``, ``a``-``f``."""
_DASHED_ID = re.compile(r"-[A-Za-z0-9_-]{23}")
_RECORD_ID = re.compile(r"[A-Za-z0-9_-]{24}")


def may_be_record_id(text: str) -> bool:
    """Whether ``text`` has the form of a record id: 24 URL-safe base64 characters, as every version minted
    them (:class:`RecordIds`; before it 18 random bytes so encoded). Any other text names no record."""
    return _RECORD_ID.fullmatch(text) is not None


class RecordIds:
    """Unguessable record ids (24 URL-safe characters, never beginning with ``-``), made
    :data:`IDS_AT_ONCE` at a time from one read of ``os.urandom`` (a read per id cost more than the
    rest of a record's share of the call).

    An id is 6 characters naming its run of :data:`IDS_AT_ONCE` (a counter of :data:`RUN_BITS` bits
    from a random start per process, so one process's runs follow each other) and 18 random
    characters (108 bits: what makes it unguessable). A batch of records written together then
    lands on a few pages of the store's id index instead of one page per record.
    """

    def __init__(self) -> None:
        self.ready: deque[str] = deque()
        """Ids made and not handed out yet: a caller may pop one itself (``ready.pop()``; :meth:`next` when
        it is empty, which makes more)."""
        self._lock = threading.Lock()
        self._run = int.from_bytes(os.urandom(5), "big") >> (40 - RUN_BITS)
        self._first_run = self._run + 1

    def minted_here(self, record_id: str) -> bool:
        """Whether ``record_id`` was made by this object (its run is one of this process's runs: they
        follow each other from a random start, so another process's id is one only by a chance of
        about runs made / 2**35)."""
        if len(record_id) != 24:
            return False
        try:
            run = int.from_bytes(base64.urlsafe_b64decode("AA" + record_id[:6]), "big")
        except ValueError:
            return False
        runs_made = (self._run + 1 - self._first_run) % (1 << RUN_BITS)  # (0 before the first id)
        return (run - self._first_run) % (1 << RUN_BITS) < runs_made

    def next(self) -> str:
        while True:
            try:
                return self.ready.pop()
            except IndexError:
                with self._lock:
                    if not self.ready:
                        self._refill()

    def _refill(self) -> None:
        self._run = (self._run + 1) % (1 << RUN_BITS)
        # 6 bytes are 8 characters; the first two encode the 12 leading zero bits, the next one the
        # counter's top 6 bits, of which the first is 0: a character of A-Z, a-f, never - or _.
        run = base64.urlsafe_b64encode(self._run.to_bytes(6, "big"))[2:]
        # 18 random characters an id: a random byte each, its low 6 bits naming one of the 64 (256 is a
        # multiple of 64: each character equally likely, 108 bits an id).
        text = os.urandom(18 * IDS_AT_ONCE).translate(_URL_SAFE)
        # Laid out by strided copies, 25 bytes an id (its run, 18 random characters, a space), and split
        # once: base64 and a Python step per id (a slice and a concatenation) cost ~2.4k instructions a
        # record, more than the rest of minting it (bench/provenance.md, eleventh pass).
        out = bytearray(25 * IDS_AT_ONCE)
        for place in range(6):
            out[place::25] = run[place : place + 1] * IDS_AT_ONCE
        for place in range(18):
            out[6 + place :: 25] = text[place::18]
        out[24::25] = b" " * IDS_AT_ONCE
        # popped from the end: the run's ids in the order of their random part is as good as any
        self.ready.extend(out.decode("ascii").split())


_URL_SAFE = bytes(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[byte % 64] for byte in range(256))
"""``bytes.translate`` table: a byte to the URL-safe base64 character of its low 6 bits."""


def id_words_last(words: Sequence[str]) -> list[str]:
    """``words`` (a command's arguments) with a record id that begins with ``-`` moved to the end
    after ``--``, where argparse reads it as the positional it is instead of an unknown option.

    Only a whole 24-character id is moved, and only when ``--`` is not already given.
    """
    if "--" in words:
        return list(words)
    ids = [word for word in words if _DASHED_ID.fullmatch(word)]
    if not ids:
        return list(words)
    return [word for word in words if word not in ids] + ["--", *ids]
