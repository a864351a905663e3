"""Provenance records of tool calls and jobs, their RO-Crate export, and the result cache.

- :mod:`.records`: the record store (memory, or ``provenance.sqlite3`` beside the job store) and its reads;
  :mod:`.record_writes`: how its records are made and written, in batches (:mod:`.writer`);
- :mod:`.capture`: a call's record made from what it handed over (:mod:`.handover`: the seam between the
  call path and the record writer), with :mod:`.result_text` (the result's wire text, digest and links),
  :mod:`.session_names` (whose it is), :mod:`.tool_facts` (what its tool and process share) and
  :mod:`.job_record` (a job's record, completed when the job ends);
  :mod:`.code_facts`: what it says of the tool's code and environment (code hash, versions), with
  :mod:`.distributions_read` (the installed distributions' table, read by a child process);
- :mod:`.layer`: the pipeline layer writing records and answering reads of their URIs;
  :mod:`.record_ids`: the ids it mints (never beginning with ``-``: they are typed on command lines);
- :mod:`.cache_store` / :mod:`.cache_layer`: the result cache of tools registered with ``cache=``;
  :mod:`.cache_front`: each process's in-memory front of recent hits; :mod:`.cache_key`: the
  canonical form of a call's arguments its key hashes;
- :mod:`.crate`: a record as an RO-Crate (needs the ``provenance`` extra: ``rocrate``).
"""

from __future__ import annotations
