"""Search quality while vectors are still arriving: what the vector channel is worth at 5, 20, 50 and
100 % coverage, against searching without it, on the quality lab's embedded corpora.

    python bench/quality.py embed --corpus requests-1f6589e ...   # once: embed the corpora asked about
    python bench/vector_coverage.py --corpus requests-1f6589e --corpus cobra-adbc881 ... --json out.json

For each corpus whose lab index has every unit embedded, and each coverage P, a copy of its index
keeps the vectors of the first P of its units in the order a background pass embeds them
(service/embedding.py `_by_importance`: source definitions by PageRank first) and forgets the rest,
as a user's index is P of the way through its first embedding pass. Every query of the lab is then
searched twice on that copy: with the vector channel whatever the coverage (the gate lowered to 0)
and with it off. MRR@10 per query set, the lab's rule (bench/lab/metrics.py). The shipped gate
(`MIN_VECTOR_SHARE`) is the lowest coverage at which vectors lose on no set.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from lab import corpora as lab_corpora  # noqa: E402
from lab import querygen  # noqa: E402
from quality import FETCH_LIMIT, _scored, prepare  # noqa: E402

from codefathom.search.config import DEFAULT_RANKING  # noqa: E402
from codefathom.service import Codefathom, embedding  # noqa: E402
from codefathom.store.sqlite.vectors import pending_units  # noqa: E402

COVERAGES = (0.05, 0.2, 0.5, 1.0)


def embedding_order(db: Path) -> list[int]:
    """Every unit id in the order a first background pass embeds them."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return embedding._by_importance(pending_units(conn, embedded_too=True))
    finally:
        conn.close()


def with_coverage(index_dir: Path, share: float, into: Path) -> None:
    """A copy of the index in `into` keeping the vectors of the first `share` of the units."""
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    source = sqlite3.connect(index_dir / "index.db")
    target = sqlite3.connect(into / "index.db")
    source.backup(target)
    source.close()
    order = embedding_order(into / "index.db")
    drop = order[int(round(share * len(order))):]
    target.execute("CREATE TEMP TABLE dropped(id INTEGER PRIMARY KEY)")
    target.executemany("INSERT INTO dropped VALUES (?)", [(i,) for i in drop])
    target.execute("UPDATE units SET embed_key = NULL WHERE id IN (SELECT id FROM dropped)")
    # A copy of its own vectors: a matrix this process loaded for the copy before, at the same path,
    # must not be taken for this one (store/matrices.py keys it by path and epoch).
    target.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('vector_epoch', ?)", (f"coverage {share}",))
    target.commit()
    target.close()


def run(corpus_names: list[str], coverages: tuple[float, ...]) -> dict[str, Any]:
    embedding.MIN_VECTOR_SHARE = 0.0  # search with whatever vectors there are: the gate is what is measured
    per_query: dict[str, dict[str, float]] = defaultdict(dict)
    meta: dict[str, dict[str, str]] = {}
    used = []
    for corpus in lab_corpora.select(corpus_names, False):
        lab = prepare(corpus)
        with Codefathom(lab, index_dir=corpus.index_dir) as cf:
            cf.index()
            vectors = cf.status().vectors or {}
        if vectors.get("percent", 0) < 100:
            print(f"{corpus.id}: {vectors.get('percent', 0)}% embedded, skipped (bench/quality.py embed)",
                  file=sys.stderr)
            continue
        used.append(corpus.id)
        queries = querygen.load(corpus)
        for q in queries:
            meta[q["id"]] = {"corpus": corpus.id, "set": q["set"], "split": q["split"]}
        with tempfile.TemporaryDirectory(prefix="codefathom-coverage-") as tmp:
            for share in coverages:
                t0 = time.perf_counter()
                copy = Path(tmp) / "index"
                with_coverage(corpus.index_dir, share, copy)
                with Codefathom(lab, index_dir=copy) as cf:
                    for system, config in ((f"vectors {share:.0%}", DEFAULT_RANKING),
                                           ("no vectors", DEFAULT_RANKING.with_(vectors=False))):
                        if system == "no vectors" and share != coverages[0]:
                            continue  # the same on every copy
                        for q in queries:
                            response = cf.search(q["query"], limit=FETCH_LIMIT, fresh=False, ranking=config)
                            results = [(h.path, h.start_line, h.end_line) for h in response.results]
                            per_query[system][q["id"]] = _scored(results, q)["mrr@10"]
                print(f"{corpus.id:28} {share:5.0%}  {len(queries)} queries  {time.perf_counter() - t0:.1f}s",
                      file=sys.stderr)
    return {"corpora": used, "queries": meta, "per_query": per_query}


def table(result: dict[str, Any]) -> str:
    systems = list(result["per_query"])
    sets = sorted({m["set"] for m in result["queries"].values()})
    lines = ["| set | split | n | " + " | ".join(systems) + " |", "|---|---|---|" + "---|" * len(systems)]
    for set_name in [*sets, "all"]:
        for split in ("tune", "check"):
            ids = [i for i, m in result["queries"].items()
                   if (set_name == "all" or m["set"] == set_name) and m["split"] == split]
            if not ids:
                continue
            cells = [f"{statistics.fmean(result['per_query'][s][i] for i in ids):.3f}" for s in systems]
            lines.append(f"| {set_name} | {split} | {len(ids)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", help="a lab corpus (name or id), repeatable; default: all")
    parser.add_argument("--coverage", type=float, action="append", help="a share of units with vectors, repeatable")
    parser.add_argument("--json", help="write the per-query results here")
    args = parser.parse_args()
    result = run(args.corpus, tuple(args.coverage or COVERAGES))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    print(f"corpora: {', '.join(result['corpora'])}\n")
    print(table(result))


if __name__ == "__main__":
    main()
