"""Command-line options every benchmark server shares: where to listen, and peer-specific switches."""

from __future__ import annotations

import argparse


def parse(extra: tuple[str, ...] = (), values: tuple[str, ...] = ()) -> argparse.Namespace:
    """``--host``/``--port`` (loopback, required port), the boolean flags named in ``extra`` and the
    string options named in ``values`` (default ``""``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    for flag in extra:
        parser.add_argument(f"--{flag}", action="store_true")
    for name in values:
        parser.add_argument(f"--{name}", default="")
    return parser.parse_args()
