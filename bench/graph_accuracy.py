"""Reference-binding accuracy (Python): codefathom's call bindings checked against jedi.

    pip install jedi                                    # or: pip install -e '.[bench]'
    python bench/graph_accuracy.py                      # rich 13.9.4, requests 2.32.3, click 8.1.7
    python bench/graph_accuracy.py --corpus rich --limit 2000
    python bench/graph_accuracy.py --corpus ~/src/project --limit 3000 --json /tmp/accuracy.json

The pinned corpora are PyPI source distributions, downloaded with `pip download` on first use,
checked against their sha256, unpacked under bench/.corpora/ (gitignored) and committed into a
git repository of their own, so codefathom lists them as it would a checkout. Each is indexed with
the real service (`codefathom.service.Codefathom`) into a fresh temporary index directory; the
`refs`, `symbols` and `files` tables are then read read-only from its SQLite file. rich and
requests are the corpora the binder was tuned on; click was held out until that was done.

For every call reference (`refs.kind = 'call'`) jedi is the oracle:
`Script(path, project=Project(root)).goto(line, column, follow_imports=True)` at the called name
(the corpus, and its src/, come first on jedi's sys.path, before any installed copy).
  jedi in-project   jedi's answer lies in a file of the corpus and is a definition codefathom can
                    name: a class, a function, a module, or an assignment at module or class level
                    (not a parameter or a local variable, and not an import jedi could not follow)
  correct           our target is in jedi's file, jedi's line lies in our symbol's
                    [start_line, end_line] and the names agree; or the full names agree (jedi
                    answered from a stub of the corpus); or we name `Class.attr` declared in the
                    class body where jedi names a `self.attr = ...` in a method of that class
  precision (label) correct / bound refs of that label where jedi gave any answer (an answer
                    outside the corpus or a parameter counts against us)
  recall            correct / call refs jedi resolves in-project (exact+high, and any label)
jedi's answers are cached per corpus, jedi version and cache format
(bench/.corpora/<corpus>.jedi-<version>.v<format>.json), so a re-run after a change to the binder
only re-indexes (seconds); `--no-cache` asks jedi again (a minute or two for the three corpora on
2 processes). Mismatches and misses, grouped by pattern (label, shape of the call, what jedi
answered) with examples, go to the JSON file (--json, default bench/results/graph-accuracy.json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tarfile
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accuracy_report import print_lists, scratch_index, share, write_results  # the script directory is on sys.path
from sdist import commit_corpus, fetch_sdist, spread_sample  # the script directory is on sys.path

BENCH_DIR = Path(__file__).resolve().parent
CORPORA = BENCH_DIR / ".corpora"
RESULTS = BENCH_DIR / "results"

# name -> (PyPI project, version, sha256 of the sdist)
PINNED: dict[str, tuple[str, str, str]] = {
    "rich": ("rich", "13.9.4", "439594978a49a09530cff7ebc4b5c7103ef57baf48d5ea3184f21d9a2befa098"),
    "requests": ("requests", "2.32.3", "55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760"),
    # held out: not looked at while the binder was tuned on the two above
    "click": ("click", "8.1.7", "ca9853ad459e787e2192211578cc907e7594e294c7ccc834310722b41b9ca6de"),
}
BOUND = ("exact", "high", "likely", "possible")
LABELS = (*BOUND, "unbound", "external", "builtin", "local")
EXAMPLES_PER_PATTERN = 8
TOP_PATTERNS = 25


# ----------------------------------------------------------------------------- corpus


def pinned_corpus(name: str) -> Path:
    """The sdist of a pinned project, downloaded, verified and unpacked on first use."""
    project, version, sha256 = PINNED[name]
    target = CORPORA / f"{project}-{version}"
    ready = CORPORA / f"{project}-{version}.ready"  # outside the tree, or it would be indexed too
    if ready.exists() and target.is_dir():
        return target
    archive = fetch_sdist(f"{project}=={version}", f"{project}-{version}.tar.gz", sha256, CORPORA / "downloads")
    shutil.rmtree(target, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix="unpack-", dir=CORPORA))
    try:
        with tarfile.open(archive) as tar:
            tar.extractall(staging, filter="data")  # no links out, no absolute paths
        (unpacked,) = staging.iterdir()
        unpacked.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    commit_corpus(target, f"{project} {version} sdist")
    ready.write_text(f"{project} {version}\n")
    return target


# ----------------------------------------------------------------------------- our side


@dataclass(frozen=True, slots=True)
class Call:
    path: str
    line: int
    col: int  # 0-based byte column of the called name (tree-sitter)
    name: str
    receiver: str
    label: str
    confidence: float
    target: tuple[str, int, int, str, str] | None  # path, start, end, name, qualified name


def index_calls(root: Path) -> tuple[list[Call], dict[str, Any]]:
    with scratch_index(root, "codefathom-accuracy-") as (conn, seconds):
        rows = conn.execute(
            "SELECT f.path, r.line, r.col, r.name, r.receiver, r.label, r.confidence,"
            " tf.path, s.start_line, s.end_line, s.name, s.qualified_name"
            " FROM refs r JOIN files f ON f.id = r.file_id"
            " LEFT JOIN symbols s ON s.id = r.target_id LEFT JOIN files tf ON tf.id = s.file_id"
            " WHERE r.kind = 'call' AND f.language = 'python' ORDER BY f.path, r.line, r.col"
        ).fetchall()
        files = conn.execute("SELECT count(*) FROM files WHERE language = 'python'").fetchone()[0]
    calls = [
        Call(p, line, col, name, receiver, label, conf, (tp, s, e, n, q) if tp is not None else None)
        for p, line, col, name, receiver, label, conf, tp, s, e, n, q in rows
    ]
    return calls, {"python_files": files, "index_seconds": round(seconds, 2)}


# ----------------------------------------------------------------------------- jedi's side

# One answer of jedi: (kind, path relative to the root or None, line, name, jedi type, full name)
#   kind: project (a definition we could name) | local (a parameter or local variable in the
#   corpus) | unfollowed (an import jedi could not follow) | outside (stdlib, third party, builtins)
# An answer in a stub (.pyi) of the corpus is given the path of the module beside it, and line 0:
# it matches by full name only.
Answer = tuple[str, str | None, int, str, str, str]
CACHE_FORMAT = 2

_project: Any = None
_root: Path | None = None


def _init_worker(root: str, sys_path: list[str]) -> None:
    import jedi

    global _project, _root
    _root = Path(root)
    _project = jedi.Project(root, sys_path=sys_path)


def _ask_file(job: tuple[str, list[tuple[int, int]]]) -> tuple[str, dict[str, list[Answer]]]:
    import jedi

    path, positions = job
    assert _root is not None
    source_path = _root / path
    lines = source_path.read_bytes().split(b"\n")
    script = jedi.Script(path=str(source_path), project=_project)
    answers: dict[str, list[Answer]] = {}
    for line, col in positions:
        column = len(lines[line - 1][:col].decode("utf-8", errors="replace"))  # bytes -> characters
        try:
            names = script.goto(line, column, follow_imports=True)
        except Exception:  # noqa: BLE001 - jedi fails on some constructs: no answer
            names = []
        answers[f"{line}:{col}"] = [_answer(name) for name in names]
    return path, answers


def _answer(name: Any) -> Answer:
    assert _root is not None
    module_path = name.module_path
    try:
        relative = str(Path(module_path).resolve().relative_to(_root.resolve())) if module_path else None
    except ValueError:
        relative = None
    kind = "outside"
    line = int(name.line or 0)
    if relative is not None and relative.endswith(".pyi"):
        beside = relative[:-1]
        relative, line = (beside, 0) if (_root / beside).exists() else (None, line)
    if relative is not None:
        kind = "project"
        tree_name = getattr(name._name, "tree_name", None)
        if tree_name is not None and tree_name.search_ancestor("import_from", "import_name") is not None:
            kind = "unfollowed"
        elif name.type in ("param",):
            kind = "local"
        elif name.type not in ("class", "function", "module", "property"):
            parent = name.parent()
            if parent is None or parent.type not in ("module", "class"):
                kind = "local"
    return kind, relative, line, str(name.name), str(name.type), str(name.full_name or "")


def jedi_sys_path(root: Path) -> list[str]:
    """The corpus first (and its src/ when it has one), then the interpreter's own path, so the
    corpus's package wins over an installed copy of the same package."""
    import jedi

    base = [p for p in jedi.get_default_environment().get_sys_path() if p and Path(p).resolve() != root.resolve()]
    first = [str(root / "src")] if (root / "src").is_dir() else []
    return [*first, str(root), *base]


