"""The SQLite store: one file per project (WAL, FTS5) holding files, units and their search index.

`SQLiteStore.open(path, fingerprint)` (through `store.open_store`) gives the handle every other
stage reads and writes through; each method runs a function of this package under its lock.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import EllipsisType
from typing import Any, Self

from codefathom.model import FileFacts, FileState, MatchTerm, StoredUnit, Unit
from codefathom.store.base import Work, WritingLookup
from codefathom.store.errors import StoreError
from codefathom.store.matrices import drop_shared, shared_matrix
from codefathom.store.records import (
    DirectoryRow,
    FileRecord,
    IndexCounts,
    IsTest,
    NewSummary,
    PendingUnit,
    PreparedFacts,
    PreparedUnits,
    Scope,
    SummaryCandidate,
    SummaryCoverage,
    VectorMatrix,
)
from codefathom.store.sqlite import directories, graph, lookups, reads, summaries, vectors, writes
from codefathom.store.sqlite.db import MMAP_BYTES, REPARSE_HASH, connect
from codefathom.store.sqlite.digest import DIGEST_PARTS, index_digest
from codefathom.store.sqlite.errors import backend_errors
from codefathom.store.sqlite.fts import match_expression, quoted
from codefathom.store.sqlite.graph import SQLiteGraphLookup
from codefathom.store.sqlite.graph_reads import SQLiteGraphReads

__all__ = ["SQLiteStore"]


class SQLiteStore:
    """An open index. Thread-safe: one connection guarded by a lock (SQLite serialises anyway)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, rebuilt: str | None) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        self.path = path
        self.rebuilt_reason = rebuilt  # set when the file had to be recreated or re-parsed
        self.keeps_postings = False  # FTS5 makes them
        self._matrix: VectorMatrix | None = None
        self.graph = SQLiteGraphReads(conn, self._locked)  # the code graph's questions (see store/graph_reads.py)

    @classmethod
    def open(cls, path: Path, fingerprint: str, *, create: bool = True) -> SQLiteStore:
        with backend_errors():
            conn, rebuilt = connect(path, fingerprint, create=create)
        return cls(conn, path, rebuilt)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the connection; SQLite's errors raised meanwhile come out as StoreError."""
        with self._lock, backend_errors():
            yield

    def close(self) -> None:
        with self._locked():
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self, *, check_keys: bool = True) -> Iterator[None]:
        """All writes inside commit together or not at all (a killed process leaves the last commit).

        `check_keys=False` skips foreign-key enforcement, for filling an index that held no files
        when the sync began: every row then points at rows the same sync wrote, and nothing it
        deletes has dependents (a sixth of the graph's writing time on Django goes to the checks)."""
        with self._locked():
            if not check_keys:
                self._conn.execute("PRAGMA foreign_keys = OFF")  # a no-op once BEGIN has run
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
                self._conn.execute("COMMIT")
            finally:
                if not check_keys:
                    self._conn.execute("PRAGMA foreign_keys = ON")

    def hold(self, work: Work, timeout: float | None) -> bool:
        return True  # one machine: the service's file locks serialise the work

    def let_go(self, work: Work) -> None:
        pass

    def holder(self, work: Work) -> str:
        return ""

    def settle(self) -> None:
        return None

    def analyze(self) -> None:
        return None

    def caught_up(self, timeout: float) -> bool:
        return True

    def delete_project(self) -> None:
        raise StoreError("a SQLite index is deleted as its files, not row by row", damaged=False)

    @contextmanager
    def unmapped(self) -> Iterator[None]:
        """Read through SQLite's page cache (bounded), not the memory map, while inside: a sync reads
        most of a large index (binding, directory nodes), and every page read through the map stays
        in this process's memory, up to MMAP_BYTES (Django's sdist: 188 MB of a peak of 490)."""
        with self._locked():
            self._conn.execute("PRAGMA mmap_size = 0")
        try:
            yield
        finally:
            with self._locked():
                # The page cache filled up meanwhile: emptied, or the map's pages come on top of it.
                self._conn.execute("PRAGMA shrink_memory")
                self._conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")

    # writes: call inside transaction()
    def replace_file(
        self, record: FileRecord, units: Sequence[Unit] | PreparedUnits, file_id: int | None | EllipsisType = ...
    ) -> int:
        with backend_errors():
            return writes.replace_file(self._conn, record, units, file_id)

    def file_ids(self, paths: Iterable[str]) -> dict[str, int]:
        """Row ids of those of `paths` the index has; inside a transaction, exact for its duration."""
        with self._locked():
            return writes.file_ids(self._conn, paths)

    def replace_facts(
        self, file_id: int, facts: FileFacts | PreparedFacts, lookup: WritingLookup | None = None
    ) -> None:
        """The file's graph rows; a `lookup` that follows the writes (WritingLookup.follow) takes them."""
        with backend_errors():
            graph.replace_facts(self._conn, file_id, facts, lookup)

    def symbol_names_of(self, file_ids: Iterable[int]) -> set[str]:
        with self._locked():
            return graph.symbol_names_of(self._conn, file_ids)

    def missing_ref_indexes(self) -> list[str]:
        with self._locked():
            return graph.missing_ref_indexes(self._conn)

    def drop_ref_indexes(self) -> None:
        """Inside transaction(): see graph.REF_INDEXES."""
        with backend_errors():
            graph.drop_ref_indexes(self._conn)

    def create_ref_indexes(self) -> None:
        """Inside transaction(): see graph.REF_INDEXES."""
        with backend_errors():
            graph.create_ref_indexes(self._conn)

    def graph_lookup(self) -> SQLiteGraphLookup:
        """Reads for binding; use inside transaction() so the index holds still meanwhile."""
        return SQLiteGraphLookup(self._conn)

    def refresh_directories(self, file_ids: Iterable[int] | None, removed: Iterable[str], is_test: IsTest) -> int:
        """Rebuild the directory nodes of these changed files (all when None); inside transaction()."""
        with backend_errors():
            return directories.refresh_directories(self._conn, file_ids, removed, is_test)

    def touch_file(self, path: str, mtime_ns: int, size: int) -> None:
        with backend_errors():
            writes.touch_file(self._conn, path, mtime_ns, size)

    def remove_files(self, paths: Iterable[str]) -> int:
        with backend_errors():
            return writes.remove_files(self._conn, paths)

    def set_meta(self, key: str, value: str) -> None:
        with self._locked():
            self._conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # reads
    def get_meta(self, key: str) -> str | None:
        with self._locked():
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def file_states(self, paths: Iterable[str] | None = None) -> dict[str, FileState]:
        with self._locked():
            return reads.file_states(self._conn, paths)

    def has_files(self) -> bool:
        with self._locked():
            return self._conn.execute("SELECT 1 FROM files LIMIT 1").fetchone() is not None

    def file_stats(self) -> list[tuple[str, int, int]]:
        """(path, size, mtime_ns) of every file, as last seen on disk."""
        with self._locked():
            return reads.file_stats(self._conn)

    def file_paths(self) -> list[tuple[int, str]]:
        with self._locked():
            return reads.file_paths(self._conn)

    def definition_units(self, kinds: Sequence[str]) -> list[tuple[int, str, str, int, int, str, str]]:
        with self._locked():
            return reads.definition_units(self._conn, kinds)

    def term_units(self, terms: Sequence[str], cap: int) -> list[int]:
        with self._locked():
            return [reads.term_units(self._conn, term, cap) for term in terms]

    def fts_candidates(
        self, terms: Sequence[MatchTerm], weights: Sequence[float], scope: Scope, limit: int
    ) -> list[tuple[int, float]]:
        """Unit ids and BM25F scores (higher is better) of the units matching any of `terms`."""
        with self._locked():
            return reads.fts_candidates(self._conn, match_expression(terms), weights, scope, limit)

    def name_candidates(
        self, keys: Iterable[str], scope: Scope, limit: int, prefix: bool = False
    ) -> list[tuple[int, str, str, str]]:
        with self._locked():
            return reads.name_candidates(self._conn, keys, scope, limit, prefix)

    def units_by_id(
        self, ids: Iterable[int], with_rank: bool = False, with_content: bool = True
    ) -> dict[int, StoredUnit]:
        with self._locked():
            return reads.units_by_id(self._conn, ids, with_rank, with_content)

    # directory nodes (see store/sqlite/directories.py)
    def directory_candidates(
        self, terms: Sequence[MatchTerm], weights: Sequence[float], limit: int
    ) -> list[tuple[int, float]]:
        """Directory ids and BM25F scores (higher is better) of the directories matching any of `terms`."""
        with self._locked():
            return directories.directory_candidates(self._conn, match_expression(terms), weights, limit)

    def directories_by_id(self, ids: Iterable[int]) -> dict[int, DirectoryRow]:
        with self._locked():
            return directories.directories_by_id(self._conn, ids)

    def directory_count(self) -> int:
        with self._locked():
            return directories.directory_count(self._conn)

    def directories_holding(self, word: str, *, in_name: bool = False) -> set[int]:
        """Every directory whose text (with `in_name`, whose name) holds `word`."""
        with self._locked():
            return directories.directories_matching(self._conn, ("name : " if in_name else "") + quoted(word))

    def units_holding(self, word: str, ids: Sequence[int]) -> list[int]:
        """Those of the units `ids` whose text holds `word`."""
        with self._locked():
            return directories.rows_matching(self._conn, "units_fts", quoted(word), ids)

    # lookups (see store/sqlite/lookups.py)
    def indexed_files(self) -> list[tuple[int, str, str]]:
        """(id, path, language) of every file the index holds, by path (files it left out are not searched)."""
        with self._locked():
            return lookups.indexed_files(self._conn)

    def files_named(self, name: str) -> list[tuple[int, str, str]]:
        """(id, path, language) of the indexed files whose file name is `name` (any path)."""
        with self._locked():
            return lookups.files_named(self._conn, name)

    def files_holding(self, words: Sequence[str], texts: Sequence[str]) -> set[int]:
        """Ids of the files that may hold a line with all `words` and all `texts` (see store/sqlite/lookups.py)."""
        with self._locked():
            return lookups.files_holding(self._conn, words, texts)

    def unit_ids_of_file(self, file_id: int, lines: tuple[int, int] | None = None) -> list[int]:
        with self._locked():
            return lookups.unit_ids_of_file(self._conn, file_id, lines)

    def definitions_around(self, file_id: int, start: int, end: int) -> list[tuple[str, str, int, int]]:
        """(kind, qualified name, start, end) of the definitions holding lines start-end, innermost first."""
        with self._locked():
            return lookups.definitions_around(self._conn, file_id, start, end)

    def waiting_reparse(self) -> int:
        """Files whose facts came from another version's parsers and wait to be parsed again."""
        with self._locked():
            row = self._conn.execute("SELECT count(*) FROM files WHERE content_hash = ?", (REPARSE_HASH,)).fetchone()
            return int(row[0])

    def counts(self) -> IndexCounts:
        with self._locked():
            return reads.counts(self._conn)

    def digest(self, parts: tuple[str, ...] = DIGEST_PARTS) -> dict[str, str]:
        """What the index holds, part by part, independent of row ids (see store/sqlite/digest.py)."""
        with self._locked():
            return index_digest(self._conn, parts)

    # vectors (see store/sqlite/vectors.py)
    def pending_units(self) -> list[tuple[int, str, str, float]]:
        with self._locked():
            return vectors.pending_units(self._conn)

    def pending_in_files(self, file_ids: Sequence[int]) -> list[int]:
        with self._locked():
            return vectors.pending_in_files(self._conn, file_ids)

    def units_to_embed(self, ids: Sequence[int]) -> list[PendingUnit]:
        with self._locked():
            return vectors.units_to_embed(self._conn, ids)

    def cached_vectors(self, keys: Iterable[str]) -> set[str]:
        with self._locked():
            return vectors.cached_vectors(self._conn, keys)

    def store_vectors(self, new: dict[str, Any], links: Sequence[tuple[int, str]]) -> None:
        """Add vectors and link units to them, in a transaction of their own."""
        with self.transaction():
            vectors.store_vectors(self._conn, new, links)

    def forget_vectors(self) -> None:
        with self.transaction():
            vectors.forget_vectors(self._conn)
        self._matrix = None
        drop_shared(str(self.path))

    def prune_vectors(self, keep_unlinked: int) -> int:
        with self.transaction():
            return vectors.prune_vectors(self._conn, keep_unlinked)

    def vector_coverage(self) -> tuple[int, int]:
        """(units with a vector, all units)."""
        with self._locked():
            return vectors.coverage(self._conn)

    def vector_matrix(self, dims: int) -> VectorMatrix:
        """Every stored vector as one matrix, read again only when vectors or files changed."""
        with self._locked():
            epoch = vectors.vector_epoch(self._conn)
            if self._matrix is None or self._matrix.epoch != epoch or self._matrix.vectors.shape[1] != dims:
                self._matrix = shared_matrix(str(self.path), dims, epoch, lambda: vectors.load_matrix(self._conn, dims))
            return self._matrix

    def vector_index(self, dims: int) -> None:
        """None: the search scans the matrix (exact, and a few milliseconds at 100k units)."""
        return None

    # summaries (see store/sqlite/summaries.py)
    def summary_candidates(self, kinds: Sequence[str], model: str) -> list[SummaryCandidate]:
        with self._locked():
            return summaries.summary_candidates(self._conn, kinds, model)

    def store_summaries(self, model: str, new: Sequence[NewSummary]) -> int:
        """Cache summaries and make `model` the one shown, in a transaction of their own."""
        with self.transaction():
            refreshed = summaries.use_summary_model(self._conn, model)
            taken = summaries.store_summaries(self._conn, model, new)
        if refreshed or taken:
            self._matrix = None
            drop_shared(str(self.path))
        return taken

    def definition_summary(self, file_id: int, qualified_name: str, start_line: int) -> str:
        """The summary of the unit of a definition (its first part), '' without one."""
        with self._locked():
            return summaries.definition_summary(self._conn, file_id, qualified_name, start_line)

    def unit_summaries(self, ids: Sequence[int]) -> dict[int, str]:
        with self._locked():
            return summaries.unit_summaries(self._conn, ids)

    def summary_coverage(self, kinds: Sequence[str]) -> SummaryCoverage:
        with self._locked():
            return summaries.summary_coverage(self._conn, kinds)

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
