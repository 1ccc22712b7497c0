"""The rows of files written since the last flush, sent to PostgreSQL in one COPY a table.

Written a file at a time, an index paid a server round trip per table per file (about 29 a file);
gathered here, a batch of files costs a few statements whatever its size. Ids come from blocks
reserved ahead (`IdBlocks`), so a file's rows know their ids before they reach the server.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from codefathom.store.postgres import search
from codefathom.store.postgres.db import Conn, copy_rows
from codefathom.store.postgres.held_refs import REF_COLUMNS
from codefathom.store.postings import UNIT_FIELDS, Packed, pack_postings
from codefathom.store.records import FileRecord, PreparedFacts, PreparedUnits

__all__ = ["IdBlocks", "PendingWrites", "FLUSH_ROWS"]

# Rows held before a flush whatever the transaction: bounds the memory of a batch of huge files.
FLUSH_ROWS = 200_000
FIRST_BLOCK = 64  # ids a sequence's first reservation takes; each further one doubles, up to LAST_BLOCK
LAST_BLOCK = 65_536

_FILE_COLUMNS = "id, project_id, path, content_hash, mtime_ns, size, language, status, error, unit_count, indexed_at"
_UNIT_COLUMNS = (
    "id, project_id, file_id, kind, name, name_key, qualified_name, parent, signature, doc,"
    " language, start_line, end_line, part, content, summary_key"
)
_SUMMARY_KEY = -1  # in a PreparedUnits row
_SYMBOL_COLUMNS = (
    "id, project_id, file_id, kind, name, qualified_name, parent, start_line, end_line, signature, doc, rank"
)
_IMPORT_COLUMNS = "id, project_id, file_id, module, name, alias, line, level"
_HINT_COLUMNS = "project_id, file_id, scope, variable, type_name, line, kind"
_FACT_TABLES = ("refs", "imports", "hints", "symbols")  # deleted in this order: refs point at symbols


class IdBlocks:
    """Ids of the store's sequences taken from blocks reserved ahead (`reserve_ids`): a block of a
    file's rows is unbroken, and ids grow in the order they are taken. What a block leaves unused
    when the next is reserved is skipped: the sequences are shared, so ids had gaps anyway."""

    def __init__(self) -> None:
        self._free: dict[str, tuple[int, int]] = {}  # sequence -> (next id, one past the last)
        self._size: dict[str, int] = {}

    def take(self, conn: Conn, name: str, count: int) -> int:
        """The first of `count` consecutive ids of `name`'s table (0 when count is 0)."""
        if count <= 0:
            return 0
        start, end = self._free.get(name, (0, 0))
        if end - start < count:
            size = max(count, self._size.get(name, FIRST_BLOCK))
            self._size[name] = min(size * 2, LAST_BLOCK)
            row = conn.execute("SELECT reserve_ids(%s::regclass, %s)", (f"{name}_id_seq", size)).fetchone()
            assert row is not None
            start, end = int(row[0]), int(row[0]) + size
        self._free[name] = (start + count, end)
        return start


