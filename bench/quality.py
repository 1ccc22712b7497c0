"""Retrieval quality lab: pinned real corpora, mechanically generated query sets with targets,
codefathom scored beside two baselines, ablations switched by configuration.

    python bench/quality.py fetch                    # download and unpack the corpora (network)
    python bench/quality.py generate                 # (re)write bench/queries/*.jsonl (deterministic)
    python bench/quality.py run --json bench/results/quality.json --markdown bench/results/quality.md
    python bench/quality.py run --quick              # 4 small corpora, no ablations: < 2 minutes
    python bench/quality.py embed --quick            # give the corpora's indexes vectors (slow: CPU model)
    python bench/quality.py run --ablations          # every RankingConfig variant in ABLATIONS too
    python bench/quality.py run --ranking names=false,rrf_k=20   # one custom configuration
    python bench/quality.py run --quick --expand     # also the system "expanded": graph expansion on
    python bench/quality.py run --expand expand_per_source=1     # ... with its knobs set
    python bench/quality.py --compare A.json B.json  # difference per cell, with significance
    python bench/quality.py report RESULTS.json      # the tables of a results file again

`run` needs no network once the corpora are downloaded (bench/.corpora/quality/, gitignored).
Vectors: `run` searches with whatever vectors a corpus's index holds (`embed` makes them; they are
kept in the index, cached by text, across runs) and adds the system "lexical only" (vectors off)
so that hybrid and lexical ranking are compared on the same queries; per corpus it reports the
share of units with a vector. A corpus with no vectors scores the same in both.
Each corpus is indexed with the real service (`codefathom.service.Codefathom`), queries run
with `search(query, limit=20, fresh=False)`; the metrics read the first 10 results.
Tune on the `tune` split only; `check` is for reporting.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from lab import corpora as lab_corpora  # noqa: E402
from lab import history, metrics, querygen  # noqa: E402
from lab.baselines import PlainBM25, TermCount, Units, WindowBM25, Windows  # noqa: E402

from codefathom.search.config import DEFAULT_RANKING, RankingConfig  # noqa: E402

FETCH_LIMIT = 20
REPLY_LIMIT = 10  # results in a search_code reply (its default limit): what the reading cost counts
# The characters read until the first correct result, per reply shape: compact (the default) and full
# (whole bodies, as replies were before), for these systems.
READING = {"chars@hit": "compact", "chars@hit full": "full"}
READING_SYSTEMS = ("codefathom", "lexical only")
EXPANDED = "expanded"  # the system searching with graph expansion on (search/expand.py)
SPLITS = ("tune", "check")
BASELINES = ("rg", "bm25", "bm25w")

# One switch at a time against the shipped ranking (DEFAULT_RANKING).
ABLATIONS: dict[str, RankingConfig] = {
    "BM25F channel only": DEFAULT_RANKING.with_(names=False, vectors=False),
    "name channel only": DEFAULT_RANKING.with_(lexical=False, vectors=False),
    "vector channel only": DEFAULT_RANKING.with_(lexical=False, names=False),
    "no name bonus": DEFAULT_RANKING.with_(name_bonus=False),
    "no kind prior": DEFAULT_RANKING.with_(kind_prior=False),
    "no role prior": DEFAULT_RANKING.with_(role_prior=False),
    "no priors": DEFAULT_RANKING.with_(kind_prior=False, role_prior=False),
    "uniform field weights": DEFAULT_RANKING.with_(field_weights=(1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
    "sum-of-scores fusion": DEFAULT_RANKING.with_(fusion="sum-of-scores"),
    "rrf k=10": DEFAULT_RANKING.with_(rrf_k=10),
    "rrf k=200": DEFAULT_RANKING.with_(rrf_k=200),
    "no directory nodes": DEFAULT_RANKING.with_(areas=False),
}


def parse_ranking(spec: str) -> RankingConfig:
    """`names=false,rrf_k=20,field_weights=10/5/3/2/1.5/1` -> RankingConfig."""
    types = {f.name: f.type for f in fields(RankingConfig)}
    changes: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in spec.split(","))):
        key, _, raw = item.partition("=")
        key = key.strip().replace("-", "_")
        if key not in types:
            raise SystemExit(f"unknown ranking option {key!r}; options: {', '.join(types)}")
        kind = str(types[key])
        if "bool" in kind:
            changes[key] = raw.strip().lower() in ("1", "true", "yes", "on")
        elif key == "field_weights":
            changes[key] = tuple(float(x) for x in raw.split("/"))
        elif "int" in kind:
            changes[key] = int(raw)
        elif "float" in kind:
            changes[key] = float(raw)
        else:
            changes[key] = raw.strip()
    return DEFAULT_RANKING.with_(**changes)


# ----------------------------------------------------------------------------- commands


def cmd_fetch(args: argparse.Namespace) -> None:
    for corpus in lab_corpora.select(args.corpus, args.quick):
        root = lab_corpora.ensure_src(corpus)
        print(f"{corpus.id:28} {lab_corpora.file_count(root):6} files  {root}")


def cmd_generate(args: argparse.Namespace) -> None:
    total: dict[str, int] = defaultdict(int)
    for corpus in lab_corpora.select(args.corpus, args.quick):
        started = time.perf_counter()
        if corpus.kind == "git":
            sets, strip = {"commit": history.generate_commits(corpus, args.seed)}, {}
        else:
            sets, strip = querygen.generate(corpus, args.seed)
        # Hand-written questions, where a corpus has them (of either kind), keep their split.
        history.split_questions(querygen.QUERIES_DIR / f"{corpus.id}.question.jsonl", args.seed)
        querygen.write(corpus, sets, strip)
        counts = {k: len(v) for k, v in sets.items()}
        for k, v in counts.items():
            total[k] += v
        lines = sum(int(e[1]) - int(e[0]) + 1 for edits in strip.values() for e in edits)  # type: ignore[call-overload]
        print(f"{corpus.id:28} {counts}  stripped {lines} lines in {len(strip)} files"
              f"  ({time.perf_counter() - started:.1f}s)")
    print(f"total {dict(total)} = {sum(total.values())}")


def prepare(corpus: lab_corpora.Corpus) -> Path:
    strip, digest = querygen.load_strip(corpus)
    return lab_corpora.build_lab(corpus, strip, digest)


def cmd_embed(args: argparse.Namespace) -> None:
    from codefathom.service import Codefathom

    for corpus in lab_corpora.select(args.corpus, args.quick):
        lab = prepare(corpus)
        with Codefathom(lab, index_dir=corpus.index_dir) as cf:
            cf.index()
            report = cf.embed(_every(30.0, corpus.id), budget_s=args.budget)
        print(f"{corpus.id:28} embedded {report.embedded:6} reused {report.reused:6} remaining {report.remaining:6}"
              f"  {report.seconds:7.1f}s  {report.units_per_second:5.1f} units/s", flush=True)


def _every(seconds: float, label: str) -> Callable[[int, int], None]:
    """A progress callback that prints at most once per `seconds`, and at the end."""
    last = [time.perf_counter()]

    def progress(done: int, total: int) -> None:
        if time.perf_counter() - last[0] > seconds or done == total:
            last[0] = time.perf_counter()
            print(f"  {label}: {done}/{total}", file=sys.stderr, flush=True)

    return progress


def cmd_run(args: argparse.Namespace) -> dict[str, Any]:
    from codefathom.service import Codefathom

    started = time.perf_counter()
    chosen = lab_corpora.select(args.corpus, args.quick)
    systems: dict[str, RankingConfig] = {
        "codefathom": DEFAULT_RANKING, "lexical only": DEFAULT_RANKING.with_(vectors=False),
    }
    if args.ranking:
        systems["custom"] = parse_ranking(args.ranking)
    if args.expand is not None:  # the shipped ranking (or the knobs given) with graph expansion on
        systems[EXPANDED] = parse_ranking(args.expand)
    if args.ablations:
        systems.update(ABLATIONS)
    sets = tuple(args.sets.split(",")) if args.sets else querygen.SETS
    per_query: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    queries_meta: dict[str, dict[str, str]] = {}
    corpora_out = []
    timings: dict[str, dict[str, float]] = {}
    for corpus in chosen:
        queries = querygen.load(corpus, sets)
        if args.limit_queries:
            queries = queries[: args.limit_queries]
        t0 = time.perf_counter()
        lab = prepare(corpus)
        index_dir = corpus.index_dir
        if args.fresh_index and index_dir.exists():
            import shutil

            shutil.rmtree(index_dir)
        with Codefathom(lab, index_dir=index_dir) as cf:
            report = cf.index()
            cf.embed(cached_only=True)  # a parser change re-parsed the corpus: link its cached vectors again
            index_s = time.perf_counter() - t0
            status = cf.status()
            t1 = time.perf_counter()
            for system, config in systems.items():
                for q in queries:
                    response = cf.search(q["query"], limit=FETCH_LIMIT, fresh=False, ranking=config,
                                         expand=system == EXPANDED)
                    # A directory node is marked by a trailing "/"; only a package's own description
                    # credits it (bench/lab/metrics.py).
                    results = [(h.path + "/" if h.kind == "directory" else h.path, h.start_line, h.end_line,
                                tuple((o.start_line, o.end_line) for o in h.overloads)) for h in response.results]
                    per_query[system][q["id"]] = _scored(results, q)
                    if system in READING_SYSTEMS:
                        per_query[system][q["id"]].update(_reading(response, results, q))
            search_s = time.perf_counter() - t1
            db_path = cf.settings.db_path
        t2 = time.perf_counter()
        if not args.no_baselines:
            units = Units(db_path)
            for baseline in (TermCount(units), PlainBM25(units), WindowBM25(Windows(db_path, lab))):
                for q in queries:
                    found = baseline.search(q["query"], FETCH_LIMIT)
                    per_query[baseline.name][q["id"]] = _scored(found, q)
                    if isinstance(baseline, WindowBM25):  # windows are read whole: by the overlap rule
                        shown = found[:REPLY_LIMIT]
                        per_query[baseline.name][q["id"]]["chars@hit"] = metrics.chars_to_first_hit(
                            baseline.reply_prefixes(shown), shown, q["targets"], q["level"], enclosing=True)
                if isinstance(baseline, PlainBM25):
                    baseline.close()
        baseline_s = time.perf_counter() - t2
        for q in queries:
            queries_meta[q["id"]] = {"corpus": corpus.id, "set": q["set"], "split": q["split"], "kind": q["kind"]}
        corpora_out.append({
            "id": corpus.id, "name": corpus.name, "version": corpus.version, "language": corpus.language,
            "source": corpus.kind, "package": corpus.package, "sha256": corpus.sha256,
            "files_in_tree": lab_corpora.file_count(lab), "files_indexed": status.files, "units": status.units,
            "languages": status.languages, "queries": len(queries),
            "vectors": (status.vectors or {}).get("with_vectors", 0),
        })
        timings[corpus.id] = {"index_s": round(index_s, 2), "search_s": round(search_s, 2),
                              "baselines_s": round(baseline_s, 2), "files_parsed": report.added + report.updated}
        print(f"{corpus.id:28} {status.files:5} files {status.units:6} units "
              f"{(status.vectors or {}).get('percent', 0):5}% vectors  {len(queries):4} queries  "
              f"index {index_s:5.1f}s  search {search_s:5.1f}s  baselines {baseline_s:5.1f}s", file=sys.stderr)
    result = {
        "meta": {
            "command": " ".join(["python", "bench/quality.py", *sys.argv[1:]]),
            "commit": _git_head(), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "python": platform.python_version(), "cpus": len(os.sched_getaffinity(0)),
            "quick": bool(args.quick), "seconds": round(time.perf_counter() - started, 1), "timings": timings,
            "fetch_limit": FETCH_LIMIT,
        },
        "systems": {name: asdict(config) | {"expand": name == EXPANDED} for name, config in systems.items()}
        | {b: None for b in BASELINES},
        "corpora": corpora_out,
        "queries": queries_meta,
        "per_query": per_query,
    }
    result["cells"] = cells(result)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1, sort_keys=False) + "\n")
    text = markdown(result)
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(text)
    print(text)
    print(f"done in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return result


def _reading(response: Any, results: list[metrics.Result], q: dict[str, Any]) -> dict[str, float]:
    """Characters read until the first correct result, for each reply shape (READING): the text
    search_code sends for its first REPLY_LIMIT results, up to and including the first hit."""
    from dataclasses import replace

    from codefathom.service import render

    shown = response.results[:REPLY_LIMIT]
    out = {}
    for key, shape in READING.items():
        view = render.SearchView(shape)
        prefix = [len(render.search_text(replace(response, results=shown[: i + 1]), view)) for i in range(len(shown))]
        out[key] = metrics.chars_to_first_hit(
            prefix, results[:REPLY_LIMIT], q["targets"], q["level"], directories=q["kind"] == "package"
        )
    return out


def _scored(results: list[metrics.Result], q: dict[str, Any]) -> dict[str, float]:
    """The metrics by the lab's rule, and MRR@10 by the overlap rule ("omrr@10"): a result that
    merely encloses a target (a class around a method, a window around a function) counts too. The
    window baseline is judged by the second; every system is reported by both."""
    scored = metrics.score(results, q["targets"], q["level"], directories=q["kind"] == "package")
    overlap = metrics.score(results, q["targets"], q["level"], directories=q["kind"] == "package", enclosing=True)
    return {**scored, "omrr@10": overlap["mrr@10"]}


# ----------------------------------------------------------------------------- tables


def cells(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Mean metrics per system x corpus x set x split, plus "all" rows (every query of the set)."""
    groups: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    language = {c["id"]: c["language"] for c in result["corpora"]}
    for qid, meta in result["queries"].items():
        for corpus in (meta["corpus"], "all", f"language:{language.get(meta['corpus'], '?')}"):
            for set_name in (meta["set"], "all"):
                groups[(corpus, set_name, meta["split"], "")].append(qid)
    out = []
    for system, scores in result["per_query"].items():
        for (corpus, set_name, split, _), ids in sorted(groups.items()):
            present = [scores[i] for i in ids if i in scores]
            if not present:
                continue
            out.append({
                "system": system, "corpus": corpus, "set": set_name, "split": split, "n": len(present),
                **{m: round(metrics.mean([p[m] for p in present]), 4) for m in metrics.METRICS},
                "omrr@10": round(metrics.mean([p.get("omrr@10", p["mrr@10"]) for p in present]), 4),
                **{key: round(metrics.mean([p[key] for p in present]), 1)
                   for key in READING if all(key in p for p in present)},
            })
    return out


