"""Lexical search on PostgreSQL, ranked as SQLite's FTS5 ranks it: postings and row lengths written
beside the searchable text, cut by SQLite's own FTS5 tokenizer, and FTS5's bm25 computed over them.

Postings are packed a group at a time (a file's units, or one directory node): a row per term and
group whose bytes hold a record per row with the term (store/postings.py), decoded here by numpy.

FTS5's bm25 (ext/fts5/fts5_aux.c), which this module reproduces operation for operation:
for each phrase i of the query, in the order the expression names them,
  idf_i  = log((N - n_i + 0.5) / (n_i + 0.5)), 1e-6 when not positive (n_i: rows matching phrase i)
  f_i    = the sum, over phrase i's instances in the row, of its column's weight
  score += idf_i * (f_i * (k1 + 1)) / (f_i + k1 * (1 - b + b * D / avgdl))
with k1 = 1.2, b = 0.75, D the row's length in tokens over all columns and avgdl the table's
total tokens over its row count. A phrase counts in a row only where the alternative (AND) it
belongs to matches that row, as FTS5's expression nodes leave it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from codefathom.model import MatchTerm
from codefathom.parse.windows import MAX_UNIT_CHARS
from codefathom.store.postgres.db import Conn
from codefathom.store.postings import (
    COPY_HEADER,
    COPY_TRAILER,
    TOKENIZER,
    UNIT_FIELDS,
    Packed,
    copy_rows,
    pack_postings,
    record_size,
    records,
    token_positions,
    tokens_of,
)
from codefathom.store.records import Scope, path_search_text, unit_search_fields

__all__ = [
    "TOKENIZER", "UNIT_FIELDS", "DIRECTORY_FIELDS", "tokens_of", "write_unit_postings",
    "rewrite_unit_postings", "write_directory_postings", "unit_candidates", "directory_candidates", "term_units",
    "units_holding", "directories_holding", "files_holding", "name_candidates", "stored_postings",
    "unit_search_texts",
]

K1 = 1.2
B = 0.75
IDF_FLOOR = 1e-6
DIRECTORY_FIELDS = 5  # name, path, files, definitions, doc

Counts = list[int]  # occurrences per field
Hits = dict[int, Counts]  # row id -> occurrences of a phrase per field


@dataclass(frozen=True)
class _Table:
    terms: str
    group: str  # the column of a row's group: the file of units, the directory itself
    sizes: str
    key: str  # the sizes' id column
    texts: Callable[[Conn, Sequence[int]], dict[int, tuple[str, ...]]]  # the fields of these rows, by id
    within: str  # the condition on a posting's group that its rows may be among ANY(%s)
    fields: int


def unit_search_texts(conn: Conn, unit_ids: Sequence[int]) -> dict[int, tuple[str, ...]]:
    """Each unit's search fields (UNIT_FIELDS), made again from its row, its file's path and its
    summary by the model the project shows, as SQLite's units_fts holds them."""
    rows = conn.execute(
        "SELECT u.id, f.path, u.name, u.qualified_name, u.signature, u.doc, u.content, coalesce(x.searchable, '')"
        " FROM units u JOIN files f ON f.id = u.file_id LEFT JOIN meta m ON m.project_id = u.project_id"
        " AND m.key = 'summary_model' LEFT JOIN summaries x ON x.project_id = u.project_id"
        " AND x.key = u.summary_key AND x.model = m.value WHERE u.id = ANY(%s)",
        (list(unit_ids),),
    )
    paths: dict[str, str] = {}
    texts = {}
    for unit_id, path, name, qualified, signature, doc, content, summary in rows:
        path_text = paths.get(path)
        if path_text is None:
            path_text = paths[path] = path_search_text(path)
        texts[int(unit_id)] = (*unit_search_fields(path_text, name, qualified, signature, doc, content), summary)
    return texts


def _directory_texts(conn: Conn, ids: Sequence[int]) -> dict[int, tuple[str, ...]]:
    rows = conn.execute(
        "SELECT id, name_text, path_text, files_text, definitions_text, doc_text FROM directories WHERE id = ANY(%s)",
        (list(ids),),
    )
    return {int(r[0]): tuple(str(t) for t in r[1:]) for r in rows}


