"""Postings made by SQLite's own FTS5 tokenizer, for a store without FTS5 (PostgreSQL), so that
every token and stem it keeps is the one FTS5 stores; cheap to import, as parse workers make them.

Postings come packed a group of rows at a time (a file's units): a row of binary COPY per term of
the group, whose bytes hold a record per row with the term. A record is the row's offset from the
group's first id, the row's length in tokens and the term's occurrences per field, each a
big-endian int4. A row is given without its first fields, the project's and the group's ids and the
first id, which a parse worker does not know yet: the writer puts them before each (`copy_rows`).
"""

from __future__ import annotations

import functools
import re
import sqlite3
import struct
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from contextlib import closing

import numpy as np

__all__ = [
    "TOKENIZER", "UNIT_FIELDS", "Packed", "pack_postings", "copy_rows", "COPY_HEADER", "COPY_TRAILER", "records",
    "record_size", "term_counts",
    "token_positions", "tokens_of",
]

# units_fts's tokenizer (store/sqlite/schema.sql, migrations 0006 and 0009).
TOKENIZER = "porter unicode61 remove_diacritics 2 tokenchars '_'"
UNIT_FIELDS = 7  # name, qualified_name, signature, doc, path, body, summary
# A group's postings: a row of binary COPY a term without its first three fields (the term, then
# its packed records), and each row's length in tokens.
Packed = tuple[list[bytes], tuple[int, ...]]
# Binary COPY's header (signature, flags, no extension) and trailer.
COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
COPY_TRAILER = b"\xff\xff"
_IDS = struct.Struct(">hiqiqiq")  # a row's field count, then three int8 fields with their lengths
_LENGTH = struct.Struct(">i")  # a field's length, before its bytes


def copy_rows(packed: Packed, project: int, group: int, first: int) -> bytes:
    """A group's rows of binary COPY (project_id, group, first_id, term, packed), each row's three
    ids put before the rest of it as `pack_postings` made it."""
    ids = _IDS.pack(5, 8, project, 8, group, 8, first)
    return ids + ids.join(packed[0]) if packed[0] else b""


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
    empty ones after), row i at `offsets[i]` from the group's first id (by default i)."""
    record = struct.Struct(f">{fields + 2}i")
    by_term: dict[str, list[bytes]] = {}
    sizes: list[int] = []
    for i, texts in enumerate(rows):
        counts = _counts(texts, fields)
        size = sum(map(sum, counts.values()))
        offset = offsets[i] if offsets is not None else i
        for term, per_field in counts.items():
            packed = record.pack(offset, size, *per_field)
            held = by_term.get(term)
            if held is None:
                by_term[term] = [packed]
            else:
                held.append(packed)
        sizes.append(size)
    copied = []
    for term, held in by_term.items():
        text = term.encode()
        packed_records = b"".join(held)
        copied.append(_LENGTH.pack(len(text)) + text + _LENGTH.pack(len(packed_records)) + packed_records)
    return copied, tuple(sizes)



# unicode61 (remove_diacritics 2, tokenchars '_') cuts ASCII text at every character but a letter, a
# digit and '_', and folds it to lower case: such text is cut here, and FTS5 is asked only for the
# stem of each token (once: stems are cached). Other text FTS5 counts whole, a row at a time. Cut
# here, java.base's units pack twice as fast, to the same bytes.
_TOKEN = re.compile(r"[a-z0-9_]+")
_STEMS: dict[str, str] = {}
STEMS_HELD = 500_000  # tokens whose stems are kept; then the cache starts again


def _counts(texts: Sequence[str], fields: int) -> dict[str, list[int]]:
    """Each term of a row with its occurrences per field, as FTS5 counts them."""
    if not all(text.isascii() and "\x00" not in text for text in texts):
        return _counted_by_fts5(texts, fields)
    counts: dict[str, list[int]] = {}
    for field, text in enumerate(texts):
        if not text:
            continue
        found = Counter(_TOKEN.findall(text.lower()))
        stems = _stems(found)
        for token, count in found.items():
            stem = stems[token]
            per_field = counts.get(stem)
            if per_field is None:
                per_field = counts[stem] = [0] * fields
            per_field[field] += count
    return counts


def _stems(tokens: Iterable[str]) -> dict[str, str]:
    """The cache of stems, holding those of `tokens`: new ones asked of FTS5's porter in one row."""
    new = [token for token in tokens if token not in _STEMS]
    if new:
        if len(_STEMS) + len(new) > STEMS_HELD:
            _STEMS.clear()
        conn = _connection("stems", 1)
        conn.execute("INSERT INTO t(rowid, c0) VALUES (1, ?)", (" ".join(new),))
        try:
            for term, offset in conn.execute("SELECT term, offset FROM v"):
                _STEMS[new[offset]] = term
        finally:
            conn.execute("DELETE FROM t WHERE rowid = 1")
    return _STEMS


def _counted_by_fts5(texts: Sequence[str], fields: int) -> dict[str, list[int]]:
    conn = _connection("rows", fields, vocabulary="col", contentless=True)
    conn.execute(
        f"INSERT INTO t(rowid, {', '.join(f'c{i}' for i in range(fields))}) VALUES (1, {', '.join('?' * fields)})",
        (*texts, *[""] * (fields - len(texts))),
    )
    counts: dict[str, list[int]] = {}
    try:
        for term, column, count in conn.execute("SELECT term, col, cnt FROM v"):
            counts.setdefault(term, [0] * fields)[int(column[1:])] = count
    finally:
        conn.execute("INSERT INTO t(t) VALUES ('delete-all')")
    return counts


_connections = threading.local()  # each thread's FTS5 tables in memory (a connection is one thread's)


def _connection(name: str, fields: int, vocabulary: str = "instance", contentless: bool = False) -> sqlite3.Connection:
    """This thread's FTS5 table `name` of `fields` columns, with its `vocabulary` table."""
    made: dict[tuple[str, int], sqlite3.Connection] | None = getattr(_connections, "made", None)
    if made is None:
        made = _connections.made = {}
    if (name, fields) not in made:
        conn = sqlite3.connect(":memory:")
        columns = ", ".join(f"c{i}" for i in range(fields))
        options = ', content = "", columnsize = 0' if contentless else ""
        conn.execute(f'CREATE VIRTUAL TABLE t USING fts5({columns}, tokenize = "{TOKENIZER}"{options})')
        conn.execute(f"CREATE VIRTUAL TABLE v USING fts5vocab(t, '{vocabulary}')")
        made[name, fields] = conn
    return made[name, fields]


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