def _cell(result: dict[str, Any], system: str, corpus: str, set_name: str, split: str) -> dict[str, Any] | None:
    for c in result["cells"]:
        if (c["system"], c["corpus"], c["set"], c["split"]) == (system, corpus, set_name, split):
            return c
    return None


def markdown(result: dict[str, Any]) -> str:
    sets = [s for s in (*querygen.SETS, "all") if any(c["set"] == s for c in result["cells"])]
    main = ["codefathom", *(s for s in ("lexical only", "custom", EXPANDED) if s in result["per_query"]), *BASELINES]
    main = [s for s in main if s in result["per_query"]]
    out = ["### Summary (all corpora)", "",
           "| set | split | n | system | MRR@10 | MRR@10, overlap | P@1 | R@5 | R@10 | nDCG@10 |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for set_name in sets:
        for split in SPLITS:
            for system in main:
                c = _cell(result, system, "all", set_name, split)
                if c:
                    out.append(f"| {set_name} | {split} | {c['n']} | {system} | {c['mrr@10']:.3f} "
                               f"| {c.get('omrr@10', c['mrr@10']):.3f} | {c['p@1']:.3f} "
                               f"| {c['r@5']:.3f} | {c['r@10']:.3f} | {c['ndcg@10']:.3f} |")
    reading = [s for s in READING_SYSTEMS if any("chars@hit" in c for c in result["cells"] if c["system"] == s)]
    if reading:
        out += ["", "### What an agent reads: characters until the first correct result", "",
                f"Mean characters of the reply text (its first {REPLY_LIMIT} results) up to and including the first",
                "hit; a reply with no hit counts whole. compact: the default reply; full: whole bodies.", "",
                "The window baseline's reply is its windows, each with its path and lines, read until the",
                "first one that shows a target (the overlap rule); \"windows / compact\" is what it costs beside",
                "the compact reply.", "",
                "| set | split | n | system | MRR@10 | compact | full | full / compact | windows | windows / compact |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for set_name in sets:
            for split in SPLITS:
                for system in reading:
                    c = _cell(result, system, "all", set_name, split)
                    if c and "chars@hit" in c:
                        ratio = c["chars@hit full"] / c["chars@hit"] if c["chars@hit"] else 0.0
                        w = _cell(result, "bm25w", "all", set_name, split) or {}
                        windows = (f"{w['chars@hit']:,.0f} | {w['chars@hit'] / c['chars@hit']:.1f}x"
                                   if "chars@hit" in w and c["chars@hit"] else "– | –")
                        out.append(f"| {set_name} | {split} | {c['n']} | {system} | {c['mrr@10']:.3f} "
                                   f"| {c['chars@hit']:,.0f} | {c['chars@hit full']:,.0f} | {ratio:.1f}x | {windows} |")
    languages = sorted({c["language"] for c in result["corpora"]})
    windows = "bm25w" if "bm25w" in result["per_query"] else None
    if windows:
        out += ["", "### By language: MRR@10 (tune / check); the window baseline by the overlap rule", "",
                "Without vectors: the shipped ranking searched with no vector channel (\"lexical only\"). Reading:",
                "characters until the first correct result (as above), lexical only against windows.", "",
                "| language | set | n | codefathom | codefathom, overlap | without vectors, overlap | bm25w, overlap "
                "| bm25 | reading, without vectors | reading, windows |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        columns = (("codefathom", "mrr@10"), ("codefathom", "omrr@10"), ("lexical only", "omrr@10"),
                   (windows, "omrr@10"), ("bm25", "mrr@10"), ("lexical only", "chars@hit"), (windows, "chars@hit"))
        for set_name in querygen.SETS:
            for lang in languages:
                row, n = [], 0
                for system, key in columns:
                    cs = [_cell(result, system, f"language:{lang}", set_name, split) for split in SPLITS]
                    shown = "{:,.0f}" if key == "chars@hit" else "{:.3f}"
                    row.append(" / ".join(shown.format(c.get(key, c["mrr@10"])) if c else "–" for c in cs))
                    n = sum(c["n"] for c in cs if c)
                if n:
                    out.append(f"| {lang} | {set_name} | {n} | " + " | ".join(row) + " |")
    out += ["", "### MRR@10 per corpus and set (tune / check)", ""]
    header = "| corpus | set | n | " + " | ".join(main) + " |"
    out += [header, "|---|---|---|" + "---|" * len(main)]
    for corpus in [c["id"] for c in result["corpora"]]:
        for set_name in querygen.SETS:
            row = []
            n = 0
            for system in main:
                parts = []
                for split in SPLITS:
                    c = _cell(result, system, corpus, set_name, split)
                    parts.append(f"{c['mrr@10']:.2f}" if c else "–")
                    if c and system == main[0]:
                        n += c["n"]
                row.append(" / ".join(parts))
            if n:
                out.append(f"| {corpus} | {set_name} | {n} | " + " | ".join(row) + " |")
    ablations = [s for s in result["per_query"] if s in ABLATIONS]
    if ablations:
        out += ["", "### Ablations: MRR@10 (tune / check), change against codefathom's shipped ranking", ""]
        out += ["| configuration | " + " | ".join(sets) + " |", "|---|" + "---|" * len(sets)]
        for system in ["codefathom", *ablations]:
            row = []
            for set_name in sets:
                parts = []
                for split in SPLITS:
                    c = _cell(result, system, "all", set_name, split)
                    base = _cell(result, "codefathom", "all", set_name, split)
                    if not c or not base:
                        parts.append("–")
                    elif system == "codefathom":
                        parts.append(f"{c['mrr@10']:.3f}")
                    else:
                        mark = "*" if _sign_p(result, system, set_name, split) < 0.05 else ""
                        parts.append(f"{c['mrr@10']:.3f} ({c['mrr@10'] - base['mrr@10']:+.3f}{mark})")
                row.append(" / ".join(parts))
            out.append(f"| {system} | " + " | ".join(row) + " |")
        out += ["", "`*`: the per-query MRR@10 differs from codefathom's with p < 0.05 (two-sided sign test)."]
    out.append("")
    return "\n".join(out)


def _sign_p(result: dict[str, Any], system: str, set_name: str, split: str) -> float:
    ids = [i for i, m in result["queries"].items() if m["split"] == split and set_name in (m["set"], "all")]
    base, other = result["per_query"]["codefathom"], result["per_query"][system]
    ids = [i for i in ids if i in base and i in other]
    return metrics.sign_test([base[i]["mrr@10"] for i in ids], [other[i]["mrr@10"] for i in ids])[2]


# ----------------------------------------------------------------------------- compare


def cmd_compare(a_path: str, b_path: str, metric: str) -> None:
    a, b = json.loads(Path(a_path).read_text()), json.loads(Path(b_path).read_text())
    meta = a["queries"]
    print(f"{metric}: B ({b_path}) minus A ({a_path}); p from a paired bootstrap over queries; "
          "w/l = queries better/worse in B")
    print(f"{'system':22} {'corpus':24} {'set':10} {'split':5} {'n':>4} {'A':>7} {'B':>7} {'diff':>7} {'p':>6}  w/l")
    for system in a["per_query"]:
        if system not in b["per_query"]:
            continue
        groups: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        for qid, m in meta.items():
            if qid in a["per_query"][system] and qid in b["per_query"][system]:
                for corpus in (m["corpus"], "all"):
                    for set_name in (m["set"], "all"):
                        groups[(corpus, set_name, m["split"])].append(qid)
        for (corpus, set_name, split), ids in sorted(groups.items(), key=lambda kv: (kv[0][0] != "all", kv[0])):
            xs = [a["per_query"][system][i][metric] for i in ids]
            ys = [b["per_query"][system][i][metric] for i in ids]
            diff = metrics.mean(ys) - metrics.mean(xs)
            p = metrics.paired_bootstrap(xs, ys)
            wins, losses, _ = metrics.sign_test(xs, ys)
            flag = " *" if p < 0.05 else ""
            print(f"{system:22} {corpus:24} {set_name:10} {split:5} {len(ids):4} {metrics.mean(xs):7.3f} "
                  f"{metrics.mean(ys):7.3f} {diff:+7.3f} {p:6.3f}  {wins}/{losses}{flag}")


def _git_head() -> str:
    try:
        head = subprocess.run(["git", "-C", str(BENCH), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(BENCH), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return head + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "?"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"), help="difference per cell, B minus A")
    parser.add_argument("--metric", default="mrr@10", choices=metrics.METRICS, help="for --compare")
    sub = parser.add_subparsers(dest="command")
    for name in ("fetch", "generate", "run", "embed"):
        p = sub.add_parser(name)
        p.add_argument("--corpus", action="append", help="only this corpus (name or id), repeatable")
        p.add_argument("--quick", action="store_true", help="the small --quick subset of corpora")
        if name == "generate":
            p.add_argument("--seed", type=int, default=querygen.SEED)
        if name == "embed":
            p.add_argument("--budget", type=float, default=None, help="seconds per corpus at most")
        if name == "run":
            p.add_argument("--json", help="write the full results (per query) here")
            p.add_argument("--markdown", help="write the tables here")
            p.add_argument("--ablations", action="store_true", help="also every configuration in ABLATIONS")
            p.add_argument("--ranking", help="also one custom RankingConfig: key=value,... (e.g. names=false)")
            p.add_argument("--expand", nargs="?", const="", metavar="KNOBS",
                           help="also the system 'expanded': graph expansion on, with these RankingConfig"
                                " settings (e.g. expand_sources=1,expand_per_source=1)")
            p.add_argument("--sets", help="comma-separated sets (default: all)")
            p.add_argument("--no-baselines", action="store_true")
            p.add_argument("--fresh-index", action="store_true", help="delete each corpus's index first")
            p.add_argument("--limit-queries", type=int, default=0, help=argparse.SUPPRESS)
    report = sub.add_parser("report", help="print the tables of a results JSON again")
    report.add_argument("results")
    args = parser.parse_args(argv)
    if args.compare:
        cmd_compare(*args.compare, args.metric)
    elif args.command == "fetch":
        cmd_fetch(args)
    elif args.command == "generate":
        cmd_generate(args)
    elif args.command == "run":
        cmd_run(args)
    elif args.command == "embed":
        cmd_embed(args)
    elif args.command == "report":
        print(markdown(json.loads(Path(args.results).read_text())))
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