_UNITS = _Table(
    "unit_postings", "file_id", "unit_sizes", "unit_id", unit_search_texts,
    "file_id IN (SELECT file_id FROM units WHERE id = ANY(%s))", UNIT_FIELDS,
)
_DIRECTORIES = _Table(
    "directory_postings", "directory_id", "directory_sizes", "directory_id", _directory_texts,
    "directory_id = ANY(%s)", DIRECTORY_FIELDS,
)


# -- writing --------------------------------------------------------------------------------------

# A group's packed postings, where they go: (group id, its first row's id, the rows' ids, packed).
Group = tuple[int, int, Sequence[int], Packed]


def _write(conn: Conn, project: int, table: _Table, groups: Sequence[Group]) -> None:
    """Groups' postings and their rows' lengths."""
    if not groups:
        return
    with conn.cursor() as cursor:
        columns = f"project_id, {table.group}, first_id, term, packed"
        with cursor.copy(f"COPY {table.terms} ({columns}) FROM STDIN (FORMAT binary)") as copy:
            copy.write(b"".join(
                [COPY_HEADER, *(copy_rows(packed, project, group, first) for group, first, _, packed in groups),
                 COPY_TRAILER]
            ))
        with cursor.copy(f"COPY {table.sizes} ({table.key}, project_id, size) FROM STDIN") as copy:
            copy.write(
                "".join(
                    f"{rid}\t{project}\t{size}\n"
                    for _, _, ids, (_, sizes) in groups for rid, size in zip(ids, sizes, strict=True)
                )
            )


def write_unit_postings(conn: Conn, project: int, files: Sequence[Group]) -> None:
    """Postings and lengths of new units: per file (its id, its first unit's id, its units' ids,
    what `postings.pack_postings` made of their fields)."""
    _write(conn, project, _UNITS, files)


def rewrite_unit_postings(conn: Conn, project: int, unit_ids: Sequence[int]) -> None:
    """Postings and lengths of units whose summary field changed (a summary stored), made again with
    those of every other unit of their files: a file's units are packed together."""
    if not unit_ids:
        return
    files = [int(r[0]) for r in conn.execute(
        "SELECT DISTINCT file_id FROM units WHERE id = ANY(%s) ORDER BY file_id", (sorted(set(unit_ids)),)
    )]
    units = conn.execute(
        "SELECT file_id, id FROM units WHERE file_id = ANY(%s) ORDER BY file_id, id", (files,)
    ).fetchall()
    ids = [int(uid) for _, uid in units]
    conn.execute("DELETE FROM unit_postings WHERE file_id = ANY(%s)", (files,))
    conn.execute("DELETE FROM unit_sizes WHERE unit_id = ANY(%s)", (ids,))
    texts = _UNITS.texts(conn, ids)
    by_file: dict[int, list[int]] = {}
    for file_id, uid in units:
        by_file.setdefault(int(file_id), []).append(int(uid))
    groups: list[Group] = []
    for file_id, members in by_file.items():
        first = members[0]
        offsets = [uid - first for uid in members]
        groups.append((file_id, first, members, pack_postings([texts[uid] for uid in members], UNIT_FIELDS, offsets)))
    _write(conn, project, _UNITS, groups)


def write_directory_postings(conn: Conn, project: int, rows: Sequence[tuple[int, Sequence[str]]]) -> None:
    """Postings and lengths of new directory nodes: (directory id, its five *_text fields), each a
    group of its own."""
    _write(
        conn, project, _DIRECTORIES,
        [(rid, rid, (rid,), pack_postings([texts], DIRECTORY_FIELDS)) for rid, texts in rows],
    )


def stored_postings(conn: Conn, project: int) -> list[tuple[int, str, int, tuple[int, ...]]]:
    """Every unit's postings as stored, unpacked: (unit id, term, unit length, counts per field).
    What the tests and bench/pg_index.py check against what FTS5 makes of the units' texts."""
    found = []
    rows = conn.execute("SELECT term, first_id, packed FROM unit_postings WHERE project_id = %s", (project,))
    for term, first, packed in rows:
        for record in records(bytes(packed), UNIT_FIELDS):
            found.append((int(first) + int(record["offset"]), str(term), int(record["size"]),
                          tuple(int(n) for n in record["counts"])))
    return found


# -- matching -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Postings:
    """The rows holding one term, ids ascending, with their lengths and the term's counts per field."""

    ids: npt.NDArray[np.int64]
    sizes: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]  # a row of counts per id


