"""Speed benchmark: index, re-sync and search a pinned real repository through the service API.

    python bench/speed.py                      # Django 5.1.4 sdist, downloaded on first run
    python bench/speed.py --repeat 3 --json bench/results/speed.json
    python bench/speed.py --core               # only its django/ package, no translation catalogs
    python bench/speed.py --corpus ~/src/some-project

The default corpus is Django 5.1.4's source distribution from PyPI, unpacked under
bench/.corpora/ (gitignored) and made into its own git repository with one commit, so that
codefathom sees it as a project of its own (it lives inside this repository's work tree, where
it is ignored) and lists it with git, as it would a real checkout.

Everything runs in this process through `codefathom.service.Codefathom`, with a fresh temporary
index directory per full index. Measured:
  full index        wall time of `index()` into an empty index (median of --repeat runs)
  re-sync           `index()` again with nothing changed (median of several runs)
  touch 10 / edit 10  `index()` after 10 files got a new mtime only / a line added
  search            per-query latency of `search()` over 50 fixed queries, p50 and p95,
                    with fresh=False (index as is) and fresh=True (the default: re-sync first)
  index size        bytes of index.db plus its -wal and -shm files after the full index
  peak memory       ru_maxrss of this process, and of its largest child (a parse worker, or git)
The corpus is never left modified: edited files get their bytes and mtimes back (a pinned corpus
is also reset to its commit if an earlier run was killed mid-edit). Do not point --corpus at a
tree someone is editing: the 10 edited files are rewritten for about a second.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sdist import fetch_sdist  # the script directory is on sys.path

BENCH_DIR = Path(__file__).resolve().parent
CORPORA = BENCH_DIR / ".corpora"
DJANGO = ("Django", "5.1.4")
DJANGO_SHA256 = "de450c09e91879fa5a307f696e57c851955c910a438a35e6b4c895e86bedc82a"  # Django-5.1.4.tar.gz

# The targets a 2-core machine should meet on a ~1,600-file, ~100k-line repository.
TARGET_FILES, TARGET_LINES = 1_600, 100_000
TARGET_FULL_S = 4.0
TARGET_RESYNC_S = 0.2
TARGET_SEARCH_P50_MS = 20.0

# Fixed, so runs compare: identifiers, qualified names, and the way people ask in words.
QUERIES: tuple[str, ...] = (
    # identifiers
    "get_object_or_404", "HttpResponseRedirect", "slugify", "csrf_exempt", "ForeignKey", "select_related",
    "login_required", "render_to_string", "GenericForeignKey", "ManyToManyField", "send_mail",
    "urlsafe_base64_encode", "DateTimeShortcuts", "RequestFactory", "cached_property", "atomic",
    # qualified names
    "QuerySet.filter", "Model.save", "Field.deconstruct", "Paginator.page", "HttpRequest.get_host",
    "MigrationAutodetector.changes", "Query.add_q", "SQLCompiler.as_sql", "BaseCommand.handle",
    "Template.render", "django.utils.timezone.now", "ModelAdmin.get_queryset", "Signal.connect",
    "SessionBase.get_expiry_age",
    # natural language
    "how are database migrations squashed", "where is the csrf token checked", "password hashing algorithm",
    "send an email with attachments", "cache backend using redis", "timezone aware datetime conversion",
    "parse the accept language header", "reverse a url name to a path", "validate an uploaded image file",
    "paginate a list of objects", "compile a queryset to sql", "run database migrations on startup",
    "serialize model instances to json", "escape html in templates", "admin changelist filters",
    "signal sent after a model is saved", "static files storage with hashed names",
    "translate strings for the current language", "connection pooling for postgres", "form field validation errors",
)
assert len(QUERIES) == 50


@dataclass
class Timing:
    samples: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def pct(self, q: float) -> float:
        ordered = sorted(self.samples)
        if len(ordered) == 1:
            return ordered[0]
        rank = q / 100 * (len(ordered) - 1)  # linear interpolation between closest ranks
        low = int(rank)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)

    def as_json(self, scale: float = 1.0) -> dict[str, Any]:
        return {
            "median": round(self.median * scale, 4), "min": round(min(self.samples) * scale, 4),
            "max": round(max(self.samples) * scale, 4), "p95": round(self.pct(95) * scale, 4),
            "runs": len(self.samples),
        }


# ----------------------------------------------------------------------------- corpus


def django_ready(core: bool = False) -> bool:
    name, version = DJANGO
    stem = f"{name}-{version}" + ("-core" if core else "")
    return (CORPORA / f"{stem}.ready").exists() and (CORPORA / stem).is_dir()


def django_corpus() -> Path:
    """Django's sdist, downloaded with pip and unpacked on first use, as a one-commit git repo."""
    name, version = DJANGO
    target = CORPORA / f"{name}-{version}"
    ready = CORPORA / f"{name}-{version}.ready"  # outside the tree, or it would be indexed too
    if django_ready():
        return target
    archive = fetch_sdist(f"{name}=={version}", f"{name}-{version}.tar.gz", DJANGO_SHA256, CORPORA / "downloads")
    print(f"unpacking {archive.name} ...", file=sys.stderr)
    shutil.rmtree(target, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix="unpack-", dir=CORPORA))
    try:
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(staging, filter="data")  # no links out, no absolute paths, no foreign owners
            else:  # Python before 3.11.4
                for member in tar.getmembers():
                    if member.name.startswith("/") or ".." in member.name.split("/"):
                        raise SystemExit(f"refusing to unpack {member.name} from {archive}")
                tar.extractall(staging)
        (unpacked,) = staging.iterdir()
        unpacked.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _git_commit(target, f"{name} {version} sdist")
    ready.write_text(f"{name} {version}\n")
    return target


