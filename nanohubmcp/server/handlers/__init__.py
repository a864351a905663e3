"""Method handlers: plain async functions over the core, one module per feature.

Each handler is ``async def handler(core, request, params) -> result dict`` and raises
:class:`~nanohubmcp.errors.ProtocolError` subclasses for client mistakes. The per-era method
tables that route to them are in :mod:`nanohubmcp.server.methods`; this package imports none of
its modules, so importing one handler module loads only what that module needs.
"""