def _postings(
    conn: Conn, project: int, table: _Table, terms: Sequence[str], within: Sequence[int] | None = None,
    *, stats: bool = False,
) -> tuple[dict[str, _Postings], tuple[int, int] | None]:
    """Each of `terms`' postings (of rows among `within`, else of the project) unpacked; and, with
    `stats`, the table's row count and total length, read in the same round trip.

    A term's rows come back as two byte strings: every group's first id and packed length, and
    the groups' records in the same order (the aggregates of one GROUP BY see its rows alike)."""
    sql = (
        f"SELECT term, string_agg(int8send(first_id) || int4send(length(packed)), ''::bytea),"
        f" string_agg(packed, ''::bytea) FROM {table.terms} WHERE project_id = %s AND term = ANY(%s)"
    )
    params: list[object] = [project, sorted(set(terms))]
    among = None if within is None else np.asarray(sorted(set(within)), dtype=np.int64)
    if among is not None:
        sql += f" AND {table.within}"
        params.append(among.tolist())
    sql += " GROUP BY term"
    if stats:
        sql += (
            " UNION ALL SELECT NULL, int8send(count(*)) || int8send(coalesce(sum(size), 0)::int8), NULL"
            f" FROM {table.sizes} WHERE project_id = %s"
        )
        params.append(project)
    found: dict[str, _Postings] = {}
    totals: tuple[int, int] | None = None
    heads = np.dtype([("first", ">i8"), ("length", ">i4")])
    for term, head, packed in conn.execute(sql, params):
        if term is None:
            totals = (_int8(bytes(head[:8])), _int8(bytes(head[8:])))
            continue
        groups = np.frombuffer(head, dtype=heads)
        rows = records(bytes(packed), table.fields)
        ids = np.repeat(groups["first"].astype(np.int64), groups["length"] // record_size(table.fields))
        ids = ids + rows["offset"].astype(np.int64)
        order = np.argsort(ids, kind="stable")
        kept = ids[order]
        counts = rows["counts"].astype(np.int64)[order]
        sizes = rows["size"].astype(np.int64)[order]
        if among is not None:
            mask = np.isin(kept, among)
            kept, counts, sizes = kept[mask], counts[mask], sizes[mask]
        found[str(term)] = _Postings(kept, sizes, counts)
    return found, totals


def _phrase_hits(
    conn: Conn, project: int, table: _Table, phrases: Sequence[tuple[str, ...]], within: Sequence[int] | None = None
) -> tuple[list[Hits], dict[int, int]]:
    """Per phrase, the rows holding it (of `within`, else of the project) with its occurrences per
    field; and the length of every row found."""
    wanted = sorted({t for p in phrases for t in p})
    postings: dict[str, Hits] = {t: {} for t in wanted}
    sizes: dict[int, int] = {}
    if wanted:
        found, _ = _postings(conn, project, table, wanted, within)
        for term, held in found.items():
            ids, lengths = held.ids.tolist(), held.sizes.tolist()
            postings[term] = dict(zip(ids, held.counts.tolist(), strict=True))
            sizes.update(zip(ids, lengths, strict=True))
    hits: list[Hits] = []
    long: dict[int, list[int]] = {}  # phrase index -> rows holding all its tokens, to check in order
    for i, phrase in enumerate(phrases):
        if len(phrase) == 1:
            hits.append(postings[phrase[0]])
            continue
        hits.append({})
        if phrase:
            rows = set(postings[phrase[0]])
            for token in phrase[1:]:
                rows &= postings[token].keys()
            if rows:
                long[i] = sorted(rows)
    if long:
        _phrase_runs(conn, table, phrases, long, hits)
    return hits, sizes


def _phrase_runs(
    conn: Conn, table: _Table, phrases: Sequence[tuple[str, ...]], long: dict[int, list[int]], hits: list[Hits]
) -> None:
    """Occurrences of phrases of several tokens: where their tokens follow each other in a field.
    Rare (a word such as `a$b`), so the rows' text is read and cut again rather than stored with
    every token's offset."""
    ids = sorted({rid for rows in long.values() for rid in rows})
    rows = list(table.texts(conn, ids).items())
    at = token_positions(rows, table.fields)
    for i, candidates in long.items():
        phrase = phrases[i]
        for rid in candidates:
            counts = [0] * table.fields
            for field in range(table.fields):
                tokens = at.get((rid, field), {})
                counts[field] = sum(
                    1 for start, term in tokens.items()
                    if term == phrase[0] and all(tokens.get(start + k) == phrase[k] for k in range(1, len(phrase)))
                )
            if any(counts):
                hits[i][rid] = counts


def _expression(terms: Sequence[MatchTerm]) -> tuple[list[tuple[str, ...]], list[list[int]]]:
    """The phrases of `store.match_expression(terms)` in the order FTS5 numbers them, and its
    alternatives as lists of phrase indexes (a row matches when it holds every phrase of one)."""
    phrases: list[tuple[str, ...]] = []
    alternatives: list[list[int]] = []
    for term in terms:
        for words in term.alternatives:
            alternatives.append(list(range(len(phrases), len(phrases) + len(words))))
            phrases.extend(tokens_of(w) for w in words)
    return phrases, alternatives


def _exact(weights: Sequence[float]) -> bool:
    """Whether every sum of these weights times counts is exact in a double (weights of a few
    binary digits, as FIELD_WEIGHTS are): then the order of additions cannot change the result."""
    return all((w * 1024).is_integer() and abs(w) < 2**20 for w in weights)


def _frequency(counts: Counts, weights: Sequence[float]) -> float:
    """FTS5's weighted frequency: the weight of each instance's column added in column order
    (`weights` has one per field)."""
    if _exact(weights):
        return float(sum(n * w for n, w in zip(counts, weights, strict=True)))
    f = 0.0
    for n, w in zip(counts, weights, strict=True):
        for _ in range(n):
            f += w
    return f


_Array = npt.NDArray[np.generic]


@dataclass(frozen=True)
class _Weighed:
    """The rows holding one phrase, ids ascending, with its weighted frequency and their lengths."""

    ids: npt.NDArray[np.int64]
    freqs: npt.NDArray[np.float64]
    lengths: npt.NDArray[np.float64]


def _weighed(ids: Sequence[int] | _Array, freqs: Sequence[float] | _Array, lengths: Sequence[int] | _Array) -> _Weighed:
    rows = np.asarray(ids, dtype=np.int64)
    order = np.argsort(rows, kind="stable")
    return _Weighed(
        rows[order], np.asarray(freqs, dtype=np.float64)[order], np.asarray(lengths, dtype=np.float64)[order]
    )


def _weighted_hits(
    conn: Conn, project: int, table: _Table, phrases: Sequence[tuple[str, ...]], weights: Sequence[float]
) -> tuple[list[_Weighed], tuple[int, int] | None]:
    """Per phrase, the rows holding it with its weighted frequency and their lengths; and, when
    read on the way, the table's row count and total length (one token a phrase: nearly every
    query, whose statistics then come in the same round trip)."""
    padded = [float(weights[c]) if c < len(weights) else 1.0 for c in range(table.fields)]
    if any(len(p) != 1 for p in phrases):
        hits, sizes = _phrase_hits(conn, project, table, phrases)
        return [
            _weighed(list(h), [_frequency(c, padded) for c in h.values()], [sizes[rid] for rid in h]) for h in hits
        ], None
    found, stats = _postings(conn, project, table, [p[0] for p in phrases], stats=True)
    exact = _exact(padded)
    by_term: dict[str, _Weighed] = {}
    for term, rows in found.items():
        if exact:  # every sum is exact in a double, whatever the order of its additions
            freqs = rows.counts.astype(np.float64) @ np.asarray(padded, dtype=np.float64)
        else:
            freqs = np.asarray([_frequency(c, padded) for c in rows.counts.tolist()], dtype=np.float64)
        by_term[term] = _Weighed(rows.ids, freqs, rows.sizes.astype(np.float64))
    empty = _weighed([], [], [])
    return [by_term.get(p[0], empty) for p in phrases], stats


def _int8(packed: bytes) -> int:
    return int.from_bytes(packed, "big", signed=True)


_NOTHING = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))


