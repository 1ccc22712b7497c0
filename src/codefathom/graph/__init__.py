"""The code graph: imports resolved to files, references bound to the definitions they mean.

`rebind(store, changed_file_ids, names)` refreshes what a sync may have changed.
"""

from __future__ import annotations

from collections.abc import Iterable

from codefathom.graph.modules import resolve_import
from codefathom.graph.rank import pagerank
from codefathom.graph.resolve import Binder, label_for
from codefathom.graph.specs import spec_for
from codefathom.store.graph import (
    GraphLookup,
    drop_local_reads,
    rank_inputs,
    refs_to_rebind,
    save_bindings,
    save_import_targets,
    save_ranks,
)

__all__ = ["rebind", "rerank", "pagerank", "Binder", "label_for"]


def rebind(lookup: GraphLookup, file_ids: Iterable[int] | None, names: Iterable[str]) -> int:
    """Resolve the imports and re-bind the references a change may affect (all when file_ids is
    None); call inside the write transaction. Returns how many references were bound again."""
    ids = None if file_ids is None else sorted(set(file_ids))
    if ids is None:
        lookup.preload()
    imports = lookup.imports_needing_resolution(ids)
    targets = []
    for row in imports:
        target = resolve_import(lookup, row, spec_for(lookup.language_of(row.file_id)).module_system)
        targets.append((row.id, target.file_id, target.symbol_id, target.external, target.module))
    save_import_targets(lookup.conn, targets)
    lookup.forget_imports()  # the binder reads the resolutions just stored, for every file it visits
    binder = Binder(lookup)
    refs = refs_to_rebind(lookup.conn, ids, names)
    save_bindings(lookup.conn, (binder.bind(ref) for ref in refs))
    drop_local_reads(lookup.conn)
    return len(refs)


def rerank(lookup: GraphLookup) -> None:
    """Recompute PageRank of every file and symbol; call inside the write transaction."""
    files, file_edges, symbols, symbol_edges = rank_inputs(lookup.conn)
    save_ranks(lookup.conn, pagerank(files, file_edges), pagerank(symbols, symbol_edges))