def ask_jedi(
    root: Path, calls: list[Call], cache_file: Path | None, processes: int
) -> dict[tuple[str, int, int], list[Answer]]:
    cached: dict[str, dict[str, list[Answer]]] = {}
    if cache_file is not None and cache_file.exists():
        cached = {p: {k: [tuple(a) for a in v] for k, v in d.items()}  # type: ignore[misc]
                  for p, d in json.loads(cache_file.read_text()).items()}
    wanted: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for call in calls:
        if f"{call.line}:{call.col}" not in cached.get(call.path, {}):
            wanted[call.path].append((call.line, call.col))
    if wanted:
        jobs = sorted(wanted.items(), key=lambda job: -len(job[1]))  # biggest first: better balance
        total = sum(len(p) for p in wanted.values())
        print(f"asking jedi about {total} calls in {len(jobs)} files ({processes} processes) ...", file=sys.stderr)
        started = time.perf_counter()
        setup = (str(root), jedi_sys_path(root))
        with ProcessPoolExecutor(processes, initializer=_init_worker, initargs=setup) as pool:
            for done, (path, answers) in enumerate(pool.map(_ask_file, jobs), 1):
                cached.setdefault(path, {}).update(answers)
                if done % 20 == 0 or done == len(jobs):
                    print(f"  {done}/{len(jobs)} files, {time.perf_counter() - started:.0f}s", file=sys.stderr)
        if cache_file is not None:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            cache_file.write_text(json.dumps(cached))
    result = {}
    for call in calls:
        result[(call.path, call.line, call.col)] = cached[call.path][f"{call.line}:{call.col}"]
    return result