def _ranked(
    conn: Conn, project: int, table: _Table, terms: Sequence[MatchTerm], weights: Sequence[float]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Every row matching `terms` (ids ascending) with its score (higher is better, FTS5's -bm25).

    Vectorised over rows, each with the operations of FTS5's loop in its order: a row's score adds
    its phrases' terms by phrase index from 0.0, and numpy's elementwise +, *, / are the same IEEE
    operations as Python's, so every score is the same double."""
    phrases, alternatives = _expression(terms)
    if not phrases:
        return _NOTHING
    hits, stats = _weighted_hits(conn, project, table, phrases, weights)
    # Per phrase, which of its rows it counts in: those where one of its alternatives matches.
    counted: list[npt.NDArray[np.bool_] | None] = [None] * len(phrases)
    for alternative in alternatives:
        rows = hits[alternative[0]].ids
        for i in alternative[1:]:
            rows = np.intersect1d(rows, hits[i].ids, assume_unique=True)
        for i in alternative:
            held = (
                np.ones(len(hits[i].ids), dtype=np.bool_) if len(alternative) == 1
                else np.isin(hits[i].ids, rows, assume_unique=True)
            )
            before = counted[i]
            counted[i] = held if before is None else before | held
    parts = [(i, mask) for i, mask in enumerate(counted) if mask is not None and mask.any()]
    if not parts:
        return _NOTHING
    if stats is None:
        row = conn.execute(
            f"SELECT count(*), coalesce(sum(size), 0) FROM {table.sizes} WHERE project_id = %s", (project,)
        ).fetchone()
        assert row is not None
        stats = (int(row[0]), int(row[1]))
    n_rows, total = stats
    avgdl = total / n_rows
    ids = np.unique(np.concatenate([hits[i].ids[mask] for i, mask in parts]))
    scores = np.zeros(len(ids), dtype=np.float64)
    for i, mask in parts:
        found = len(hits[i].ids)
        idf = math.log((n_rows - found + 0.5) / (found + 0.5))
        if not idf > 0.0:
            idf = IDF_FLOOR
        f = hits[i].freqs[mask]
        length = hits[i].lengths[mask]
        part = idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * length / avgdl)))
        scores[np.searchsorted(ids, hits[i].ids[mask])] += part
    return ids, scores


