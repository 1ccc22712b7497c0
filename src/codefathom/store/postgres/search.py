"""Lexical search on PostgreSQL, ranked as SQLite's FTS5 ranks it: postings and row lengths written
beside the searchable text, cut by SQLite's own FTS5 tokenizer, and FTS5's bm25 computed over them.

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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from codefathom.model import MatchTerm
from codefathom.parse.windows import MAX_UNIT_CHARS
from codefathom.store.postgres.db import Conn
from codefathom.store.postings import (
    ID_MARK,
    TOKENIZER,
    UNIT_FIELDS,
    RowPostings,
    count_postings,
    token_positions,
    tokens_of,
)
from codefathom.store.records import Scope

__all__ = [
    "TOKENIZER", "UNIT_FIELDS", "DIRECTORY_FIELDS", "tokens_of", "write_unit_postings",
    "rewrite_unit_postings", "write_directory_postings", "unit_candidates", "directory_candidates", "term_units",
    "units_holding", "directories_holding", "files_holding", "name_candidates",
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
    key: str
    sizes: str
    texts: str  # (id, field...) of the rows = ANY(%s)
    fields: int

    @property
    def counts(self) -> str:
        """The columns of a posting's occurrences per field, in field order."""
        return ", ".join(f"n{c}" for c in range(self.fields))


_UNITS = _Table(
    "unit_terms", "unit_id", "unit_sizes",
    "SELECT unit_id, name, qualified_name, signature, doc, path, body, summary FROM unit_texts"
    " WHERE unit_id = ANY(%s)",
    UNIT_FIELDS,
)
_DIRECTORIES = _Table(
    "directory_terms", "directory_id", "directory_sizes",
    "SELECT id, name_text, path_text, files_text, definitions_text, doc_text FROM directories WHERE id = ANY(%s)",
    DIRECTORY_FIELDS,
)


# -- writing --------------------------------------------------------------------------------------


def _write(conn: Conn, project: int, table: _Table, postings: Sequence[tuple[int, RowPostings]]) -> None:
    """Rows' postings and lengths: (row id, what `postings.count_postings` made of its fields)."""
    if not postings:
        return
    with conn.cursor() as cursor:
        columns = f"term, {table.counts}, size, project_id, {table.key}"
        with cursor.copy(f"COPY {table.terms} ({columns}) FROM STDIN") as copy:
            copy.write("".join(lines.replace(ID_MARK, f"{project}\t{rid}") for rid, (lines, _) in postings))
        with cursor.copy(f"COPY {table.sizes} ({table.key}, project_id, size) FROM STDIN") as copy:
            copy.write("".join(f"{rid}\t{project}\t{size}\n" for rid, (_, size) in postings))


def write_unit_postings(conn: Conn, project: int, postings: Sequence[tuple[int, RowPostings]]) -> None:
    """Postings and lengths of new units: (unit id, its postings as `count_postings` made them)."""
    _write(conn, project, _UNITS, postings)


def rewrite_unit_postings(conn: Conn, project: int, unit_ids: Sequence[int]) -> None:
    """Postings and lengths of units whose unit_texts changed (a summary stored), made again."""
    ids = sorted(set(unit_ids))
    if not ids:
        return
    conn.execute("DELETE FROM unit_terms WHERE unit_id = ANY(%s)", (ids,))
    conn.execute("DELETE FROM unit_sizes WHERE unit_id = ANY(%s)", (ids,))
    rows = [(int(r[0]), tuple(str(t) for t in r[1:])) for r in conn.execute(_UNITS.texts, (ids,))]
    postings = count_postings([texts for _, texts in rows], _UNITS.fields)
    _write(conn, project, _UNITS, [(rid, p) for (rid, _), p in zip(rows, postings, strict=True)])


def write_directory_postings(conn: Conn, project: int, rows: Sequence[tuple[int, Sequence[str]]]) -> None:
    """Postings and lengths of new directory nodes: (directory id, its five *_text fields)."""
    postings = count_postings([texts for _, texts in rows], _DIRECTORIES.fields)
    _write(conn, project, _DIRECTORIES, [(rid, p) for (rid, _), p in zip(rows, postings, strict=True)])


