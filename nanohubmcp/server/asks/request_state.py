"""``requestState`` for multi round-trip requests: signed, bound, short-lived, used once.

The state the server hands out with an ``input_required`` result travels through the client,
so it is attacker-controlled when it comes back. It is encoded as
``v1.<payload>.<mac>``: the payload is URL-safe base64 of a JSON object, the MAC is an
HMAC-SHA256 over ``v1.<payload>`` with the server's key (random per process unless the
server was given ``state_secret=``; several processes behind one URL must share it).

The payload binds the state to the caller it was issued to (the authenticated principal's
subject; anonymous callers share one empty binding) and to the request it belongs to (method,
tool/prompt name or resource URI, a digest of the arguments), carries an expiry, a nonce, the
answers the client gave in earlier rounds, and a digest of every input request the server issued
in the call so far (answered or asked with this state), so that an answer is applied only to the
request it answered. Signed, not encrypted: the client that gave the answers can read them (form
elicitation is never for secrets: MCP 2025-11-25, Client § Elicitation).
A state is refused when the MAC does not match, the format is wrong, it expired, it was issued
to another caller or belongs to another request, or it was already used once (replay; the
record of used nonces lasts until the state would have expired anyway, and is kept in the shared
state store when several processes serve one URL).

Source: MCP 2026-07-28, Basic § Patterns § Multi Round-Trip Requests (server requirements:
treat ``requestState`` as attacker-controlled, integrity-protect it, bind principal/expiry/
request, enforce single use server-side where it matters).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import ConfigurationError, InvalidParams
from ...protocol import jsonenc

VERSION = "v1"
DEFAULT_TTL_SECONDS = 600.0
"""How long a client may take to answer one round (10 minutes)."""
MAX_REMEMBERED = 100_000
"""Used nonces kept for replay detection (oldest forgotten first beyond this)."""
MIN_SECRET_BYTES = 16


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    padded = text + "=" * (-len(text) % 4)
    return base64.b64decode(padded, altchars=b"-_", validate=True)


_CANONICAL: dict[str, Any] = {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": True, "default": str}


def arguments_digest(arguments: object) -> str:
    """SHA-256 of the canonical JSON of ``arguments`` (sorted keys, no spaces), hex."""
    canonical = json.dumps(arguments, **_CANONICAL)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def arguments_digest_stepwise(arguments: object) -> str:
    """:func:`arguments_digest` of a large message's arguments, for a worker thread: the same text
    written and hashed piece by piece by the standard library's Python encoder, so the event loop's
    thread runs between pieces (the C encoder holds the GIL until the whole text is written: 1.5 s
    for a million arguments). About 1.5-3 times slower."""
    digest = hashlib.sha256()
    for piece in json.JSONEncoder(**_CANONICAL).iterencode(arguments):
        digest.update(piece.encode("ascii"))
    return digest.hexdigest()


def request_digest(method: str, params: object) -> str:
    """SHA-256 of an input request (its method and params) as canonical JSON, hex: what an answer
    is bound to."""
    return arguments_digest({"method": method, "params": params})


@dataclass(frozen=True)
class Round:
    """What a verified state carries: the ``answers`` of earlier rounds (key → result) and the
    ``issued`` input requests of the call so far (key → :func:`request_digest`)."""

    answers: dict[str, Any]
    issued: dict[str, str]


@dataclass(frozen=True)
class Binding:
    """What a state is bound to: ``method`` + ``name`` (tool/prompt name or URI) + arguments digest,
    and ``caller`` (the principal's subject; "" when the server does not authenticate)."""

    method: str
    name: str
    digest: str
    caller: str = ""


class RequestStateCodec:
    """Issues and verifies ``requestState`` strings for one server.

    Args:
        secret: the HMAC key (str or bytes, at least 16 bytes); None = random per process.
        ttl: seconds a state stays valid after it was issued.

    Raises:
        ConfigurationError: a secret shorter than 16 bytes or of the wrong type.
    """

    def __init__(self, secret: str | bytes | None = None, *, ttl: float = DEFAULT_TTL_SECONDS,
                 shared_consume: Callable[[str, float], bool] | None = None) -> None:
        if secret is None:
            key = secrets.token_bytes(32)
        elif isinstance(secret, str):
            key = secret.encode("utf-8")
        elif isinstance(secret, (bytes, bytearray)):
            key = bytes(secret)
        else:
            raise ConfigurationError("state_secret must be a str or bytes of at least 16 bytes")
        if len(key) < MIN_SECRET_BYTES:
            raise ConfigurationError(
                f"state_secret must be at least {MIN_SECRET_BYTES} bytes; use e.g. secrets.token_hex(32)")
        self._key = key
        self.ttl = ttl
        self._used: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()
        self.shared_consume = shared_consume
        """With several processes behind one URL: marks a nonce used in the store they share
        (``(nonce, expiry time) -> True`` when it was not used before), so a state is good for
        one retry on any of them."""

    def derived_key(self, purpose: bytes) -> bytes:
        """A 32-byte key for ``purpose`` (HMAC-SHA256 of it under this codec's key): shared as the key is (the
        ``state_secret``, or the shared state store's), so another process behind the URL derives the same."""
        return hmac.new(self._key, purpose, hashlib.sha256).digest()

    def _mac(self, signed: str) -> str:
        return _b64(hmac.new(self._key, signed.encode("ascii"), hashlib.sha256).digest())

    def issue(self, binding: Binding, answers: dict[str, Any], issued: Mapping[str, str] | None = None) -> str:
        """Sign a new state for ``binding`` carrying the ``answers`` gathered so far and the
        digests of the input requests ``issued`` in the call (key → :func:`request_digest`)."""
        payload = {
            "m": binding.method,
            "n": binding.name,
            "a": binding.digest,
            "p": binding.caller,
            "x": int(time.time() + self.ttl),
            "i": secrets.token_urlsafe(12),
            "r": answers,
            "q": dict(issued or {}),
        }
        body = _b64(jsonenc.dumpb(payload))
        signed = f"{VERSION}.{body}"
        return f"{signed}.{self._mac(signed)}"

    def verify(self, state: object, binding: Binding) -> Round:
        """Check ``state`` for ``binding``, mark it used, and return what it carries.

        Raises:
            InvalidParams: -32602 naming the reason (malformed, tampered, expired, issued to
                another caller or for another request, or already used).
        """
        if not isinstance(state, str) or state.count(".") != 2:
            raise InvalidParams("Invalid requestState: it is malformed; send back the exact value the "
                                "server returned, or retry without it")
        version, body, mac = state.split(".")
        if version != VERSION or not hmac.compare_digest(mac, self._mac(f"{version}.{body}")):
            raise InvalidParams("Invalid requestState: it failed the integrity check (tampered, or issued "
                                "by another server); retry the request without it")
        try:
            payload = json.loads(_unb64(body))
        except (ValueError, binascii.Error):
            raise InvalidParams("Invalid requestState: its payload cannot be read") from None
        if not isinstance(payload, dict):
            raise InvalidParams("Invalid requestState: its payload cannot be read")
        now = time.time()
        if not isinstance(payload.get("x"), int) or payload["x"] < now:
            raise InvalidParams("Invalid requestState: it expired; retry the request without it")
        if payload.get("p", "") != binding.caller:
            raise InvalidParams("Invalid requestState: it was issued to another caller; retry the request "
                                "without it")
        if (payload.get("m"), payload.get("n"), payload.get("a")) != (binding.method, binding.name,
                                                                     binding.digest):
            raise InvalidParams("Invalid requestState: it was issued for a different request (method, "
                                "name or arguments differ)")
        nonce = payload.get("i")
        if not isinstance(nonce, str) or not self._consume(nonce, float(payload["x"]), now):
            raise InvalidParams("Invalid requestState: it was already used; each state is good for one "
                                "retry")
        answers, issued = payload.get("r"), payload.get("q")
        return Round(answers if isinstance(answers, dict) else {},
                     {k: v for k, v in issued.items() if isinstance(v, str)} if isinstance(issued, dict) else {})

    def _consume(self, nonce: str, expires: float, now: float) -> bool:
        with self._lock:
            while self._used:
                oldest, when = next(iter(self._used.items()))
                if when >= now and len(self._used) < MAX_REMEMBERED:
                    break
                del self._used[oldest]
            if nonce in self._used:
                return False
            self._used[nonce] = expires
        return self.shared_consume is None or self.shared_consume(nonce, expires)
