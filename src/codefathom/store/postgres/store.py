"""The PostgreSQL store: one project's index in a database many projects share, behind `store.Store`.

It writes and syncs an index exactly as the SQLite store does (same digest), searches by words and
names as SQLite does (search.py), answers the graph verbs, and keeps vectors (pgvector) and summaries.
Opened with a replica's URI (`store_read`), the questions a search or a graph verb asks go to it;
the sync's own reads stay on the primary, which it must see as it writes.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import EllipsisType
from typing import Any, Self

from codefathom.model import FileFacts, FileState, MatchTerm, StoredUnit, Unit
from codefathom.store.base import Work, WritingLookup
from codefathom.store.matrices import drop_shared, shared_matrix
from codefathom.store.postgres import directories, search, summaries, vectors
from codefathom.store.postgres.db import (
    LOCK_SPACE,
    REPARSE_HASH,
    WORK_SPACES,
    Conn,
    backend_errors,
    connect,
    describe,
    migrate,
    open_project,
    project_names,
    psycopg,
)
from codefathom.store.postgres.digest import DIGEST_PARTS, index_digest
from codefathom.store.postgres.graph import PostgresGraphLookup
from codefathom.store.postgres.graph_reads import PostgresGraphReads
from codefathom.store.postgres.pending import FLUSH_ROWS, IdBlocks, PendingWrites
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
    prepare_facts,
    prepare_units,
)

__all__ = ["PostgresStore"]

_SYNC_POLL_S = 0.2
REPLAY_POLL_S = 0.05  # how often `caught_up` asks the standby how far it has replayed
# What a search reads, vacuumed after a sync that wrote many units (`settle`).
SEARCHED_TABLES = ("unit_postings", "unit_sizes", "directory_postings", "directory_sizes", "units", "files")
GRAPH_TABLES = ("files", "symbols", "refs", "imports", "hints")  # what the binding reads (`analyze`)
# What other rows' foreign keys point at. PostgreSQL plans a key's check once a session: planned
# while the statistics say the table is empty (a database whose projects were all cleared and then
# vacuumed), the check scans the whole table for every row written, and goes on scanning it as it
# grows. So these are analysed again each time the rows a store has written to them double, from
# KEYED_ANALYZE_FROM (java.base's first index after such a clear: 48-57 s before, 37-41 s after).
KEYED_TABLES = ("files", "units", "symbols")
KEYED_ANALYZE_FROM = 1000

_UNIT_COLUMNS = (
    "u.id, f.path, u.kind, u.name, u.qualified_name, u.parent, u.signature, u.doc, u.language,"
    " u.start_line, u.end_line, u.part, u.content"
)



class PostgresStore:
    """One project's index in a PostgreSQL database. Thread-safe: one connection behind a lock.

    Writes run in `transaction()`, which holds the project's advisory lock until it commits, so
    writers of one project take turns across processes and machines; reads take no lock and never
    wait for a writer (they see the last commit). With a `reader` (a replica's connection), the
    answers' reads (`_reading`) go to it, behind a lock of its own: they see what the replica has
    replayed so far."""

    def __init__(
        self, conn: Conn, uri: str, project: int, name: str, rebuilt: str | None, reader: Conn | None = None
    ) -> None:
        self._conn = conn
        self._uri = uri
        self._lock = threading.RLock()
        self._replica = reader
        self._reader = reader if reader is not None else conn
        self._read_lock = threading.RLock() if reader is not None else self._lock
        self.project_id = project
        self.name = name
        self.location = f"{describe(uri)}#{name}"
        self.path = Path(self.location)  # (no file: where it lives, as a name)
        self.rebuilt_reason = rebuilt
        self.keeps_postings = True
        self._graph = PostgresGraphReads(self._reader, project, self._reading)
        self._matrix: VectorMatrix | None = None
        self._vector_index: tuple[tuple[str, int], vectors.PostgresVectorIndex | None] | None = None
        self._pending = PendingWrites()
        self._ids = IdBlocks()
        self._keyed_written = 0  # rows this store wrote to KEYED_TABLES, and how many when it last analysed them
        self._keyed_analysed = 0

    @classmethod
    def open(
        cls, uri: str, fingerprint: str, *, project: str, root: str = "", create: bool = True,
        read_uri: str | None = None,
    ) -> PostgresStore:
        """The index of `project` in the database at `uri`, the schema migrated and the project's
        row made first when missing (unless not `create`); searches read from `read_uri` when given
        (a replica: the project's id is the primary's, as replication copies rows as they are)."""
        conn = connect(uri)
        try:
            with backend_errors():
                migrate(conn)
                project_id, rebuilt = open_project(conn, project, root, fingerprint, create=create)
            reader = connect(read_uri, read_only=True, replica=True) if read_uri else None
        except BaseException:
            conn.close()
            raise
        return cls(conn, uri, project_id, project, rebuilt, reader)

    @staticmethod
    def project_names(uri: str) -> list[str]:
        """The names of the projects the database at `uri` holds."""
        return project_names(uri)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Around every use of the connection but the writes held back: those reach it first."""
        with self._lock, backend_errors():
            self._flush()
            yield

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Around a read that answers a question (`self._reader`): the replica's lock, or the store's."""
        with self._read_lock, backend_errors():
            if self._replica is None:
                self._flush()
            yield

    @contextmanager
    def _buffering(self, file_id: int | None, *, facts: bool = False) -> Iterator[None]:
        """Around a write held back (see pending.py): sent at once outside a transaction, or when
        the rows held grow past FLUSH_ROWS."""
        with self._lock, backend_errors():
            if self._pending.holds(file_id, facts=facts):
                self._flush()
            yield
            if not self._in_transaction() or self._pending.rows >= FLUSH_ROWS:
                self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        # Taken first: rows a failed flush held are gone with the transaction (a savepoint in one).
        pending, self._pending = self._pending, PendingWrites()
        with self._conn.transaction():
            pending.flush(self._conn, self.project_id)
        self._keyed_written += len(pending.new_files) + len(pending.units) + len(pending.symbols)

    @property
    def graph(self) -> PostgresGraphReads:
        """The code graph's questions, kept to this project (see store/postgres/graph_reads.py)."""
        return self._graph

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        if self._replica is not None:
            with self._read_lock:
                self._replica.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _in_transaction(self) -> bool:
        return self._conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    @contextmanager
    def transaction(self, *, check_keys: bool = True) -> Iterator[None]:
        """All writes inside commit together or not at all, under the project's advisory lock.
        (`check_keys` is SQLite's: PostgreSQL's foreign keys cost little, and stay on.)"""
        with self._locked():
            with self._conn.transaction():
                self._conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, self.project_id))
                try:
                    yield
                    self._flush()
                except BaseException:
                    self._pending = PendingWrites()  # (its rows were this transaction's: rolled back)
                    raise
            if not self._in_transaction():
                self._keep_key_statistics()

    def _keep_key_statistics(self) -> None:
        """KEYED_TABLES analysed when the rows this store wrote to them have doubled since it last did."""
        written = self._keyed_written
        if written >= KEYED_ANALYZE_FROM and written >= 2 * self._keyed_analysed:
            self._conn.execute(f"ANALYZE {', '.join(KEYED_TABLES)}")
            self._keyed_analysed = written

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A write on its own commits under the lock too; inside transaction() it joins it."""
        with self._locked():
            if self._in_transaction():
                yield
                return
        with self.transaction():
            yield

    @contextmanager
    def unmapped(self) -> Iterator[None]:
        """Nothing to do: the server's cache is not this process's memory."""
        yield

    def hold(self, work: Work, timeout: float | None) -> bool:
        """A session-level advisory lock on the project, in `work`'s space, polled
        (`pg_try_advisory_lock`) so that a wait can end; the server drops it when this connection
        ends, however the process ends."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._locked():
                row = self._conn.execute(
                    "SELECT pg_try_advisory_lock(%s, %s)", (WORK_SPACES[work], self.project_id)
                ).fetchone()
            if row is not None and row[0]:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(_SYNC_POLL_S)

    def let_go(self, work: Work) -> None:
        if self._conn.closed:
            return  # (the server let go with the connection)
        with self._locked():
            self._conn.execute("SELECT pg_advisory_unlock(%s, %s)", (WORK_SPACES[work], self.project_id))

    def holder(self, work: Work) -> str:
        with self._locked():
            row = self._conn.execute(
                "SELECT a.pid, coalesce(host(a.client_addr), 'a local socket'), a.application_name"
                " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                " WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = %s AND l.objid::bigint = %s"
                " AND l.objsubid = 2 AND l.pid != pg_backend_pid() LIMIT 1",
                (WORK_SPACES[work], self.project_id),
            ).fetchone()
        if row is None:
            return ""
        return f"server process {row[0]}, a client at {row[1]}" + (f" ({row[2]})" if row[2] else "")

    def settle(self) -> None:
        """VACUUM (ANALYZE) the tables a search reads: a bulk insert leaves their pages not yet
        all-visible, and until a vacuum marks them the postings' index-only reads visit the heap
        (gson: a search's p50 24.4 ms right after its first index, 18.8 ms after this 0.2 s)."""
        with self._locked():
            self._conn.execute(f"VACUUM (ANALYZE) {', '.join(SEARCHED_TABLES)}")

    def analyze(self) -> None:
        with self._locked():
            self._conn.execute(f"ANALYZE {', '.join(GRAPH_TABLES)}")

    def caught_up(self, timeout: float) -> bool:
        """With `store_read`, wait until the standby has replayed the primary's WAL as it is now, so
        that this process reads what it just wrote (a new database's tables included). A read side
        that is not a standby (a copy) has nothing to replay."""
        if self._replica is None:
            return True
        with self._locked():
            row = self._conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
        written = str(row[0]) if row else None
        deadline = time.monotonic() + timeout
        while True:
            with self._reading():
                row = self._reader.execute(
                    "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn() >= %s::pg_lsn", (written,)
                ).fetchone()
            if row is None or not row[0] or row[1]:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(REPLAY_POLL_S)

    # -- writes: inside transaction() -----------------------------------------------------------

    def replace_file(
        self, record: FileRecord, units: Sequence[Unit] | PreparedUnits, file_id: int | None | EllipsisType = ...
    ) -> int:
        """Held with the rest of the batch until a read or the transaction's end (see pending.py)."""
        prepared = units if isinstance(units, PreparedUnits) else prepare_units(record.path, units)
        if file_id is ...:
            file_id = self.file_ids([record.path]).get(record.path)
        with self._buffering(file_id):
            new = file_id is None
            if file_id is None:
                file_id = self._ids.take(self._conn, "files", 1)
            first = self._ids.take(self._conn, "units", len(prepared.units))
            self._pending.add_file(self.project_id, record, prepared, file_id, first, new=new)
            return file_id

    def file_ids(self, paths: Iterable[str]) -> dict[str, int]:
        wanted = list(paths)
        if not wanted:
            return {}
        with self._locked():
            rows = self._conn.execute(
                "SELECT path, id FROM files WHERE project_id = %s AND path = ANY(%s)", (self.project_id, wanted)
            )
            return {str(path): int(file_id) for path, file_id in rows}

    def replace_facts(
        self, file_id: int, facts: FileFacts | PreparedFacts, lookup: WritingLookup | None = None
    ) -> None:
        """The file's graph rows become `facts` (its old symbols go, so refs to them lose their
        target). A `lookup` that follows the writes takes the rows, with their ids."""
        rows = facts if isinstance(facts, PreparedFacts) else prepare_facts(facts)
        following = lookup is not None and lookup.following
        with self._buffering(file_id, facts=True):
            first = {
                table: self._ids.take(self._conn, table, len(getattr(rows, table)))
                for table in ("symbols", "refs", "imports")
            }
            self._pending.add_facts(self.project_id, file_id, rows, first, replacing=not following)
            if lookup is not None and following:
                lookup.take(file_id, rows, first["symbols"], first["refs"], first["imports"])
                if isinstance(lookup, PostgresGraphLookup):  # (a first index: see hold_refs)
                    self._pending.refs = lookup.hold_refs(self._pending.refs)

    def symbol_names_of(self, file_ids: Iterable[int]) -> set[str]:
        with self._locked():
            rows = self._conn.execute(
                "SELECT DISTINCT name FROM symbols WHERE file_id = ANY(%s)", (sorted(set(file_ids)),)
            )
            return {str(row[0]) for row in rows}

    # A first SQLite index drops the references' indexes and builds them at the end; here they are
    # shared by every project of the database, so they stay (and none is ever missing).
    def missing_ref_indexes(self) -> list[str]:
        return []

    def drop_ref_indexes(self) -> None:
        pass

    def create_ref_indexes(self) -> None:
        pass

    def graph_lookup(self) -> PostgresGraphLookup:
        """Reads for binding; use inside transaction() so the project holds still meanwhile."""
        return PostgresGraphLookup(self._conn, self.project_id, self._uri)

    def refresh_directories(self, file_ids: Iterable[int] | None, removed: Iterable[str], is_test: IsTest) -> int:
        with self._locked():
            return directories.refresh_directories(self._conn, self.project_id, file_ids, removed, is_test)

    def touch_file(self, path: str, mtime_ns: int, size: int) -> None:
        with self._writing():
            self._conn.execute(
                "UPDATE files SET mtime_ns = %s, size = %s WHERE project_id = %s AND path = %s",
                (mtime_ns, size, self.project_id, path),
            )

    def remove_files(self, paths: Iterable[str]) -> int:
        with self._writing():
            ids = sorted(self.file_ids(paths).values())
            if ids:
                # Units go with their files (ON DELETE CASCADE), their texts with them.
                self._conn.execute("DELETE FROM files WHERE id = ANY(%s)", (ids,))
            return len(ids)

    def set_meta(self, key: str, value: str) -> None:
        with self._writing():
            self._conn.execute(
                "INSERT INTO meta(project_id, key, value) VALUES (%s, %s, %s)"
                " ON CONFLICT (project_id, key) DO UPDATE SET value = excluded.value",
                (self.project_id, key, value),
            )

    def delete_project(self) -> None:
        """Every row of the project, and the project itself (`codefathom clear`); the handle is closed."""
        with self.transaction():
            self._conn.execute("DELETE FROM projects WHERE id = %s", (self.project_id,))
        self.close()

    # -- reads --------------------------------------------------------------------------------

    def _all(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        """Rows of a query whose first parameter is the project."""
        with self._locked():
            return self._conn.execute(sql, (self.project_id, *params)).fetchall()

    def _one(self, sql: str, *params: object) -> Any:
        rows = self._all(sql, *params)
        return rows[0][0] if rows else None

    def _read_all(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        """`_all` for a question's read, on the replica when there is one."""
        with self._reading():
            return self._reader.execute(sql, (self.project_id, *params)).fetchall()

    def _read_one(self, sql: str, *params: object) -> Any:
        rows = self._read_all(sql, *params)
        return rows[0][0] if rows else None

    def get_meta(self, key: str) -> str | None:
        value = self._one("SELECT value FROM meta WHERE project_id = %s AND key = %s", key)
        return None if value is None else str(value)

    def file_states(self, paths: Iterable[str] | None = None) -> dict[str, FileState]:
        sql = "SELECT id, path, content_hash, mtime_ns, size, language, status FROM files WHERE project_id = %s"
        rows = self._all(sql) if paths is None else self._all(sql + " AND path = ANY(%s)", list(paths))
        return {row[1]: FileState(*row) for row in rows}

    def has_files(self) -> bool:
        return self._one("SELECT 1 FROM files WHERE project_id = %s LIMIT 1") is not None

    def file_stats(self) -> list[tuple[str, int, int]]:
        return [(r[0], int(r[1]), int(r[2])) for r in self._all(
            "SELECT path, size, mtime_ns FROM files WHERE project_id = %s"
        )]

    def file_paths(self) -> list[tuple[int, str]]:
        return [(int(r[0]), r[1]) for r in self._all(
            "SELECT id, path FROM files WHERE project_id = %s AND status != 'skipped' ORDER BY id"
        )]

    def definition_units(self, kinds: Sequence[str]) -> list[tuple[int, str, str, int, int, str, str]]:
        rows = self._read_all(
            "SELECT u.id, f.path, u.qualified_name, u.start_line, u.end_line, u.language, u.content"
            " FROM units u JOIN files f ON f.id = u.file_id WHERE u.project_id = %s AND u.kind = ANY(%s)"
            " AND u.part = 0 ORDER BY f.path, u.start_line, u.id",
            list(kinds),
        )
        return [(int(r[0]), r[1], r[2], int(r[3]), int(r[4]), r[5], r[6]) for r in rows]

    def term_units(self, terms: Sequence[str], cap: int) -> list[int]:
        with self._reading():
            return search.term_units(self._reader, self.project_id, terms, cap)

    def fts_candidates(
        self, terms: Sequence[MatchTerm], weights: Sequence[float], scope: Scope, limit: int
    ) -> list[tuple[int, float]]:
        """Unit ids and BM25F scores (higher is better) of the units matching any of `terms`, as
        SQLite's FTS5 ranks them (store/postgres/search.py)."""
        with self._reading():
            return search.unit_candidates(self._reader, self.project_id, terms, weights, scope, limit)

    def name_candidates(
        self, keys: Iterable[str], scope: Scope, limit: int, prefix: bool = False
    ) -> list[tuple[int, str, str, str]]:
        with self._reading():
            return search.name_candidates(self._reader, self.project_id, keys, scope, limit, prefix)

    def units_by_id(
        self, ids: Iterable[int], with_rank: bool = False, with_content: bool = True
    ) -> dict[int, StoredUnit]:
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        # A unit's rank: its definition's (the best of several), else its file's.
        rank = summaries.UNIT_RANK_OF_ONE if with_rank else "0.0"
        columns = _UNIT_COLUMNS if with_content else _UNIT_COLUMNS.replace("u.content", "''")
        rows = self._read_all(
            f"SELECT {columns}, {rank} FROM units u JOIN files f ON f.id = u.file_id"
            " WHERE u.project_id = %s AND u.id = ANY(%s)",
            wanted,
        )
        result: dict[int, StoredUnit] = {}
        for row in rows:
            unit = Unit(
                kind=row[2], name=row[3], qualified_name=row[4], parent=row[5], signature=row[6], doc=row[7],
                language=row[8], start_line=row[9], end_line=row[10], part=row[11], content=row[12],
            )
            result[int(row[0])] = StoredUnit(int(row[0]), row[1], unit, float(row[13] or 0.0))
        return result

    # -- directory nodes ------------------------------------------------------------------------

    def directory_candidates(
        self, terms: Sequence[MatchTerm], weights: Sequence[float], limit: int
    ) -> list[tuple[int, float]]:
        """Directory ids and BM25F scores (higher is better) of the directories matching any of `terms`."""
        with self._reading():
            return search.directory_candidates(self._reader, self.project_id, terms, weights, limit)

    def directories_by_id(self, ids: Iterable[int]) -> dict[int, DirectoryRow]:
        rows = self._read_all(
            "SELECT id, path, file_count, languages, files, description, summary, rank FROM directories"
            " WHERE project_id = %s AND id = ANY(%s)",
            sorted(set(ids)),
        )
        return {
            int(r[0]): DirectoryRow(int(r[0]), r[1], int(r[2]), json.loads(r[3]), tuple(json.loads(r[4])), r[5], r[6],
                                    float(r[7]))
            for r in rows
        }

    def directory_count(self) -> int:
        return int(self._read_one("SELECT count(*) FROM directories WHERE project_id = %s"))

    def directories_holding(self, word: str, *, in_name: bool = False) -> set[int]:
        """Every directory whose text (with `in_name`, whose name) holds `word`."""
        with self._reading():
            return search.directories_holding(self._reader, self.project_id, word, in_name=in_name)

    def units_holding(self, word: str, ids: Sequence[int]) -> list[int]:
        """Those of the units `ids` whose text holds `word`."""
        with self._reading():
            return search.units_holding(self._reader, self.project_id, word, ids)

    # -- lookups --------------------------------------------------------------------------------

    def indexed_files(self) -> list[tuple[int, str, str]]:
        rows = self._read_all(
            "SELECT id, path, language FROM files WHERE project_id = %s AND status != 'skipped' ORDER BY path"
        )
        return [(int(r[0]), r[1], r[2]) for r in rows]

    def files_named(self, name: str) -> list[tuple[int, str, str]]:
        rows = self._read_all(
            "SELECT id, path, language FROM files WHERE project_id = %s AND status != 'skipped'"
            " AND (path = %s OR right(path, %s) = %s) ORDER BY path",
            name, len(name) + 1, "/" + name,
        )
        return [(int(r[0]), r[1], r[2]) for r in rows]

    def files_holding(self, words: Sequence[str], texts: Sequence[str]) -> set[int]:
        """Ids of the files that may hold a line with all `words` and all `texts` (see store/sqlite/lookups.py)."""
        with self._reading():
            return search.files_holding(self._reader, self.project_id, words, texts)

    def unit_ids_of_file(self, file_id: int, lines: tuple[int, int] | None = None) -> list[int]:
        first, last = lines or (-(2**31), 2**31 - 1)
        with self._reading():
            rows = self._reader.execute(
                "SELECT id FROM units WHERE file_id = %s AND start_line BETWEEN %s AND %s ORDER BY start_line, id",
                (file_id, first, last),
            )
            return [int(r[0]) for r in rows]

    def definitions_around(self, file_id: int, start: int, end: int) -> list[tuple[str, str, int, int]]:
        with self._reading():
            rows = self._reader.execute(
                "SELECT kind, qualified_name, start_line, end_line FROM symbols WHERE file_id = %s"
                " AND kind != 'module' AND start_line <= %s AND end_line >= %s"
                " ORDER BY end_line - start_line, start_line DESC, id",
                (file_id, start, end),
            )
            return [(r[0], r[1], int(r[2]), int(r[3])) for r in rows]

    def waiting_reparse(self) -> int:
        return int(self._one("SELECT count(*) FROM files WHERE project_id = %s AND content_hash = %s", REPARSE_HASH))

    def counts(self) -> IndexCounts:
        files = int(self._read_one("SELECT count(*) FROM files WHERE project_id = %s AND status != 'skipped'"))
        units = int(self._read_one("SELECT count(*) FROM units WHERE project_id = %s"))
        by_language = {r[0]: int(r[1]) for r in self._read_all(
            "SELECT language, count(*) FROM files WHERE project_id = %s AND status != 'skipped' GROUP BY language"
            " ORDER BY 2 DESC, 1"
        )}
        by_status = {r[0]: int(r[1]) for r in self._read_all(
            "SELECT status, count(*) FROM files WHERE project_id = %s GROUP BY status ORDER BY 1"
        )}
        problems = [(r[0], r[1], r[2] or "") for r in self._read_all(
            "SELECT path, status, error FROM files WHERE project_id = %s AND status IN ('partial', 'failed', 'skipped')"
            " ORDER BY status, path LIMIT 20"
        )]
        return IndexCounts(files, units, by_language, by_status, problems)

    def digest(self, parts: tuple[str, ...] = DIGEST_PARTS) -> dict[str, str]:
        """What the project holds, part by part, independent of row ids (equal to SQLite's digest)."""
        with self._locked():
            return index_digest(self._conn, self.project_id, parts)

    # -- vectors (see store/postgres/vectors.py) -------------------------------------------------

    def pending_units(self) -> list[tuple[int, str, str, float]]:
        with self._locked():
            return vectors.pending_units(self._conn, self.project_id)

    def pending_in_files(self, file_ids: Sequence[int]) -> list[int]:
        with self._locked():
            return vectors.pending_in_files(self._conn, self.project_id, file_ids)

    def units_to_embed(self, ids: Sequence[int]) -> list[PendingUnit]:
        with self._locked():
            return vectors.units_to_embed(self._conn, self.project_id, ids)

    def cached_vectors(self, keys: Iterable[str]) -> set[str]:
        with self._locked():
            return vectors.cached_vectors(self._conn, self.project_id, keys)

    def store_vectors(self, new: dict[str, Any], links: Sequence[tuple[int, str]]) -> None:
        """Add vectors and link units to them, in a transaction of their own."""
        with self.transaction():
            vectors.store_vectors(self._conn, self.project_id, new, links)

    def forget_vectors(self) -> None:
        with self.transaction():
            vectors.forget_vectors(self._conn, self.project_id)
        self._matrix = None
        self._vector_index = None
        drop_shared(self.location)

    def prune_vectors(self, keep_unlinked: int) -> int:
        with self.transaction():
            return vectors.prune_vectors(self._conn, self.project_id, keep_unlinked)

    def vector_coverage(self) -> tuple[int, int]:
        """(units with a vector, all units)."""
        with self._locked():
            return vectors.coverage(self._conn, self.project_id)

    def vector_matrix(self, dims: int) -> VectorMatrix:
        """Every stored vector as one matrix, read again only when vectors or files changed: the
        search layer scans it exactly, as on SQLite (an ANN index is for a later phase)."""
        with self._reading():
            epoch = vectors.vector_epoch(self._reader, self.project_id)
            if self._matrix is None or self._matrix.epoch != epoch or self._matrix.vectors.shape[1] != dims:
                self._matrix = shared_matrix(
                    self.location, dims, epoch, lambda: vectors.load_matrix(self._reader, self.project_id, dims)
                )
            return self._matrix

    def vector_index(self, dims: int) -> vectors.PostgresVectorIndex | None:
        """HNSW and a sample once the project has ANN_MIN_VECTORS vectors (and the index exists): the
        search then never loads the whole matrix into this process. Looked at again when vectors
        or files changed."""
        with self._reading():
            epoch = vectors.vector_epoch(self._reader, self.project_id)
        known = self._vector_index
        if known is not None and known[0] == (epoch, dims):
            return known[1]
        with self._reading():
            wanted = vectors.ann_wanted(self._reader, self.project_id, dims)
        index = vectors.PostgresVectorIndex(self._reader, self.project_id, dims, self._reading) if wanted else None
        self._vector_index = ((epoch, dims), index)
        if index is not None:
            self._matrix = None  # (a matrix read before the project grew is not needed again)
        return index

    # -- summaries (see store/postgres/summaries.py) ---------------------------------------------

    def summary_candidates(self, kinds: Sequence[str], model: str) -> list[SummaryCandidate]:
        with self._locked():
            return summaries.summary_candidates(self._conn, self.project_id, kinds, model)

    def store_summaries(self, model: str, new: Sequence[NewSummary]) -> int:
        """Cache summaries and make `model` the one shown, in a transaction of their own."""
        with self.transaction():
            refreshed = summaries.use_summary_model(self._conn, self.project_id, model)
            taken = summaries.store_summaries(self._conn, self.project_id, model, new)
        if refreshed or taken:
            self._matrix = None
            self._vector_index = None
            drop_shared(self.location)
        return taken

    def definition_summary(self, file_id: int, qualified_name: str, start_line: int) -> str:
        """The summary of the unit of a definition (its first part), '' without one."""
        with self._reading():
            return summaries.definition_summary(self._reader, self.project_id, file_id, qualified_name, start_line)

    def unit_summaries(self, ids: Sequence[int]) -> dict[int, str]:
        with self._reading():
            return summaries.unit_summaries(self._reader, self.project_id, ids)

    def summary_coverage(self, kinds: Sequence[str]) -> SummaryCoverage:
        with self._locked():
            return summaries.summary_coverage(self._conn, self.project_id, kinds)

    def size_bytes(self) -> int:
        """What the project's rows take, as stored (tables only: indexes are shared by every project)."""
        total = 0
        for table, owner in (("files", "project_id"), ("units", "project_id"), ("symbols", "project_id"),
                             ("refs", "project_id"), ("imports", "project_id"), ("hints", "project_id"),
                             ("directories", "project_id"), ("embeddings", "project_id"),
                             ("summaries", "project_id")):
            total += int(self._one(f"SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM {table} t WHERE t.{owner} = %s"))
        return total
