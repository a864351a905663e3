"""Command-line options every benchmark server shares: where to listen, and peer-specific switches."""

from __future__ import annotations

import argparse


def parse(extra: tuple[str, ...] = ()) -> argparse.Namespace:
    """``--host``/``--port`` (loopback, required port) plus the boolean flags named in ``extra``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    for flag in extra:
        parser.add_argument(f"--{flag}", action="store_true")
    return parser.parse_args()
