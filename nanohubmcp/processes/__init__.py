"""The process around a serve: what starting, listening, stopping and exiting do to the process that serves.

Its port and listening sockets (``ports``, what holds a busy one: ``port_holders``); the stop signals a blocking
serve takes and puts back (``workers.stop_signals``, ``found_handlers``); the stop's drain (``drain``), the exit
grace and the exit within it (``exit_grace``, ``process_exit``, ``exit_watch``, ``process_end``); the start-up kept
out of the collector's full passes (``frozen_heap``) and a first ``tools/call``'s imports made while idle
(``warm_up``); the ``--workers`` parent and its forked workers (``supervisor``, ``workers``, ``early_stop``,
``restarts``).

Not this package's: the bytes of a message (the transports: stdio's stop runs ``drain`` as the HTTP runner's does)
and which server is served how (``nanohubmcp.serving``, whose runner starts and stops serving over HTTP and whose
``stdio_process`` runs a blocking stdio serve). It sits below the transports, so stdio and the runner both reach it,
and knows nothing of HTTP routes or handlers.
"""

from __future__ import annotations