# ----------------------------------------------------------------------------- scoring


def shape(receiver: str) -> str:
    """How the called name is reached: the pattern mismatches are grouped by."""
    if not receiver:
        return "name()"
    if receiver == "super()":
        return "super().m()"
    if receiver in ("self", "cls"):
        return f"{receiver}.m()"
    head = receiver.split(".")[0]
    if head in ("self", "cls"):
        return f"{head}.attr.m()" if receiver.count(".") == 1 else f"{head}.a.b.m()"
    if "(" in receiver or "[" in receiver:
        return "expr().m()"
    if receiver.isidentifier():
        return "var.m()"
    if all(part.isidentifier() for part in receiver.split(".")):
        return "a.b.m()"
    return "expr.m()"


def matches(call: Call, answers: list[Answer]) -> bool:
    """Our target is jedi's: the same file, jedi's line inside our symbol and the same name; or the
    same full name (a definition jedi found in a stub of the corpus); or the attribute declared in
    the class body (`Class.attr`) where jedi names a `self.attr = ...` in a method of the class."""
    if call.target is None:
        return False
    path, start, end, name, qualified = call.target
    for kind, jpath, jline, jname, jtype, jfull in answers:
        if jfull and jfull == qualified and kind in ("project", "local"):
            return True
        owner, _, attribute = jfull.rpartition(".")
        if jtype == "statement" and jpath == path and f"{owner.rpartition('.')[0]}.{attribute}" == qualified:
            return True  # `self.attr = ...` in a method, where we name `attr` declared in the class body
        if kind != "project" or jpath != path:
            continue
        if jtype == "module" or (start <= jline <= end and jname == name):
            return True
    return False