def _best(ids: npt.NDArray[np.int64], scores: npt.NDArray[np.float64], limit: int) -> list[tuple[int, float]]:
    # SQLite sorts by bm25 and keeps ties in rowid order (FTS5 visits rows by rowid).
    order = np.lexsort((ids, -scores))[:limit]
    return [(int(ids[k]), float(scores[k])) for k in order]


def _in_scope(conn: Conn, project: int, ids: Iterable[int], scope: Scope) -> set[int]:
    sql = "SELECT id FROM units WHERE project_id = %s AND id = ANY(%s)"
    params: list[object] = [project, sorted(ids)]
    for column, values in (("file_id", scope.file_ids), ("language", scope.languages), ("kind", scope.kinds)):
        if values is not None:
            sql += f" AND {column} = ANY(%s)"
            params.append(sorted(values))
    return {int(r[0]) for r in conn.execute(sql, params)}


def _scoped(scope: Scope) -> bool:
    return scope.file_ids is not None or scope.languages is not None or scope.kinds is not None


# -- the store's questions ------------------------------------------------------------------------


def unit_candidates(
    conn: Conn, project: int, terms: Sequence[MatchTerm], weights: Sequence[float], scope: Scope, limit: int
) -> list[tuple[int, float]]:
    """Unit ids and scores of the units matching any of `terms`, best first (SQLite's fts_candidates)."""
    ids, scores = _ranked(conn, project, _UNITS, terms, weights)
    if len(ids) and _scoped(scope):
        # The statistics are the whole project's, as FTS5's are the whole table's: a scope only
        # keeps some of the rows.
        allowed = np.isin(ids, sorted(_in_scope(conn, project, ids.tolist(), scope)))
        ids, scores = ids[allowed], scores[allowed]
    return _best(ids, scores, limit)


def directory_candidates(
    conn: Conn, project: int, terms: Sequence[MatchTerm], weights: Sequence[float], limit: int
) -> list[tuple[int, float]]:
    """Directory ids and scores of the directories matching any of `terms`, best first."""
    return _best(*_ranked(conn, project, _DIRECTORIES, terms, weights), limit)