# -- matching -------------------------------------------------------------------------------------


def _phrase_hits(
    conn: Conn, project: int, table: _Table, phrases: Sequence[tuple[str, ...]], within: Sequence[int] | None = None
) -> tuple[list[Hits], dict[int, int]]:
    """Per phrase, the rows holding it (of `within`, else of the project) with its occurrences per
    field; and the length of every row found."""
    wanted = sorted({t for p in phrases for t in p})
    postings: dict[str, Hits] = {t: {} for t in wanted}
    sizes: dict[int, int] = {}
    if wanted:
        sql = (
            f"SELECT term, {table.key}, size, {table.counts} FROM {table.terms}"
            " WHERE project_id = %s AND term = ANY(%s)"
        )
        params: list[object] = [project, wanted]
        if within is not None:
            sql += f" AND {table.key} = ANY(%s)"
            params.append(sorted(set(within)))
        for term, rid, size, *counts in conn.execute(sql, params):
            postings[term][rid] = counts
            sizes[rid] = size
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
    rows = [(int(r[0]), tuple(str(t) for t in r[1:])) for r in conn.execute(table.texts, (ids,))]
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
    read on the way, the table's row count and total length. With exact weights and one token a
    phrase (nearly every query), PostgreSQL weighs the counts, so that a row comes back as a term
    and three numbers rather than with every count, and the statistics come in the same round trip."""
    padded = [float(weights[c]) if c < len(weights) else 1.0 for c in range(table.fields)]
    if not _exact(padded) or any(len(p) != 1 for p in phrases):
        hits, sizes = _phrase_hits(conn, project, table, phrases)
        return [
            _weighed(list(h), [_frequency(c, padded) for c in h.values()], [sizes[rid] for rid in h]) for h in hits
        ], None
    weighed = " + ".join(f"n{c} * {w!r}::float8" for c, w in enumerate(padded))
    wanted = sorted({p[0] for p in phrases})
    # A sentence's words hold thousands of postings: each term's come back as three packed arrays
    # (int8send/float8send, concatenated in one scan order), read by numpy without a Python object
    # a posting. The statistics' row has no term.
    rows = conn.execute(
        f"SELECT term, string_agg(int8send({table.key}::int8), ''::bytea),"
        f" string_agg(float8send({weighed}), ''::bytea), string_agg(int8send(size::int8), ''::bytea)"
        f" FROM {table.terms} WHERE project_id = %s AND term = ANY(%s)"
        " GROUP BY term UNION ALL SELECT NULL, int8send(count(*)), NULL, int8send(coalesce(sum(size), 0)::int8)"
        f" FROM {table.sizes} WHERE project_id = %s",
        (project, wanted, project),
    ).fetchall()
    empty = _weighed([], [], [])
    by_term: dict[str, _Weighed] = {}
    stats = (0, 0)
    for term, ids, freqs, lengths in rows:
        if term is None:
            stats = (_int8(ids), _int8(lengths))
        else:
            by_term[term] = _weighed(
                np.frombuffer(ids, dtype=">i8"), np.frombuffer(freqs, dtype=">f8"), np.frombuffer(lengths, dtype=">i8")
            )
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
        rows = conn.execute(
            "SELECT t.term, (SELECT count(*) FROM (SELECT 1 FROM unit_terms WHERE project_id = %s AND term = t.term"
            " LIMIT %s) AS hits) FROM unnest(%s::text[]) AS t(term)",
            (project, cap, single),
        )
        counts = {str(term): int(count) for term, count in rows}
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
    phrases = [tokens_of(w) for w in words]
    if any(not p for p in phrases):
        clauses.append("false")  # a word of separators only matches nothing, as in FTS5
    for phrase in dict.fromkeys(p for p in phrases if len(p) == 1):
        clauses.append("u.id IN (SELECT unit_id FROM unit_terms WHERE project_id = %s AND term = %s)")
        params.extend([project, phrase[0]])
    longer = [p for p in dict.fromkeys(phrases) if len(p) > 1]
    if longer and "false" not in clauses:
        hits, _ = _phrase_hits(conn, project, _UNITS, longer)
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