@dataclass
class PendingWrites:
    """What `replace_file` and `replace_facts` wrote since the last flush, in the order written."""

    unit_files: set[int] = field(default_factory=set)  # files whose units are here (once a flush)
    fact_files: set[int] = field(default_factory=set)  # files whose graph rows are here (once a flush)
    new_files: list[tuple[object, ...]] = field(default_factory=list)
    updated_files: list[tuple[object, ...]] = field(default_factory=list)
    units_replaced: list[int] = field(default_factory=list)  # existing files whose old units go
    units: list[tuple[object, ...]] = field(default_factory=list)
    texts: list[tuple[int, tuple[str, ...], str]] = field(default_factory=list)  # (unit id, search fields, summary key)
    # (file id, first unit id, units, the units' postings packed, or None)
    postings: list[tuple[int, int, int, Packed | None]] = field(default_factory=list)
    facts_replaced: list[int] = field(default_factory=list)  # files whose old graph rows go (ranks kept)
    symbols: list[tuple[object, ...]] = field(default_factory=list)  # without their rank
    refs: list[tuple[object, ...]] = field(default_factory=list)
    imports: list[tuple[object, ...]] = field(default_factory=list)
    hints: list[tuple[object, ...]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.unit_files or self.fact_files)

    def holds(self, file_id: int | None, *, facts: bool) -> bool:
        """Whether `file_id`'s units (or graph rows) are already here: written twice, a file's
        first rows must reach the server before its second replace them."""
        return file_id in (self.fact_files if facts else self.unit_files)

    @property
    def rows(self) -> int:
        return len(self.units) + len(self.symbols) + len(self.refs) + len(self.imports) + len(self.hints)

    def add_file(
        self, project: int, record: FileRecord, units: PreparedUnits, file_id: int, first_unit: int, *, new: bool
    ) -> None:
        values = (
            record.content_hash, record.mtime_ns, record.size, record.language, record.status,
            record.error, len(units), time.time(),
        )
        self.unit_files.add(file_id)
        if new:
            self.new_files.append((file_id, project, record.path, *values))
        else:
            self.updated_files.append((*values, file_id))
            self.units_replaced.append(file_id)
        for i, (unit, text) in enumerate(zip(units.units, units.fts, strict=True)):
            self.units.append((first_unit + i, project, file_id, *unit))
            self.texts.append((first_unit + i, text, str(unit[_SUMMARY_KEY] or "")))
        if units.units:
            self.postings.append((file_id, first_unit, len(units), units.postings))

    def add_facts(
        self, project: int, file_id: int, facts: PreparedFacts, first: dict[str, int], *, replacing: bool
    ) -> None:
        self.fact_files.add(file_id)
        if replacing:
            self.facts_replaced.append(file_id)
        symbol, ref, imported = first["symbols"], first["refs"], first["imports"]
        self.symbols.extend((symbol + i, project, file_id, *row) for i, row in enumerate(facts.symbols))
        self.refs.extend((ref + i, project, file_id, *row) for i, row in enumerate(facts.refs))
        self.imports.extend((imported + i, project, file_id, *row) for i, row in enumerate(facts.imports))
        self.hints.extend((project, file_id, *row) for row in facts.hints)

    def flush(self, conn: Conn, project: int) -> None:
        """Every row held to the server, inside the connection's transaction (the caller then
        holds a new, empty PendingWrites)."""
        self._clear_replaced(conn)
        ranks = self._kept_ranks(conn)
        for table in _FACT_TABLES if self.facts_replaced else ():
            conn.execute(f"DELETE FROM {table} WHERE file_id = ANY(%s)", (self.facts_replaced,))
        copy_rows(conn, "files", _FILE_COLUMNS, self.new_files)
        copy_rows(conn, "units", _UNIT_COLUMNS, self.units)
        self._write_postings(conn, project)
        copy_rows(
            conn, "symbols", _SYMBOL_COLUMNS,
            [(*row, ranks.get((row[2], row[5], row[3]), 0.0)) for row in self.symbols],
        )
        copy_rows(conn, "refs", REF_COLUMNS, self.refs)
        copy_rows(conn, "imports", _IMPORT_COLUMNS, self.imports)
        copy_rows(conn, "hints", _HINT_COLUMNS, self.hints)

    def _clear_replaced(self, conn: Conn) -> None:
        if self.units_replaced:
            # Their texts and postings go with them (a foreign key, a trigger: see migrations).
            conn.execute("DELETE FROM units WHERE file_id = ANY(%s)", (self.units_replaced,))
        if self.updated_files:
            with conn.cursor() as cursor:
                cursor.executemany(
                    "UPDATE files SET content_hash = %s, mtime_ns = %s, size = %s, language = %s, status = %s,"
                    " error = %s, unit_count = %s, indexed_at = %s WHERE id = %s",
                    self.updated_files,
                )

    def _kept_ranks(self, conn: Conn) -> dict[tuple[object, object, object], float]:
        """A definition keeps its rank through an edit of its file (as in the SQLite store)."""
        if not self.facts_replaced:
            return {}
        rows = conn.execute(
            "SELECT file_id, qualified_name, kind, rank FROM symbols WHERE file_id = ANY(%s)", (self.facts_replaced,)
        )
        return {(int(f), str(q), str(k)): float(r) for f, q, k, r in rows}

    def _write_postings(self, conn: Conn, project: int) -> None:
        """The units' postings, each unit with its text's cached summary as a search field once the
        project shows a summary model (as the SQLite store's insert does)."""
        if not self.texts:
            return
        summaries = _cached_summaries(conn, project, sorted({key for _, _, key in self.texts if key}))
        rows = [(uid, (*fields, summaries.get(key, ""))) for uid, fields, key in self.texts]
        # A parse worker's postings hold unless it made none or a unit took a summary: a field more.
        summarised = {uid for uid, _, key in self.texts if key in summaries}
        fields = dict(rows)
        files = []
        for file_id, first, count, made in self.postings:
            ids = range(first, first + count)
            if made is None or not summarised.isdisjoint(ids):
                made = pack_postings([fields[uid] for uid in ids], UNIT_FIELDS)
            files.append((file_id, first, ids, made))
        search.write_unit_postings(conn, project, files)


def _cached_summaries(conn: Conn, project: int, keys: list[str]) -> dict[str, str]:
    if not keys:
        return {}
    rows = conn.execute(
        "SELECT x.key, x.searchable FROM summaries x JOIN meta m ON m.project_id = x.project_id"
        " AND m.key = 'summary_model' AND x.model = m.value WHERE x.project_id = %s AND x.key = ANY(%s)",
        (project, keys),
    )
    return {str(key): str(text) for key, text in rows}