def django_core_corpus() -> Path:
    """The sdist's `django` package alone, without its translation catalogs (`locale/`): a real
    repository nearer the size the targets are stated for than the whole sdist."""
    name, version = DJANGO
    target = CORPORA / f"{name}-{version}-core"
    ready = CORPORA / f"{name}-{version}-core.ready"
    if ready.exists() and target.is_dir():
        return target
    full = django_corpus()
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(full / "django", target / "django", ignore=shutil.ignore_patterns("locale"))
    _git_commit(target, f"{name} {version} sdist, django/ without locale/")
    ready.write_text(f"{name} {version} core\n")
    return target


def _git_commit(target: Path, message: str) -> None:
    if shutil.which("git"):
        ident = ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "init.defaultBranch=main"]
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", message]):
            subprocess.run(["git", *ident, "-C", str(target), *args], check=True, capture_output=True)


def _reset_if_dirty(corpus: Path) -> None:
    """A run killed while files were edited leaves them so: put the pinned corpus back."""
    if shutil.which("git") and _git(corpus, "status", "--porcelain"):
        print(f"resetting {corpus.name} to its commit (a previous run was interrupted)", file=sys.stderr)
        subprocess.run(["git", "-C", str(corpus), "checkout", "-q", "--", "."], check=True)
        subprocess.run(["git", "-C", str(corpus), "clean", "-q", "-fd"], check=True)


# ----------------------------------------------------------------------------- measurements


def lines_and_files(db_path: Path, root: Path) -> tuple[int, int, int]:
    """(indexed files, units, lines) from the index itself: the files it holds, read from disk."""
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as conn:
        paths = [r[0] for r in conn.execute("SELECT path FROM files WHERE status != 'skipped'")]
        units = conn.execute("SELECT count(*) FROM units").fetchone()[0]
    lines = 0
    for path in paths:
        data = (root / path).read_bytes()
        lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return len(paths), int(units), lines


def pick_files(db_path: Path, count: int) -> list[str]:
    """Up to `count` parsed files spread over the project, the same ones every run: Python
    files when there are enough, else any the parser understood."""
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as conn:
        python, other = [], []
        for path, language in conn.execute(
            "SELECT path, language FROM files WHERE status = 'ok' AND unit_count > 1 ORDER BY path"
        ):
            (python if language == "python" else other).append(path)
    paths = python if len(python) >= count else python + other
    if len(paths) <= count:
        return paths
    step = len(paths) / count
    return [paths[int(i * step)] for i in range(count)]


