"""Postings made by SQLite's own FTS5 tokenizer, for a store without FTS5 (PostgreSQL), so that
every token and stem it keeps is the one FTS5 stores; cheap to import, as parse workers make them.

Postings come packed a group of rows at a time (a file's units): a COPY line per term of the
group, whose bytes hold a record per row with the term. A record is the row's offset from the
group's first id, the row's length in tokens and the term's occurrences per field, each a
big-endian int4. The line ends with GROUP_MARK, where the writer puts the project's and the
group's ids and the first id, which a parse worker does not know yet.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass

import numpy as np

__all__ = [
    "TOKENIZER", "UNIT_FIELDS", "GROUP_MARK", "Packed", "pack_postings", "records", "record_size", "term_counts",
    "token_positions", "tokens_of",
]

# units_fts's tokenizer (store/sqlite/schema.sql, migrations 0006 and 0009).
TOKENIZER = "porter unicode61 remove_diacritics 2 tokenchars '_'"
UNIT_FIELDS = 7  # name, qualified_name, signature, doc, path, body, summary
GROUP_MARK = "\x00"  # in a packed line, where the ids go; FTS5's tokens hold no control characters

# A group's postings: its COPY lines (term, packed records, GROUP_MARK), and each row's length in tokens.
Packed = tuple[str, tuple[int, ...]]


def record_size(fields: int) -> int:
    """Bytes of one row's record in a packed line: offset, length and a count per field."""
    return 4 * (2 + fields)


def records(packed: bytes, fields: int) -> np.ndarray:
    """The records of packed bytes as a numpy array with `offset`, `size` and `counts` (per field)."""
    kind = np.dtype([("offset", ">i4"), ("size", ">i4"), ("counts", ">i4", (fields,))])
    return np.frombuffer(packed, dtype=kind)


def _fts5(fields: int) -> sqlite3.Connection:
    """An FTS5 table in memory with units_fts's tokenizer, and its `instance` vocabulary: every
    token of a row with its field and offset, exactly as FTS5 indexes it."""
    conn = sqlite3.connect(":memory:")
    columns = ", ".join(f"c{i}" for i in range(fields))
    conn.execute(f'CREATE VIRTUAL TABLE t USING fts5({columns}, tokenize = "{TOKENIZER}")')
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    return conn


def _fill(conn: sqlite3.Connection, rows: Sequence[tuple[int, Sequence[str]]], fields: int) -> None:
    columns = ", ".join(f"c{i}" for i in range(fields))
    marks = ", ".join("?" * (fields + 1))
    conn.executemany(
        f"INSERT INTO t(rowid, {columns}) VALUES ({marks})",
        ((rid, *texts, *[""] * (fields - len(texts))) for rid, texts in rows),
    )


def term_counts(
    rows: Sequence[tuple[int, Sequence[str]]], fields: int
) -> tuple[list[tuple[int, str, tuple[int, ...]]], dict[int, int]]:
    """For rows (id, field texts): each (row, term) with the term's occurrences per field, and each
    row's length in tokens over every field. FTS5 in memory counts them, a row per pair: the count
    `pack_postings` is checked against (tests/test_store_postgres.py, bench/pg_index.py)."""
    sizes = dict.fromkeys((rid for rid, _ in rows), 0)
    if not rows:
        return [], sizes
    per_field = ", ".join(f"sum(col = 'c{c}')" for c in range(fields))
    with closing(_fts5(fields)) as conn:
        _fill(conn, rows, fields)
        found = [
            (int(doc), str(term), tuple(counts))
            for doc, term, *counts in conn.execute(f"SELECT doc, term, {per_field} FROM v GROUP BY doc, term")
        ]
    for doc, _, counts in found:
        sizes[doc] += sum(counts)
    return found, sizes