def term_units(conn: Conn, project: int, terms: Sequence[str], cap: int) -> list[int]:
    """How many units hold each of `terms` (as FTS5 cuts and stems it), counted up to `cap`: the
    one-token terms in one statement (each call is a round trip), a phrase on its own."""
    phrases = [tokens_of(term) for term in terms]
    single = sorted({phrase[0] for phrase in phrases if len(phrase) == 1})
    counts: dict[str, int] = {}
    if single:
        # Each row holds a unit or more: `cap` rows hold at least `cap` units.
        rows = conn.execute(
            "SELECT t.term, (SELECT coalesce(sum(length(packed)), 0) FROM (SELECT packed FROM unit_postings"
            " WHERE project_id = %s AND term = t.term LIMIT %s) AS hits) FROM unnest(%s::text[]) AS t(term)",
            (project, cap, single),
        )
        counts = {str(term): min(int(size) // record_size(UNIT_FIELDS), cap) for term, size in rows}
    found = []
    for phrase in phrases:
        if len(phrase) == 1:
            found.append(counts.get(phrase[0], 0))
        else:
            hits, _ = _phrase_hits(conn, project, _UNITS, [phrase])
            found.append(min(len(hits[0]), cap))
    return found


def units_holding(conn: Conn, project: int, word: str, ids: Sequence[int]) -> list[int]:
    """Those of the units `ids` whose text holds `word`, in the order given."""
    if not ids:
        return []
    hits, _ = _phrase_hits(conn, project, _UNITS, [tokens_of(word)], within=ids)
    return [i for i in ids if i in hits[0]]


def directories_holding(conn: Conn, project: int, word: str, *, in_name: bool = False) -> set[int]:
    """Every directory whose text (with `in_name`, whose own name: its first field) holds `word`."""
    hits, _ = _phrase_hits(conn, project, _DIRECTORIES, [tokens_of(word)])
    return {rid for rid, counts in hits[0].items() if not in_name or counts[0] > 0}


def files_holding(conn: Conn, project: int, words: Sequence[str], texts: Sequence[str]) -> set[int]:
    """Ids of the files that may hold a line with all `words` (whole, as FTS5 cuts them) and all
    `texts` (exact): those with a unit holding them all, and those whose units may not hold every
    line (a unit cut at MAX_UNIT_CHARS, or a file with no unit), which are always read."""
    clauses: list[str] = []
    params: list[object] = [project]
    phrases = list(dict.fromkeys(tokens_of(w) for w in words))
    if any(not p for p in phrases):
        clauses.append("false")  # a word of separators only matches nothing, as in FTS5
    elif phrases:
        hits, _ = _phrase_hits(conn, project, _UNITS, phrases)
        holding = set(hits[0])
        for more in hits[1:]:
            holding &= more.keys()
        clauses.append("u.id = ANY(%s)")
        params.append(sorted(holding))
    for text in texts:
        clauses.append("strpos(u.content, %s) > 0")
        params.append(text)
    where = "".join(" AND " + c for c in clauses)
    sql = (
        f"SELECT DISTINCT u.file_id FROM units u WHERE u.project_id = %s{where}"
        " UNION SELECT f.id FROM files f WHERE f.project_id = %s AND f.status != 'skipped' AND ("
        " NOT EXISTS (SELECT 1 FROM units x WHERE x.file_id = f.id)"
        " OR (f.size >= %s AND EXISTS (SELECT 1 FROM units x WHERE x.file_id = f.id AND length(x.content) >= %s)))"
    )
    params.extend([project, MAX_UNIT_CHARS, MAX_UNIT_CHARS])
    return {int(r[0]) for r in conn.execute(sql, params)}


def name_candidates(
    conn: Conn, project: int, keys: Iterable[str], scope: Scope, limit: int, prefix: bool = False
) -> list[tuple[int, str, str, str]]:
    """(id, name, qualified_name, path) of units whose name key equals (or starts with) a key, up to
    `limit` a key, in the order SQLite's name-key index gives them: by key, then by id. One
    statement for every key: each call is a round trip."""
    wanted = [key for key in keys if key]
    if not wanted:
        return []
    # A prefix is the range [key, key + U+FFFF), as SQLite's index reads it.
    cond = "u.name_key >= k.key AND u.name_key < k.upper" if prefix else "u.name_key = k.key"
    sql = (
        "SELECT x.id, x.name, x.qualified_name, x.path FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY"
        " AS k(key, upper, n) CROSS JOIN LATERAL (SELECT u.id, u.name, u.qualified_name, u.name_key, f.path"
        f" FROM units u JOIN files f ON f.id = u.file_id WHERE u.project_id = %s AND {cond}"
    )
    params: list[object] = [wanted, [key + "\uffff" for key in wanted], project]
    for column, values in (("file_id", scope.file_ids), ("language", scope.languages), ("kind", scope.kinds)):
        if values is not None:
            sql += f" AND u.{column} = ANY(%s)"
            params.append(sorted(values))
    sql += " ORDER BY u.name_key, u.id LIMIT %s) AS x ORDER BY k.n, x.name_key, x.id"
    rows = conn.execute(sql, [*params, limit])
    return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]