class Restorer:
    """Puts edited files back as they were, bytes and mtime, whatever happens."""

    def __init__(self, root: Path, paths: list[str]) -> None:
        self.saved = {}
        for rel in paths:
            path = root / rel
            info = path.stat()
            self.saved[path] = (path.read_bytes(), info.st_atime_ns, info.st_mtime_ns)

    def restore(self) -> None:
        for path, (data, atime, mtime) in self.saved.items():
            if path.read_bytes() != data:
                path.write_bytes(data)
            os.utime(path, ns=(atime, mtime))


def _max_rss_mb(who: int) -> float:
    return round(resource.getrusage(who).ru_maxrss / 1024, 1)  # KiB on Linux


def bump_mtimes(paths: list[Path], step_ns: int) -> None:
    for path in paths:
        info = path.stat()
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + step_ns))


def run(corpus: Path, repeat: int, resync_runs: int) -> dict[str, Any]:
    from codefathom.service import Codefathom

    try:
        from codefathom.service.workers import worker_count
    except ImportError:  # a codefathom from before parallel parsing
        def worker_count() -> int:
            return 0

    results: dict[str, Any] = {}
    full: list[float] = []
    report = None
    keep_dir: Path | None = None
    scratch = Path(tempfile.mkdtemp(prefix="codefathom-bench-"))
    try:
        for attempt in range(repeat):
            index_dir = scratch / f"index-{attempt}"
            with Codefathom(corpus, index_dir=index_dir) as service:
                started = time.perf_counter()
                report = service.index()
                full.append(time.perf_counter() - started)
                status = service.status()
            print(f"  full index {attempt + 1}/{repeat}: {full[-1]:.2f}s", file=sys.stderr)
            if attempt == 0:
                results["peak_rss_after_full_index_mb"] = _max_rss_mb(resource.RUSAGE_SELF)
                results["peak_rss_worker_mb"] = _max_rss_mb(resource.RUSAGE_CHILDREN)
            if keep_dir is not None:
                shutil.rmtree(keep_dir)
            keep_dir = index_dir
        assert report is not None and keep_dir is not None
        root = Path(status.project_root)
        files, units, lines = lines_and_files(keep_dir / "index.db", root)
        results["corpus"] = {
            "root": str(root), "discovered": report.discovered, "indexed_files": files,
            "skipped_files": report.discovered - files, "left_out_by_discovery": len(report.skipped),
            "units": units, "lines": lines, "languages": status.languages, "parse_health": status.parse_health,
            "discovery": report.method,
        }
        results["full_index_s"] = Timing(full).as_json()
        results["index_bytes"] = status.index_bytes

        with Codefathom(corpus, index_dir=keep_dir) as service:
            service.index()  # warm: the first sync of a process opens the index
            resync = []
            for _ in range(resync_runs):
                started = time.perf_counter()
                report = service.index()
                resync.append(time.perf_counter() - started)
                assert report.changed == 0 and report.touched == 0, "the corpus changed during the benchmark"
            results["resync_unchanged_s"] = Timing(resync).as_json()
            print(f"  re-sync unchanged: {Timing(resync).median * 1000:.1f} ms", file=sys.stderr)

            picked = pick_files(keep_dir / "index.db", 10)
            restorer = Restorer(root, picked)
            paths = [root / p for p in picked]
            touched: list[float] = []
            edited: list[float] = []
            try:
                for attempt in range(repeat if picked else 0):
                    bump_mtimes(paths, 1_000_000_000 * (attempt + 1))
                    started = time.perf_counter()
                    report = service.index()
                    touched.append(time.perf_counter() - started)
                    assert report.touched == len(paths) and report.changed == 0, report
                    for path in paths:
                        with path.open("ab") as handle:
                            handle.write(b"\n")  # new bytes, still valid in any language
                    started = time.perf_counter()
                    report = service.index()
                    edited.append(time.perf_counter() - started)
                    assert report.updated == len(paths), report
                    restorer.restore()
                    service.index()
            finally:
                restorer.restore()
            service.index()
            results["resync_touch10_s"] = Timing(touched).as_json() if touched else None
            results["resync_edit10_s"] = Timing(edited).as_json() if edited else None
            results["edited_files"] = picked  # fewer than 10 only in a corpus that has fewer

            for query in QUERIES:  # warm-up: page cache, SQLite cache, compiled statements
                service.search(query, fresh=False)
            stale, fresh = [], []
            top: dict[str, list[str]] = {}
            for _ in range(repeat):
                for query in QUERIES:
                    started = time.perf_counter()
                    response = service.search(query, fresh=False)
                    stale.append(time.perf_counter() - started)
                    top[query] = [f"{h.path}:{h.start_line} {h.qualified_name}" for h in response.results[:3]]
            for _ in range(repeat):
                for query in QUERIES:
                    started = time.perf_counter()
                    service.search(query)  # fresh=True, the default: re-sync, then search
                    fresh.append(time.perf_counter() - started)
            for key, samples in (("search_ms", stale), ("search_fresh_ms", fresh)):
                timing = Timing(samples)
                results[key] = {
                    "p50": round(timing.pct(50) * 1000, 2), "p95": round(timing.pct(95) * 1000, 2),
                    "max": round(max(samples) * 1000, 2), "queries": len(QUERIES), "samples": len(samples),
                }
            results["top_results"] = top
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    results["peak_rss_mb"] = _max_rss_mb(resource.RUSAGE_SELF)
    results["workers"] = worker_count()
    return results