def pack_postings(rows: Sequence[Sequence[str]], fields: int, offsets: Sequence[int] | None = None) -> Packed:
    """The packed postings of a group of rows (each its field texts, fewer than `fields` meaning
    empty ones after), row i at `offsets[i]` from the group's first id (by default i).

    A row at a time in an FTS5 table holding only it, whose `col` vocabulary then gives the row's
    own counts, is twice as fast as all rows at once grouped by row and term (`term_counts`); its
    records wait in a plain table until the group's lines are written, a term at a time."""
    counter = _counter(fields)
    conn = counter.conn
    sizes: list[int] = []
    try:
        for i, texts in enumerate(rows):
            conn.execute(counter.insert, (*texts, *[""] * (fields - len(texts))))
            size = int(conn.execute("SELECT coalesce(sum(cnt), 0) FROM v").fetchone()[0])
            conn.execute(counter.keep, (offsets[i] if offsets is not None else i, size))
            conn.execute("INSERT INTO t(t) VALUES ('delete-all')")
            sizes.append(size)
        lines = conn.execute(counter.lines).fetchone()[0]
    finally:
        conn.execute("DELETE FROM kept")
    return lines or "", tuple(sizes)


@dataclass(frozen=True)
class _Counter:
    conn: sqlite3.Connection
    insert: str  # a row into the FTS5 table
    keep: str  # its records into `kept`, given its offset and length
    lines: str  # the group's packed lines from `kept`


_counters = threading.local()  # each thread's FTS5 tables for pack_postings, by number of fields


def _counter(fields: int) -> _Counter:
    """A contentless FTS5 table of `fields` columns with its `col` vocabulary, a table for a
    group's records, and the statements that fill them and write the group's lines."""
    made: dict[int, _Counter] | None = getattr(_counters, "made", None)
    if made is None:
        made = _counters.made = {}
    if fields not in made:
        conn = sqlite3.connect(":memory:")
        columns = ", ".join(f"c{i}" for i in range(fields))
        conn.execute(
            f'CREATE VIRTUAL TABLE t USING fts5({columns}, tokenize = "{TOKENIZER}", content = "", columnsize = 0)'
        )
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'col')")
        conn.execute("CREATE TABLE kept (term TEXT, record TEXT)")
        insert = f"INSERT INTO t(rowid, {columns}) VALUES (1, {', '.join('?' * fields)})"
        # A record in hex, as bytea's text form takes it: %08x of offset, length and every count.
        counts = ", ".join(f"sum(iif(col = 'c{i}', cnt, 0))" for i in range(fields))
        record = f"printf('{'%08x' * (fields + 2)}', ?, ?, {counts})"
        keep = f"INSERT INTO kept SELECT term, {record} FROM v GROUP BY term"
        # COPY's text format escapes these; FTS5's tokens are letters, digits and `_`, but a
        # tokenizer change must not be able to break a COPY. `\\x` is bytea's hex prefix, escaped.
        term = (
            "replace(replace(replace(replace(term, '\\', '\\\\'), char(9), '\\t'), char(10), '\\n'),"
            " char(13), '\\r')"
        )
        line = f"{term} || char(9) || '\\\\x' || group_concat(record, '') || char(9) || char(0) || char(10)"
        lines = f"SELECT group_concat(line, '') FROM (SELECT {line} AS line FROM kept GROUP BY term)"
        made[fields] = _Counter(conn, insert, keep, lines)
    return made[fields]


def token_positions(rows: Sequence[tuple[int, Sequence[str]]], fields: int) -> dict[tuple[int, int], dict[int, str]]:
    """For rows (id, field texts): each (row, field)'s tokens by offset."""
    at: dict[tuple[int, int], dict[int, str]] = {}
    with closing(_fts5(fields)) as memory:
        _fill(memory, rows, fields)
        for doc, col, offset, term in memory.execute("SELECT doc, col, offset, term FROM v"):
            at.setdefault((doc, int(col[1:])), {})[offset] = term
    return at


_words = threading.local()  # each thread's FTS5 table for query words (a connection is one thread's)


@functools.lru_cache(maxsize=8192)
def tokens_of(word: str) -> tuple[str, ...]:
    """The tokens FTS5 makes of a quoted query word, in order: one for a plain word, several for
    a phrase (`a$b`), none for a word of separators only."""
    conn = getattr(_words, "conn", None)
    if conn is None:
        conn = _words.conn = _fts5(1)
    conn.execute("INSERT INTO t(rowid, c0) VALUES (1, ?)", (word,))
    try:
        return tuple(str(r[0]) for r in conn.execute("SELECT term FROM v ORDER BY offset"))
    finally:
        conn.execute("DELETE FROM t WHERE rowid = 1")
