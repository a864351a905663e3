"""The encoder's use of a table's text block module is an import the import graph shows.

``protocol.jsonenc`` copies the escaped text of a table's text block (``protocol.escaped_text``) but never
loads that module first (a module more at every server's start). It used to find it in ``sys.modules`` by
name, which the cycle and layer checks (import-linter's graph, type-only and lazy imports counted) could not
see; it now imports it, once loaded, where the graph sees the edge. That it still does not load it at start
is ``test_a_served_script_imports_only_what_its_first_answer_needs``'s to check.
"""

from __future__ import annotations

import grimp


def test_the_graph_has_the_encoders_import_of_escaped_text() -> None:
    graph = grimp.build_graph("nanohubmcp", exclude_type_checking_imports=False, cache_dir=None)
    assert "nanohubmcp.protocol.escaped_text" in graph.find_modules_directly_imported_by("nanohubmcp.protocol.jsonenc")