def score(calls: list[Call], oracle: dict[tuple[str, int, int], list[Answer]]) -> dict[str, Any]:
    per_label: dict[str, Counter[str]] = {label: Counter() for label in LABELS}
    patterns: dict[str, list[dict[str, Any]]] = defaultdict(list)
    resolvable = 0
    for call in calls:
        answers = oracle[(call.path, call.line, call.col)]
        kinds = {a[0] for a in answers}
        counts = per_label.setdefault(call.label, Counter())
        counts["refs"] += 1
        in_project = "project" in kinds
        resolvable += in_project
        if in_project:
            counts["jedi_in_project"] += 1
        elif answers:
            counts["jedi_elsewhere"] += 1
        else:
            counts["jedi_none"] += 1
        ok = matches(call, answers)
        if call.label in BOUND and answers:
            counts["checked"] += 1
            counts["correct"] += ok
        if ok:
            counts["recalled"] += 1
        wrong = call.label in BOUND and answers and not ok
        missed = in_project and not ok and not wrong
        if wrong or missed:
            jedi_kind = "/".join(sorted(kinds))
            key = f"{'wrong' if wrong else 'missed'} {call.label} {shape(call.receiver)} jedi={jedi_kind}"
            patterns[key].append({
                "site": f"{call.path}:{call.line}",
                "call": f"{call.receiver}.{call.name}" if call.receiver else call.name,
                "ours": f"{call.target[4]} ({call.target[0]}:{call.target[1]})" if call.target else None,
                "jedi": [f"{a[0]} {a[4]} {a[5] or a[3]} {a[1]}:{a[2]}" for a in answers[:3]],
            })
    table = {}
    for label in LABELS:
        c = per_label[label]
        table[label] = {
            "refs": c["refs"], "jedi_in_project": c["jedi_in_project"], "jedi_elsewhere": c["jedi_elsewhere"],
            "jedi_none": c["jedi_none"], "checked": c["checked"], "correct": c["correct"],
            "precision": share(c["correct"], c["checked"]),
            "recalled": c["recalled"],
        }
    trusted = [per_label[label] for label in ("exact", "high")]
    trusted_checked = sum(c["checked"] for c in trusted)
    trusted_correct = sum(c["correct"] for c in trusted)
    recalled_trusted = sum(c["recalled"] for c in trusted)
    recalled_any = sum(per_label[label]["recalled"] for label in BOUND)
    ordered = sorted(patterns.items(), key=lambda item: -len(item[1]))
    return {
        "calls": len(calls),
        "jedi_in_project": resolvable,
        "labels": table,
        "precision_exact_high": share(trusted_correct, trusted_checked),
        "recall_exact_high": share(recalled_trusted, resolvable),
        "recall_any_label": share(recalled_any, resolvable),
        "patterns": [
            {"pattern": key, "count": len(items), "examples": items[:EXAMPLES_PER_PATTERN]}
            for key, items in ordered[:TOP_PATTERNS]
        ],
    }


def print_report(name: str, info: dict[str, Any], result: dict[str, Any]) -> None:
    print(f"\n{name}: {info['python_files']} Python files, {result['calls']} call refs,"
          f" {result['jedi_in_project']} resolved in-project by jedi")
    print(f"{'label':10} {'refs':>7} {'jedi in':>8} {'jedi out':>9} {'jedi none':>9} {'checked':>8}"
          f" {'correct':>8} {'precision':>9}")
    for label, row in result["labels"].items():
        precision = f"{row['precision'] * 100:.1f}%" if row["precision"] is not None else "-"
        print(f"{label:10} {row['refs']:>7} {row['jedi_in_project']:>8} {row['jedi_elsewhere']:>9}"
              f" {row['jedi_none']:>9} {row['checked']:>8} {row['correct']:>8} {precision:>9}")

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value * 100:.1f}%"

    print(f"precision exact+high {pct(result['precision_exact_high'])}, recall exact+high"
          f" {pct(result['recall_exact_high'])}, recall any label {pct(result['recall_any_label'])}")
    print_lists(result, patterns=12)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", help="rich, requests or a directory (repeatable; default both)")
    parser.add_argument("--limit", type=int, default=0, help="check only N call refs, spread over the corpus")
    parser.add_argument("--json", type=Path, default=RESULTS / "graph-accuracy.json", help="where results go")
    parser.add_argument("--processes", type=int, default=2, help="jedi worker processes")
    parser.add_argument("--no-cache", action="store_true", help="ask jedi again instead of reading its cached answers")
    args = parser.parse_args(argv)
    try:
        import jedi
    except ImportError:
        raise SystemExit("jedi is needed: pip install jedi (or pip install -e '.[bench]')") from None

    output: dict[str, Any] = {"jedi": jedi.__version__, "python": sys.version.split()[0], "corpora": {}}
    for name in args.corpus or list(PINNED):
        if name in PINNED:
            root = pinned_corpus(name)
            label = f"{PINNED[name][0]} {PINNED[name][1]}"
            cache_name = f"{root.name}.jedi-{jedi.__version__}.v{CACHE_FORMAT}.json"
            cache: Path | None = None if args.no_cache else CORPORA / cache_name
        else:
            root = Path(name).expanduser().resolve()
            label, cache = root.name, None
        calls, info = index_calls(root)
        calls = spread_sample(calls, args.limit)
        started = time.perf_counter()
        oracle = ask_jedi(root, calls, cache, max(1, args.processes))
        info["jedi_seconds"] = round(time.perf_counter() - started, 1)
        result = score(calls, oracle)
        print_report(label, info, result)
        output["corpora"][label] = {**info, **result}
    write_results(args.json, output)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
