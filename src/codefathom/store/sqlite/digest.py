"""A digest of what an index holds, part by part, independent of row ids and of when it was built.

Two indexes of the same tree must have equal digests however they came to be (a first index, a
`--full` re-index, a sync after a kill, a forked binder or not): the reliability tests compare them.
"""

from __future__ import annotations

import hashlib
import sqlite3

__all__ = ["index_digest", "DIGEST_PARTS"]

# Each part: the rows that make it, identified by paths and names, never by row ids (which differ
# between two builds of one tree). Ranks are rounded: PageRank's sums may end in other last bits.
_PARTS: dict[str, str] = {
    "files": "SELECT path, content_hash, size, language, status, coalesce(error, ''), unit_count FROM files",
    "units": (
        "SELECT f.path, u.kind, u.name, u.qualified_name, coalesce(u.parent, ''), u.signature, u.doc, u.language,"
        " u.start_line, u.end_line, u.part, u.content FROM units u JOIN files f ON f.id = u.file_id"
    ),
    "fts": (
        "SELECT f.path, u.start_line, u.part, t.name, t.qualified_name, t.signature, t.doc, t.path, t.body"
        " FROM units_fts t JOIN units u ON u.id = t.rowid JOIN files f ON f.id = u.file_id"
    ),
    "symbols": (
        "SELECT f.path, s.kind, s.name, s.qualified_name, coalesce(s.parent, ''), s.start_line, s.end_line,"
        " s.signature, s.doc FROM symbols s JOIN files f ON f.id = s.file_id"
    ),
    "refs": (
        "SELECT f.path, r.line, r.col, r.name, r.kind, r.receiver, coalesce(r.scope, ''), r.arity, r.arguments,"
        " coalesce(tf.path, ''), coalesce(t.qualified_name, ''), coalesce(t.start_line, 0), r.label,"
        " round(r.confidence, 6), r.candidates FROM refs r JOIN files f ON f.id = r.file_id"
        " LEFT JOIN symbols t ON t.id = r.target_id LEFT JOIN files tf ON tf.id = t.file_id"
    ),
    "imports": (
        "SELECT f.path, i.line, i.module, coalesce(i.name, ''), i.alias, i.level, coalesce(tf.path, ''),"
        " coalesce(ts.qualified_name, ''), coalesce(ts.start_line, 0), i.external, i.binds_module"
        " FROM imports i JOIN files f ON f.id = i.file_id LEFT JOIN files tf ON tf.id = i.target_file_id"
        " LEFT JOIN symbols ts ON ts.id = i.target_symbol_id"
    ),
    "hints": (
        "SELECT f.path, coalesce(h.scope, ''), h.variable, h.type_name, h.line, h.kind"
        " FROM hints h JOIN files f ON f.id = h.file_id"
    ),
    "ranks": (
        "SELECT f.path, '', 0, printf('%.9g', f.rank) FROM files f UNION ALL"
        " SELECT f.path, s.qualified_name, s.start_line, printf('%.9g', s.rank)"
        " FROM symbols s JOIN files f ON f.id = s.file_id"
    ),
    "directories": (
        "SELECT path, file_count, languages, files, description, summary, printf('%.9g', rank) FROM directories"
    ),
    "vectors": (
        "SELECT f.path, u.start_line, u.part, coalesce(u.embed_key, '') FROM units u JOIN files f ON f.id = u.file_id"
    ),
}
DIGEST_PARTS = tuple(_PARTS)


def index_digest(conn: sqlite3.Connection, parts: tuple[str, ...] = DIGEST_PARTS) -> dict[str, str]:
    """{part: "<rows>:<hash>"}: the count and a hash of the part's rows, sorted, as text."""
    digest: dict[str, str] = {}
    for part in parts:
        rows = sorted(repr(row) for row in conn.execute(_PARTS[part]))
        hashed = hashlib.blake2b(digest_size=16)
        for row in rows:
            hashed.update(row.encode("utf-8", errors="surrogateescape"))
            hashed.update(b"\n")
        digest[part] = f"{len(rows)}:{hashed.hexdigest()}"
    return digest
