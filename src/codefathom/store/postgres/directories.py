"""Directory nodes of one project in PostgreSQL: the facts they are built from, read by project,
and the rows written (the node and its BM25F fields); building is store/directory_nodes.py's.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable

from codefathom.store.directory_nodes import (
    DirectoryFile,
    attach_definitions,
    attach_descriptions,
    build_node,
    directory_of,
    is_readme,
    readme_lines,
)
from codefathom.store.postgres.db import Conn
from codefathom.store.postgres.search import write_directory_postings
from codefathom.store.records import IsTest

__all__ = ["refresh_directories"]


def refresh_directories(
    conn: Conn, project: int, file_ids: Iterable[int] | None, removed: Iterable[str], is_test: IsTest
) -> int:
    """Rebuild the nodes of the directories holding `file_ids` or that held the `removed` paths (of
    every directory when file_ids is None); inside the write transaction. Returns the nodes written."""
    if file_ids is None:
        conn.execute("DELETE FROM directories WHERE project_id = %s", (project,))
        files = _files(conn, project, None)
    else:
        rows = conn.execute("SELECT path FROM files WHERE id = ANY(%s)", (sorted(set(file_ids)),))
        paths = [str(r[0]) for r in rows]
        dirs = {directory_of(p) for p in [*paths, *removed]} - {""}
        if not dirs:
            return 0
        conn.execute(
            "DELETE FROM directories WHERE project_id = %s AND path = ANY(%s)", (project, sorted(dirs))
        )
        files = _files(conn, project, dirs)
    by_dir: dict[str, list[DirectoryFile]] = defaultdict(list)
    for file in files:
        by_dir[directory_of(file.path)].append(file)
    by_dir.pop("", None)
    if not by_dir:
        return 0
    _attach_facts(conn, [f for group in by_dir.values() for f in group])
    with conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO directories(project_id, path, file_count, languages, files, description, summary, rank,"
            " name_text, path_text, files_text, definitions_text, doc_text)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [
                (project, path, node.file_count, json.dumps(node.languages), json.dumps(list(node.files)),
                 node.description, node.summary, node.rank, *node.fts)
                for path in sorted(by_dir)
                for node in (build_node(path, by_dir[path], is_test),)
            ],
        )
    written = conn.execute(
        "SELECT id, name_text, path_text, files_text, definitions_text, doc_text FROM directories"
        " WHERE project_id = %s AND path = ANY(%s) ORDER BY id",
        (project, sorted(by_dir)),
    )
    write_directory_postings(conn, project, [(int(r[0]), tuple(str(t) for t in r[1:])) for r in written])
    return len(by_dir)


def _files(conn: Conn, project: int, dirs: set[str] | None) -> list[DirectoryFile]:
    sql = "SELECT id, path, language, rank FROM files WHERE project_id = %s AND status != 'skipped'"
    if dirs is None:
        rows = conn.execute(sql + " ORDER BY id", (project,)).fetchall()
        return [DirectoryFile(int(r[0]), r[1], r[2], float(r[3])) for r in rows]
    found: list[DirectoryFile] = []
    for directory in sorted(dirs):
        # A range over the path index ('0' is the character after '/'), then only its own files.
        rows = conn.execute(
            sql + " AND path > %s AND path < %s ORDER BY id", (project, directory + "/", directory + "0")
        ).fetchall()
        found.extend(DirectoryFile(int(r[0]), r[1], r[2], float(r[3])) for r in rows if directory_of(r[1]) == directory)
    return found


def _attach_facts(conn: Conn, files: list[DirectoryFile]) -> None:
    """Each file's definitions (with rank and one-line doc), its own description, a README's text."""
    ids = sorted(f.id for f in files)
    attach_definitions(files, conn.execute(
        "SELECT file_id, kind, name, rank, doc FROM symbols WHERE file_id = ANY(%s)"
        " AND kind IN ('class', 'function', 'method') ORDER BY id",
        (ids,),
    ))
    attach_descriptions(files, conn.execute(
        "SELECT file_id, doc, CASE WHEN doc = '' AND start_line = 1 THEN substr(content, 1, 4000) ELSE '' END"
        " FROM units WHERE file_id = ANY(%s) AND kind = 'module' AND part = 0 ORDER BY file_id, start_line, id",
        (ids,),
    ))
    for f in files:
        if is_readme(f.path):
            text = conn.execute(
                "SELECT content FROM units WHERE file_id = %s ORDER BY start_line, part, id LIMIT 2", (f.id,)
            ).fetchall()
            f.readme = readme_lines("\n".join(r[0] for r in text))
