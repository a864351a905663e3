"""Asking the client for input: elicitation, sampling, roots, multi round-trip input requests, task inputs."""

from __future__ import annotations
