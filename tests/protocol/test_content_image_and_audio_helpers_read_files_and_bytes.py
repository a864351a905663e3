"""``Image``/``Audio`` helpers and MIME sniffing, on real files written by the tests."""

from __future__ import annotations

import base64
import io
import pathlib
import struct
import wave
import zlib

import pytest

from nanohubmcp.protocol.content import (
    Audio,
    AudioContent,
    Image,
    ImageContent,
    guess_mime_type,
    sniff_mime_type,
)


def tiny_png() -> bytes:
    """A valid 1x1 RGBA PNG, built chunk by chunk."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00\xff")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def tiny_wav() -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x00" * 80)
    return buffer.getvalue()


def test_image_from_a_png_file(tmp_path: pathlib.Path) -> None:
    png = tiny_png()
    path = tmp_path / "plot.png"
    path.write_bytes(png)
    for image in (Image(path=str(path)), Image(path=path), Image(path)):
        content = image.to_content()
        assert isinstance(content, ImageContent)
        assert content.to_wire() == {
            "type": "image",
            "data": base64.b64encode(png).decode(),
            "mimeType": "image/png",
        }


def test_image_file_with_a_misleading_suffix_is_sniffed(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "figure.dat"
    path.write_bytes(tiny_png())
    assert Image(path=path).to_content().mime_type == "image/png"


def test_image_from_bytes_and_from_base64_text() -> None:
    png = tiny_png()
    assert Image(data=png).to_wire()["mimeType"] == "image/png"
    encoded = base64.b64encode(png).decode()
    assert Image(data=encoded).to_wire()["data"] == encoded  # the 0.4.x form
    assert Image(png, format="jpeg").to_wire()["mimeType"] == "image/jpeg"  # explicit format wins
    assert Image(png, format="JPG").to_wire()["mimeType"] == "image/jpeg"
    assert Image(png, None, "image/x-icon").to_wire()["mimeType"] == "image/x-icon"  # 0.4.x third argument
    assert Image(png, mimeType="image/webp").to_wire()["mimeType"] == "image/webp"
    wire = Image(png, annotations={"priority": 1}, meta={"m": 1}).to_wire()
    assert wire["annotations"] == {"priority": 1}
    assert wire["_meta"] == {"m": 1}


def test_image_validation() -> None:
    with pytest.raises(ValueError, match="exactly one of data"):
        Image()
    with pytest.raises(ValueError, match="exactly one of data"):
        Image(data=b"x", path="a.png")
    with pytest.raises(ValueError, match="not base64"):
        Image("plot.png")  # a path given as data: told how to fix it
    with pytest.raises(TypeError, match="data must be bytes"):
        Image(data=3.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="path must be"):
        Image(path=7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot tell the image format"):
        Image(data=b"plain bytes").to_content()


def test_missing_image_file_fails_when_the_content_is_built(tmp_path: pathlib.Path) -> None:
    image = Image(path=tmp_path / "absent.png")
    with pytest.raises(FileNotFoundError):
        image.to_content()


def test_audio_from_a_wav_file_and_bytes(tmp_path: pathlib.Path) -> None:
    wav = tiny_wav()
    path = tmp_path / "tone.wav"
    path.write_bytes(wav)
    content = Audio(path=path).to_content()
    assert isinstance(content, AudioContent)
    assert content.to_wire() == {
        "type": "audio",
        "data": base64.b64encode(wav).decode(),
        "mimeType": "audio/wav",
    }
    assert Audio(data=wav).to_wire()["mimeType"] == "audio/wav"
    assert Audio(data=b"ID3\x04rest", format="mp3").to_wire()["mimeType"] == "audio/mpeg"


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "image/png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
        (b"GIF87a\x01\x00", "image/gif"),
        (b"GIF89a\x01\x00", "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"RIFF\x00\x00\x00\x00WAVEfmt ", "audio/wav"),
        (b"ID3\x03\x00\x00", "audio/mpeg"),
        (b"\xff\xfb\x90\x00", "audio/mpeg"),
        (b"OggS\x00\x02", "audio/ogg"),
        (b"fLaC\x00\x00", "audio/flac"),
        (b"%PDF-1.7\n", "application/pdf"),
        (b"RIFF\x00\x00\x00\x00AVI LIST", None),
        (b"\xff\xf1\x50\x80", None),  # AAC ADTS: sync bits but layer 00
        (b"\xff\xf3\x48\xc4", "audio/mpeg"),  # MPEG-2 Layer III, 32 kbit/s, 16 kHz
        (b"\xff\xfd\x90\x00", "audio/mpeg"),  # MPEG-1 Layer II
        (b"\xff\xfe", None),  # the UTF-16 byte order mark: the sync bits, but no whole header
        (b"\xff\xfeh\x00i\x00", None),  # UTF-16 text: an MPEG-1 Layer I header, left out
        (b"\xff\xff\xff\xff", None),  # fill
        (b"\xff\xfb", None),  # half a header
        (b"\xff\xeb\x90\x00", None),  # version 01, reserved
        (b"\xff\xfb\xf0\x00", None),  # bitrate index 1111, invalid
        (b"\xff\xfb\x9c\x00", None),  # sample rate index 11, reserved
        (b"\xff\xfb\x90\x02", None),  # emphasis 10, reserved
        (b"hello world", None),
        (b"", None),
    ],
)
def test_magic_bytes(head: bytes, mime: str | None) -> None:
    assert sniff_mime_type(head) == mime
    assert sniff_mime_type(bytearray(head)) == mime


def test_real_files_are_sniffed() -> None:
    assert sniff_mime_type(tiny_png()) == "image/png"
    assert sniff_mime_type(memoryview(tiny_wav())) == "audio/wav"


@pytest.mark.parametrize(
    ("name", "mime"),
    [
        ("a.PNG", "image/png"),
        ("a.jpg", "image/jpeg"),
        ("a.webp", "image/webp"),
        ("a.wav", "audio/wav"),
        ("a.mp3", "audio/mpeg"),
        ("a.flac", "audio/flac"),
        ("a.csv", "text/csv"),
        ("noext", None),
    ],
)
def test_suffix_guessing(name: str, mime: str | None) -> None:
    assert guess_mime_type(name) == mime
    assert guess_mime_type(pathlib.Path("dir") / name) == mime


def test_helper_repr_stays_short() -> None:
    text = repr(Image(data=tiny_png() * 50))
    assert text.startswith("Image(data=b'\\x89PNG")
    assert len(text) < 80
