"""A result kept in memory (``job_store="memory"``, or a keep whose folder lock was not had in time) and read in parts
(``nanohubmcp://results/<token>?part=N``) encoded its whole text to UTF-8 for every part, on the event loop, to cut
one part out of it: a 60 MB text took 67 ms a part, 24 s of held loop for its 363 parts (review r32 F7). Now the
text is encoded once, at its first part read, and the parts are cut from those bytes; the parts still join to the
text, and the whole read still answers the text. A real :class:`ResultStore` without a folder; the text is a ``str``
subclass that counts its encodes (the store holds the object it was given)."""

from __future__ import annotations

import base64
from typing import Any

from nanohubmcp.server.results.kept_parts import part_count
from nanohubmcp.server.results.store import ResultStore

TEXT = ("abcdé€😀\ud83d\ude00\n" * 100_000)[:1_000_000]  # characters of 1 to 4 UTF-8 bytes, a surrogate pair too


class CountedText(str):
    """A text that counts how often it is encoded."""

    encodes = 0

    def encode(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
        CountedText.encodes += 1
        return super().encode(encoding, errors)


def parts(store: ResultStore, uri: str, size: int, textual: bool) -> list[dict[str, Any]]:
    count = part_count(size, None, textual)
    assert count > 2
    read = [store.read_part(uri, None, index, None, named=f"{uri}?part={index}") for index in range(count)]
    assert all(answer is not None for answer in read)
    return [answer["contents"][0] for answer in read if answer is not None]


def test_a_text_kept_in_memory_is_encoded_once_for_all_its_parts() -> None:
    store = ResultStore(ttl=600)
    text = CountedText(TEXT)
    size = len(TEXT.encode("utf-8", "surrogatepass"))
    uri = store.keep(text, "text/plain", ".txt", None)
    CountedText.encodes = 0
    items = parts(store, uri, size, textual=True)
    assert CountedText.encodes == 1, f"{CountedText.encodes} encodes of the whole text for {len(items)} parts"
    assert "".join(item["text"] for item in items) == TEXT
    whole = store.read(uri, None)
    assert whole is not None
    assert whole["contents"][0]["text"] == TEXT


def test_a_text_of_a_mime_type_read_as_bytes_is_encoded_once_and_still_reads_whole_as_text() -> None:
    store = ResultStore(ttl=600)
    text = CountedText(TEXT)
    encoded = TEXT.encode("utf-8", "surrogatepass")
    uri = store.keep(text, "image/svg+xml", ".svg", None)
    CountedText.encodes = 0
    items = parts(store, uri, len(encoded), textual=False)
    assert CountedText.encodes == 1, f"{CountedText.encodes} encodes of the whole text for {len(items)} parts"
    assert b"".join(base64.b64decode(item["blob"]) for item in items) == encoded
    whole = store.read(uri, None)
    assert whole is not None
    assert whole["contents"][0] == {"uri": uri, "mimeType": "image/svg+xml", "text": TEXT}


def test_bytes_kept_in_memory_read_in_parts_join_to_the_bytes() -> None:
    store = ResultStore(ttl=600)
    data = bytearray(range(256)) * 12_000
    uri = store.keep(data, "application/octet-stream", ".bin", None)
    items = parts(store, uri, len(data), textual=False)
    assert b"".join(base64.b64decode(item["blob"]) for item in items) == data
