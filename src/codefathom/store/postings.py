"""Postings made by SQLite's own FTS5 tokenizer, for a store without FTS5 (PostgreSQL), so that
every token and stem it keeps is the one FTS5 stores; cheap to import, as parse workers make them.

A row's postings are text lines ready for PostgreSQL's COPY: the term, its occurrences per field
and the row's length, then ID_MARK where the writer puts the project's and the row's ids, which
a parse worker does not know yet.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Sequence
from contextlib import closing

__all__ = [
    "TOKENIZER", "UNIT_FIELDS", "ID_MARK", "RowPostings", "count_postings", "term_counts", "token_positions",
    "tokens_of",
]

# units_fts's tokenizer (store/sqlite/schema.sql, migrations 0006 and 0009).
TOKENIZER = "porter unicode61 remove_diacritics 2 tokenchars '_'"
UNIT_FIELDS = 7  # name, qualified_name, signature, doc, path, body, summary
ID_MARK = "\x00"  # in a posting line, where the row's ids go; FTS5's tokens hold no control characters

# A row's postings: its COPY lines (term, counts per field, length, ID_MARK), and its length in tokens.
RowPostings = tuple[str, int]

_TAB = "\t"
# COPY's text format escapes these; FTS5's tokens are letters, digits and `_`, but a tokenizer
# change must not be able to break a COPY.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", ID_MARK: "\\000"})


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
    row's length in tokens over every field. FTS5 in memory counts them, a row per pair."""
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


def count_postings(rows: Sequence[Sequence[str]], fields: int) -> list[RowPostings]:
    """Each row's postings (its field texts, fewer than `fields` meaning empty ones after)."""
    found, sizes = term_counts(list(enumerate(rows)), fields)
    lines: list[list[str]] = [[] for _ in rows]
    for row, term, counts in found:
        size = sizes[row]
        lines[row].append(f"{term.translate(_COPY_ESCAPES)}\t{_TAB.join(map(str, counts))}\t{size}\t{ID_MARK}\n")
    return [("".join(row_lines), sizes[row]) for row, row_lines in enumerate(lines)]


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
