"""The digest of one project's rows in PostgreSQL, equal to the SQLite store's digest of the same
tree: the same parts, the same rows as text, rounded and formatted as SQLite does (sqlite/digest.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from codefathom.store.postgres.db import Conn
from codefathom.store.records import path_search_text, unit_search_fields

__all__ = ["index_digest", "DIGEST_PARTS"]


def _g9(value: object) -> str:
    """SQLite's printf('%.9g', x)."""
    return "%.9g" % float(value)  # type: ignore[arg-type]  # noqa: UP031 - printf's format, as SQLite's


def _ranks(row: Sequence[object]) -> tuple[object, ...]:
    return (*row[:3], _g9(row[3]))


def _refs(row: Sequence[object]) -> tuple[object, ...]:
    return (*row[:13], round(float(row[13]), 6), row[14])  # type: ignore[arg-type]


def _fts(row: Sequence[Any]) -> tuple[object, ...]:
    return (*row[:3], *unit_search_fields(path_search_text(row[0]), *row[3:]))


def _directories(row: Sequence[object]) -> tuple[object, ...]:
    return (*row[:6], _g9(row[6]))


# Each part: SQLite's query for it, kept to one project (its first parameter, once per %s).
_PARTS: dict[str, str] = {
    "files": (
        "SELECT path, content_hash, size, language, status, coalesce(error, ''), unit_count FROM files"
        " WHERE project_id = %s"
    ),
    "units": (
        "SELECT f.path, u.kind, u.name, u.qualified_name, coalesce(u.parent, ''), u.signature, u.doc, u.language,"
        " u.start_line, u.end_line, u.part, u.content FROM units u JOIN files f ON f.id = u.file_id"
        " WHERE u.project_id = %s"
    ),
    "fts": (  # (the fields are made again from these, as a search makes them: see _fts)
        "SELECT f.path, u.start_line, u.part, u.name, u.qualified_name, u.signature, u.doc, u.content"
        " FROM units u JOIN files f ON f.id = u.file_id WHERE u.project_id = %s"
    ),
    "symbols": (
        "SELECT f.path, s.kind, s.name, s.qualified_name, coalesce(s.parent, ''), s.start_line, s.end_line,"
        " s.signature, s.doc FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.project_id = %s"
    ),
    "refs": (
        "SELECT f.path, r.line, r.col, r.name, r.kind, r.receiver, coalesce(r.scope, ''), r.arity, r.arguments,"
        " coalesce(tf.path, ''), coalesce(t.qualified_name, ''), coalesce(t.start_line, 0), r.label,"
        " r.confidence, r.candidates FROM refs r JOIN files f ON f.id = r.file_id"
        " LEFT JOIN symbols t ON t.id = r.target_id LEFT JOIN files tf ON tf.id = t.file_id WHERE r.project_id = %s"
    ),
    "imports": (
        "SELECT f.path, i.line, i.module, coalesce(i.name, ''), i.alias, i.level, coalesce(tf.path, ''),"
        " coalesce(ts.qualified_name, ''), coalesce(ts.start_line, 0), i.external, i.binds_module"
        " FROM imports i JOIN files f ON f.id = i.file_id LEFT JOIN files tf ON tf.id = i.target_file_id"
        " LEFT JOIN symbols ts ON ts.id = i.target_symbol_id WHERE i.project_id = %s"
    ),
    "hints": (
        "SELECT f.path, coalesce(h.scope, ''), h.variable, h.type_name, h.line, h.kind"
        " FROM hints h JOIN files f ON f.id = h.file_id WHERE h.project_id = %s"
    ),
    "ranks": (
        "SELECT f.path, '', 0, f.rank FROM files f WHERE f.project_id = %s UNION ALL"
        " SELECT f.path, s.qualified_name, s.start_line, s.rank FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE s.project_id = %s"
    ),
    "directories": (
        "SELECT path, file_count, languages, files, description, summary, rank FROM directories WHERE project_id = %s"
    ),
    "vectors": (
        "SELECT f.path, u.start_line, u.part, coalesce(u.embed_key, '') FROM units u JOIN files f ON f.id = u.file_id"
        " WHERE u.project_id = %s"
    ),
}
_SHAPES: dict[str, Callable[[Sequence[object]], tuple[object, ...]]] = {
    "refs": _refs, "ranks": _ranks, "directories": _directories, "fts": _fts,
}
DIGEST_PARTS = tuple(_PARTS)


def index_digest(conn: Conn, project: int, parts: tuple[str, ...] = DIGEST_PARTS) -> dict[str, str]:
    """{part: "<rows>:<hash>"}: the count and a hash of the part's rows, sorted, as text."""
    digest: dict[str, str] = {}
    for part in parts:
        sql = _PARTS[part]
        shape = _SHAPES.get(part, tuple)
        rows = sorted(repr(shape(row)) for row in conn.execute(sql, (project,) * sql.count("%s")))
        hashed = hashlib.blake2b(digest_size=16)
        for row in rows:
            hashed.update(row.encode("utf-8", errors="surrogateescape"))
            hashed.update(b"\n")
        digest[part] = f"{len(rows)}:{hashed.hexdigest()}"
    return digest
