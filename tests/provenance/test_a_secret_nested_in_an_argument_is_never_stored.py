"""A ``Secret`` nested inside an argument — a TypedDict field, a pydantic model field, the items of
``list[Secret]``, the values of ``dict[str, Secret]``, a field of a recursive TypedDict — is never
stored: the provenance record, the job store and an exported RO-Crate keep
``"[secret: not stored]"`` in its place, the function gets the value. Through a real server and
the official ``mcp`` client.

Found by a security trial (trial14 F8): only top-level ``Secret`` arguments were replaced; nested
ones sat in clear in ``provenance.sqlite3``, ``jobs.sqlite3`` and the crate's ``inputs.json``
although the input schema told clients they were passwords (and a pydantic model's ``Secret``
field lost even that marking).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any, TypedDict

import anyio
import pytest
from clients import official
from pydantic import BaseModel
from support import serve

from nanohubmcp import MCPServer, Secret, StaticTokenVerifier

pytestmark = pytest.mark.anyio
REDACTED = "[secret: not stored]"
VALUES = ("PW-NESTED-1", "TD-TOKEN-2", "LIST-KEY-3", "MAP-KEY-4", "TREE-KEY-5", "TREE-KEY-6", "JOB-PW-7")


class Login(TypedDict):
    user: str
    token: Secret


class Creds(BaseModel):
    user: str
    password: Secret


class Node(TypedDict):
    name: str
    key: Secret
    children: list[Node]


def make_server(state: Path, seen: list[Any]) -> MCPServer:
    server = MCPServer("nested-secrets", state_dir=str(state), auth=StaticTokenVerifier({"alice-token": "alice"}))

    @server.tool()
    def login(creds: Creds, td: Login, keys: list[Secret], by_host: dict[str, Secret], tree: Node) -> str:
        """Log in with nested credentials."""
        seen.append((creds.password, td["token"], keys, by_host, tree["key"], tree["children"][0]["key"]))
        return "ok"

    @server.async_tool()
    def fetch(creds: Creds, dataset: str) -> str:
        """Fetch a dataset with nested credentials, as a job."""
        seen.append(creds.password)
        return dataset

    return server


async def test_nested_secrets_stay_out_of_records_jobs_and_crates(tmp_path: Path) -> None:
    state = tmp_path / "state"
    seen: list[Any] = []
    server = make_server(state, seen)
    arguments = {
        "creds": {"user": "u", "password": "PW-NESTED-1"},
        "td": {"user": "u", "token": "TD-TOKEN-2"},
        "keys": ["LIST-KEY-3"],
        "by_host": {"hub": "MAP-KEY-4"},
        "tree": {
            "name": "root",
            "key": "TREE-KEY-5",
            "children": [{"name": "leaf", "key": "TREE-KEY-6", "children": []}],
        },
    }
    with serve(server) as url:
        async with official(url, "alice-token") as alice:
            listed = {tool.name: tool for tool in (await alice.list_tools()).tools}
            password = listed["login"].input_schema["properties"]["creds"]["properties"]["password"]
            assert password["format"] == "password"
            assert password["writeOnly"] is True
            called = await alice.call_tool("login", arguments)
            assert not called.is_error, called
            started = await alice.call_tool("fetch", {"creds": {"user": "u", "password": "JOB-PW-7"}, "dataset": "d"})
            job_id = started.structured_content["job_id"]
            deadline = time.monotonic() + 30
            while (polled := await alice.call_tool("get_job_result", {"job_id": job_id})).structured_content[
                "status"
            ] != "done":
                assert time.monotonic() < deadline, polled
                await anyio.sleep(0.02)
        record = server.core.provenance.find(called.meta["io.nanohub/provenance"].rsplit("/", 1)[1])
        crate = server.export_provenance(called.meta["io.nanohub/provenance"], tmp_path / "crate")
        job_crate = server.export_provenance(started.meta["io.nanohub/provenance"], tmp_path / "job-crate")
    assert seen == [
        ("PW-NESTED-1", "TD-TOKEN-2", ["LIST-KEY-3"], {"hub": "MAP-KEY-4"}, "TREE-KEY-5", "TREE-KEY-6"),
        "JOB-PW-7",
    ]  # the function got every value
    assert record is not None
    assert record["arguments"] == {
        "creds": {"user": "u", "password": REDACTED},
        "td": {"user": "u", "token": REDACTED},
        "keys": [REDACTED],
        "by_host": {"hub": REDACTED},
        "tree": {"name": "root", "key": REDACTED, "children": [{"name": "leaf", "key": REDACTED, "children": []}]},
    }
    files = [p for where in (state, crate, job_crate) for p in where.rglob("*") if p.is_file()]
    assert any(p.name.startswith("jobs.sqlite3") for p in files)
    assert any(p.name.startswith("provenance.sqlite3") for p in files)
    for path in files:
        data = path.read_bytes()
        for value in VALUES:
            assert value.encode() not in data, (value, path)


@dataclasses.dataclass
class Key:
    host: str
    key: Secret
    spare: Secret | None = None


class Holder:
    """A plain class whose annotation marks an attribute secret (no fields to walk)."""

    token: Secret

    def __init__(self, token: str) -> None:
        self.token = token

    def __str__(self) -> str:
        return f"Holder({self.token})"


OBJECT_VALUES = ("OBJ-PW-1", "OBJ-KEY-2", "OBJ-KEY-3", "OBJ-HOLD-4", "OBJ-JOB-5", "OBJ-JOB-6")


async def test_secrets_in_objects_given_to_server_call_stay_out_of_records_jobs_and_crates(tmp_path: Path) -> None:
    """``server.call`` may pass what a client cannot: a pydantic model or dataclass *instance*, any
    object (to a parameter typed ``Any``/``object``/``dict``). Its ``Secret`` fields were written
    as the record's JSON writer rendered the object (its ``str()``: the password in clear in
    ``provenance.sqlite3`` and the crate), and a job's arguments could not be stored at all (an
    internal error). Now the object's own annotations say what is secret."""
    state = tmp_path / "state"
    seen: list[Any] = []
    server = MCPServer("object-secrets", state_dir=str(state))

    @server.tool()
    def connect(creds: Any, keys: dict[str, Any], holder: object, plain: object) -> str:
        """Connect with credentials held in objects."""
        seen.append((creds.password, keys["a"].key, keys["b"][0].key, holder.token, plain))
        return "ok"

    @server.async_tool()
    def fetch(creds: Any, key: object) -> str:
        """Fetch with credentials held in objects, as a job."""
        seen.append((creds.password, key.key))
        return "fetched"

    server.start(port=0, quiet=True)
    try:
        called = await anyio.to_thread.run_sync(lambda: server.call("connect", {
            "creds": Creds(user="u", password="OBJ-PW-1"),
            "keys": {"a": Key("h", "OBJ-KEY-2"), "b": [Key("g", "OBJ-KEY-3", spare=None)]},
            "holder": Holder("OBJ-HOLD-4"),
            "plain": Path("/data/in.csv"),
        }))
        assert not called.is_error, called
        started = await anyio.to_thread.run_sync(lambda: server.call("fetch", {
            "creds": Creds(user="u", password="OBJ-JOB-5"), "key": Key("h", "OBJ-JOB-6")}))
        assert not started.is_error, started
        job_id = started.structured["job_id"]
        deadline = time.monotonic() + 30
        while (await anyio.to_thread.run_sync(lambda: server.call("get_job_result", {"job_id": job_id}))
               ).structured["status"] != "done":
            assert time.monotonic() < deadline
            await anyio.sleep(0.02)
        record = server.core.provenance.find(called["_meta"]["io.nanohub/provenance"].rsplit("/", 1)[1])
        crate = server.export_provenance(called["_meta"]["io.nanohub/provenance"], tmp_path / "crate")
        job_crate = server.export_provenance(started["_meta"]["io.nanohub/provenance"], tmp_path / "job-crate")
    finally:
        server.stop()
    assert seen == [("OBJ-PW-1", "OBJ-KEY-2", "OBJ-KEY-3", "OBJ-HOLD-4", Path("/data/in.csv")),
                    ("OBJ-JOB-5", "OBJ-JOB-6")]
    assert record is not None
    assert record["arguments"] == {
        "creds": {"user": "u", "password": REDACTED},
        "keys": {"a": {"host": "h", "key": REDACTED, "spare": None},
                 "b": [{"host": "g", "key": REDACTED, "spare": None}]},
        "holder": "[not stored: a Holder object]",
        "plain": "/data/in.csv",  # an object whose class marks nothing secret: its str(), as before
    }
    files = [p for where in (state, crate, job_crate) for p in where.rglob("*") if p.is_file()]
    assert any(p.name.startswith("jobs.sqlite3") for p in files)
    assert any(p.name.startswith("provenance.sqlite3") for p in files)
    for path in files:
        data = path.read_bytes()
        for value in OBJECT_VALUES:
            assert value.encode() not in data, (value, path)