# ----------------------------------------------------------------------------- report


def environment(corpus: Path, pinned: bool, core: bool = False) -> dict[str, Any]:
    import codefathom

    repo = BENCH_DIR.parent
    commit = _git(repo, "rev-parse", "--short", "HEAD")
    dirty = bool(_git(repo, "status", "--porcelain", "--untracked-files=no"))
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 0
    return {
        "corpus": (
            f"{DJANGO[0]} {DJANGO[1]} (PyPI sdist{', django/ without locale/' if core else ''})"
            if pinned else str(corpus)
        ),
        "codefathom": getattr(codefathom, "__version__", "?"), "commit": (commit or "?") + ("+dirty" if dirty else ""),
        "python": platform.python_version(), "sqlite": sqlite3.sqlite_version, "cpus": cpus,
        "machine": f"{platform.system()} {platform.machine()}", "processor": _cpu_model(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def table(env: dict[str, Any], r: dict[str, Any]) -> str:
    c = r["corpus"]
    full = r["full_index_s"]["median"]
    files_rate, lines_rate = c["indexed_files"] / full, c["lines"] / full
    need_files, need_lines = TARGET_FILES / TARGET_FULL_S, TARGET_LINES / TARGET_FULL_S
    edits = len(r["edited_files"])
    rate_ok = "ok" if files_rate >= need_files and lines_rate >= need_lines else "MISS"
    rows = [
        ("corpus", f"{env['corpus']}: {c['indexed_files']:,} files indexed ({c['discovered']:,} listed), "
                   f"{c['lines']:,} lines, {c['units']:,} units", ""),
        ("full index", f"{full:.2f} s",
         _verdict(full, TARGET_FULL_S, "s") + f" for ~{TARGET_FILES:,} files / ~{TARGET_LINES:,} lines"),
        ("  throughput", f"{files_rate:,.0f} files/s, {lines_rate:,.0f} lines/s",
         f"{rate_ok} (target implies >= {need_files:,.0f} files/s and {need_lines:,.0f} lines/s)"),
        ("re-sync, nothing changed", f"{r['resync_unchanged_s']['median'] * 1000:.0f} ms",
         _verdict(r["resync_unchanged_s"]["median"] * 1000, TARGET_RESYNC_S * 1000, "ms")),
        (f"re-sync, {edits} files touched", _ms(r["resync_touch10_s"]), "mtime only"),
        (f"re-sync, {edits} files edited", _ms(r["resync_edit10_s"]), "a line added"),
        ("search p50 / p95, fresh=False", f"{r['search_ms']['p50']:.1f} / {r['search_ms']['p95']:.1f} ms",
         _verdict(r["search_ms"]["p50"], TARGET_SEARCH_P50_MS, "ms", "p50")),
        ("search p50 / p95, fresh=True",
         f"{r['search_fresh_ms']['p50']:.1f} / {r['search_fresh_ms']['p95']:.1f} ms", "re-sync included"),
        ("index size on disk", f"{r['index_bytes'] / 1e6:.1f} MB", "index.db + -wal + -shm"),
        ("peak memory (max RSS)", f"{r['peak_rss_after_full_index_mb']:.0f} MB after the first full index, "
         f"{r['peak_rss_mb']:.0f} MB at the end", f"largest child {r['peak_rss_worker_mb']:.0f} MB "
         f"(parse workers: {r['workers']})"),
    ]
    width = max(len(k) for k, _, _ in rows)
    vwidth = max(len(v) for _, v, _ in rows[1:])
    head = (f"codefathom {env['codefathom']} ({env['commit']}), Python {env['python']}, SQLite {env['sqlite']}, "
            f"{env['cpus']} CPUs ({env['processor']})")
    lines = [head, ""]
    for key, value, note in rows:
        lines.append(f"  {key:<{width}}  {value:<{vwidth}}  {note}".rstrip())
    return "\n".join(lines)


def _ms(timing: dict[str, Any] | None) -> str:
    return "n/a" if timing is None else f"{timing['median'] * 1000:.0f} ms"


def _verdict(value: float, target: float, unit: str, label: str = "") -> str:
    mark = "ok" if value <= target else "MISS"
    return f"{mark} (target{' ' + label if label else ''} < {target:g} {unit})"


def _git(repo: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="index this directory instead of the pinned Django sdist")
    parser.add_argument(
        "--core", action="store_true",
        help="only the sdist's django/ package, without locale/ catalogs (about the targets' repo size)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="full indexes, edit rounds and search passes (3)")
    parser.add_argument("--resync-runs", type=int, default=15, help="no-change re-syncs to time (15)")
    parser.add_argument("--workers", type=int, help="parse worker processes (sets CODEFATHOM_WORKERS; 0: none)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every number to FILE")
    args = parser.parse_args()
    if args.repeat < 1 or args.resync_runs < 1:
        parser.error("--repeat and --resync-runs must be at least 1")
    if args.workers is not None:
        os.environ["CODEFATHOM_WORKERS"] = str(args.workers)
    pinned = args.corpus is None
    if args.core and not pinned:
        parser.error("--core and --corpus exclude each other")
    if pinned and not (django_ready(core=True) if args.core else django_ready()):
        django_core_corpus() if args.core else django_corpus()
        # Start over in a fresh process, so that pip and git are not among the children whose
        # peak memory is reported.
        os.execv(sys.executable, [sys.executable, *sys.argv])
    if pinned:
        corpus = django_core_corpus() if args.core else django_corpus()
        _reset_if_dirty(corpus)
    else:
        corpus = args.corpus.expanduser().resolve()
    if not corpus.is_dir():
        parser.error(f"not a directory: {corpus}")
    env = environment(corpus, pinned, args.core)
    from codefathom.service.project import resolve_project

    if (root := resolve_project(corpus).root) != corpus:
        # codefathom would index (and this benchmark edit files of) the enclosing project instead
        parser.error(f"{corpus} is inside the git work tree {root}; pass a directory that is its own project")
    print(f"benchmarking {env['corpus']} at {corpus}", file=sys.stderr)
    results = run(corpus, args.repeat, args.resync_runs)
    results["environment"] = env
    results["command"] = " ".join(["python", "bench/speed.py", *sys.argv[1:]])
    results["targets"] = {
        "reference_repo": {"files": TARGET_FILES, "lines": TARGET_LINES}, "full_index_s": TARGET_FULL_S,
        "resync_unchanged_s": TARGET_RESYNC_S, "search_p50_ms": TARGET_SEARCH_P50_MS,
    }
    print("\n" + table(env, results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
        print(f"\nwrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
