"""Peak memory and time of a first index with the graph, in a fresh process, on a pinned large corpus.

    python bench/memory.py                        # the 28k-file monorepo, fetched on first run
    python bench/memory.py --corpus django        # Django 5.1.4's sdist (bench/speed.py's corpus)
    python bench/memory.py --corpus ts --repeat 5 # a TypeScript monorepo the size of the peer's benchmark
    python bench/memory.py --corpus core --repeat 3 --src /path/to/other/checkout/src
    python bench/memory.py --corpus django --phases   # in this process: RSS after each phase

Each run is `python -m codefathom index CORPUS --no-embed -q` into a fresh CODEFATHOM_HOME, as a
user would run it. Measured: wall time; CPU time (user + sys) of the process tree; the largest
peak RSS of any one process of the run (the indexer, a parse worker or the forked binder:
`ru_maxrss` of the waited process tree, what `/usr/bin/time -v` reports); and, sampled every
50 ms from /proc, the peak of the RSS and of the PSS summed over the whole process tree (PSS
splits pages a forked child shares with its parent, so it is the memory the run holds; RSS counts
them twice).

The monorepo corpus (bench/.corpora/monorepo-28k/, gitignored) is three pinned projects side by
side, made one git repository with one commit: Django 5.1.4's sdist (PyPI, 6,709 files), Go 1.19's
source tree (Debian golang-1.19-src, 11,751 files) and six modules of OpenJDK 17's src.zip (Debian
openjdk-17-source: java.base, java.desktop, java.xml, jdk.hotspot.agent, jdk.compiler,
java.management; 9,477 files): 28,034 files listed in Python, Go, Java, C, assembly and text. Debian keeps
one version of a package per suite: if a pinned version has left the archive, `apt-get download`
fails and says so; pin the current one and its sha256.

The TypeScript corpus (`--corpus ts`, bench/.corpora/ts-28k/) is the size of the peer's published
benchmark (a 28,512-file TypeScript monorepo of 2.33 million lines): three TypeScript monorepos at
pinned commits side by side, one commit of 28,047 files. Each is taken from a bare clone at
bench/.corpora/downloads/<name>.git, cloned from GitHub when absent (an existing clone is used as
it is); blobs a partial clone lacks are left out and counted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

from sdist import commit_corpus, fetch_sdist  # the script directory is on sys.path
from speed import DJANGO, DJANGO_SHA256, django_core_corpus, django_corpus

BENCH_DIR = Path(__file__).resolve().parent
CORPORA = BENCH_DIR / ".corpora"
MONOREPO = CORPORA / "monorepo-28k"
DOWNLOADS = CORPORA / "downloads"
GO_DEB = ("golang-1.19-src=1.19.8-2", "golang-1.19-src_1.19.8-2_all.deb",
          "2dfa82fe4f08f4e0193c532e561af4c91871f5235608f04f2bb8d57bb288df5a")
JDK_DEB = ("openjdk-17-source=17.0.19+10-1~deb12u2", "openjdk-17-source_17.0.19+10-1~deb12u2_all.deb",
           "2591b37131025f872f057be99467b45f7fa2aed928c8d779208db9c3239e1190")
GO_ROOT = "usr/share/go-1.19/"
JDK_ZIP = "usr/lib/jvm/openjdk-17/lib/src.zip"
JDK_MODULES = ("java.base", "java.desktop", "java.xml", "jdk.hotspot.agent", "jdk.compiler", "java.management")
SAMPLE_S = 0.05
TS_MONOREPO = CORPORA / "ts-28k"
TS_PROJECTS = (  # (GitHub repository, pinned commit)
    ("medusajs/medusa", "59e6747800133e091d20c2c167f600981abc5c0d"),
    ("payloadcms/payload", "db7543c2121f0b672e33436447122b5e09ea4f2b"),
    ("typeorm/typeorm", "281bfba42a5813b106bcf5ba79bc7f7251bd1e73"),
)


def fetch_deb(package: str, artifact: str, sha256: str) -> Path:
    """A Debian package, downloaded with apt-get once and checked by sha256."""
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    path = DOWNLOADS / artifact
    if not path.exists():
        print(f"downloading {package} (deb) ...", file=sys.stderr)
        subprocess.run(["apt-get", "download", package], check=True, cwd=DOWNLOADS, stdout=subprocess.DEVNULL)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{path} has sha256 {digest}, not the pinned {sha256}; delete it and retry")
    return path


def monorepo_corpus() -> Path:
    """The 28k-file corpus, built once (see the module docstring)."""
    ready = CORPORA / "monorepo-28k.ready"  # outside the tree, or it would be indexed too
    if ready.exists() and MONOREPO.is_dir():
        return MONOREPO
    name, version = DJANGO
    django = fetch_sdist(f"{name}=={version}", f"{name}-{version}.tar.gz", DJANGO_SHA256, DOWNLOADS)
    go, jdk = fetch_deb(*GO_DEB), fetch_deb(*JDK_DEB)
    shutil.rmtree(MONOREPO, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix="unpack-", dir=CORPORA))
    try:
        print("unpacking ...", file=sys.stderr)
        target = staging / "tree"
        with tarfile.open(django) as tar:
            tar.extractall(staging / "django", filter="data")
        target.mkdir()
        (staging / "django" / f"{name}-{version}").rename(target / "django")
        for deb, where in ((go, staging / "go"), (jdk, staging / "jdk")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(where)], check=True)
        (staging / "go" / GO_ROOT).rename(target / "go")
        with zipfile.ZipFile(staging / "jdk" / JDK_ZIP) as zf:
            for info in zf.infolist():
                module = info.filename.split("/", 1)[0]
                if module in JDK_MODULES and not info.is_dir():
                    out = target / "jdk" / info.filename
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(zf.read(info))
        # Force-added: each project's own .gitignore (Go's testdata) must not drop files from the count.
        commit_corpus(target, "monorepo corpus: Django 5.1.4, Go 1.19.8, OpenJDK 17.0.19 (six modules)", force=True)
        target.rename(MONOREPO)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    ready.touch()
    return MONOREPO


def ts_monorepo_corpus() -> Path:
    """The 28k-file TypeScript corpus, built once (see the module docstring)."""
    ready = CORPORA / "ts-28k.ready"
    if ready.exists() and TS_MONOREPO.is_dir():
        return TS_MONOREPO
    shutil.rmtree(TS_MONOREPO, ignore_errors=True)
    target = Path(tempfile.mkdtemp(prefix="unpack-", dir=CORPORA)) / "tree"
    try:
        for repository, commit in TS_PROJECTS:
            clone = DOWNLOADS / f"{repository.split('/')[1]}.git"
            if not clone.is_dir():
                print(f"cloning {repository} ...", file=sys.stderr)
                url = f"https://github.com/{repository}.git"
                subprocess.run(["git", "clone", "--bare", "--quiet", url, str(clone)], check=True)
            missing = _write_tree(clone, commit, target / clone.stem)
            print(f"{repository}@{commit[:10]}: {missing} blobs absent from the clone, left out", file=sys.stderr)
        commit_corpus(target, "TypeScript corpus: " + ", ".join(f"{r}@{c[:10]}" for r, c in TS_PROJECTS), force=True)
        target.rename(TS_MONOREPO)
    finally:
        shutil.rmtree(target.parent, ignore_errors=True)
    ready.touch()
    return TS_MONOREPO


def _write_tree(clone: Path, commit: str, out: Path) -> int:
    """Every file of `commit` written under `out` (links left out); how many blobs were absent."""
    listing = subprocess.run(["git", "-C", str(clone), "ls-tree", "-r", "-z", commit],
                             capture_output=True, check=True).stdout
    entries = []
    for record in filter(None, listing.split(b"\0")):
        meta, path = record.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":
            entries.append((sha, os.fsdecode(path)))
    missing = 0
    with subprocess.Popen(["git", "-C", str(clone), "cat-file", "--batch"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE) as batch:
        assert batch.stdin is not None and batch.stdout is not None
        for sha, path in entries:
            batch.stdin.write(sha + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline()
            if header.endswith(b" missing\n"):
                missing += 1
                continue
            data = batch.stdout.read(int(header.split()[2]))
            batch.stdout.read(1)
            file = out / path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(data)
        batch.stdin.close()
    return missing


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants, from /proc."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    todo += [int(child) for child in handle.read().split()]
        except OSError:
            continue
    return found


def _rss_pss(pid: int) -> tuple[int, int]:
    """RSS and PSS of one process in kB (0, 0 once it is gone)."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def index_once(corpus: Path, src: Path | None) -> dict[str, Any]:
    """One first index in a fresh process; its time and memory."""
    env = dict(os.environ)
    env["CODEFATHOM_HOME"] = home = tempfile.mkdtemp(prefix="cf-memory-")
    if src is not None:
        env["PYTHONPATH"] = str(src)
    peaks = {"rss": 0, "pss": 0}
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "codefathom", "index", str(corpus), "--no-embed", "-q"], env=env)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(SAMPLE_S):
            total = [_rss_pss(pid) for pid in _tree(process.pid)]
            peaks["rss"] = max(peaks["rss"], sum(r for r, _ in total))
            peaks["pss"] = max(peaks["pss"], sum(p for _, p in total))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    size = sum(p.stat().st_size for p in Path(home).rglob("index.db*"))
    shutil.rmtree(home, ignore_errors=True)
    if process.returncode != 0:
        raise SystemExit(f"codefathom index exited with {process.returncode}")
    return {
        "seconds": round(seconds, 2),
        # user + sys of the process tree (its children are waited for: workers, the forked binder)
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "max_rss_mb": round(usage.ru_maxrss / 1024, 1),  # the largest one process (what time -v reports)
        "tree_rss_mb": round(peaks["rss"] / 1024, 1),
        "tree_pss_mb": round(peaks["pss"] / 1024, 1),
        "index_mb": round(size / 1e6, 1),
        "load": round(os.getloadavg()[0], 2),
    }


def _status_mb(pid: int | str = "self") -> dict[str, int]:
    """RSS, its heap (anonymous) and file-backed parts, and the peak so far, in MB."""
    found: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                    found[key] = int(value.split()[0]) // 1024
    except OSError:
        pass
    return found


def phases(corpus: Path) -> None:
    """Index `corpus` in this process with the sync's phases hooked, printing this process's RSS
    (heap and file-backed) and that of its children (parse workers, a forked binder) at each."""
    os.environ["CODEFATHOM_HOME"] = home = tempfile.mkdtemp(prefix="cf-memory-")
    try:
        _phases(corpus)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _phases(corpus: Path) -> None:
    import codefathom.service.indexer as indexer
    from codefathom.service import Codefathom
    from codefathom.store.graph_cache import GraphRowCache
    from codefathom.store.sqlite import SQLiteStore as Store  # (its methods are patched)
    from codefathom.store.sqlite.graph import SQLiteGraphLookup

    started = time.perf_counter()

    def mark(what: str) -> None:
        own = _status_mb()
        children = sorted(_status_mb(pid).get("VmRSS", 0) for pid in _tree(os.getpid())[1:])
        print(f"{time.perf_counter() - started:7.1f} s  {what:34} RSS {own.get('VmRSS')} MB (heap {own.get('RssAnon')},"
              f" file {own.get('RssFile')}), peak {own.get('VmHWM')}; children {children}", file=sys.stderr)

    def hooked(owner: Any, name: str, before: str | None, after: str) -> None:
        real = getattr(owner, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if before:
                mark(before)
            result = real(*args, **kwargs)
            mark(after)
            return result

        setattr(owner, name, wrapper)

    hooked(indexer, "rebind", "files written (all batches)", "references bound")
    hooked(indexer, "recompute_ranks", None, "PageRank")
    hooked(Store, "refresh_directories", None, "directory nodes")
    hooked(GraphRowCache, "preload", None, "graph preloaded")
    batches = [0]

    def batch_saved(lookup: Any, rows: Any) -> None:
        real_save(lookup, rows)
        batches[0] += 1
        if batches[0] % 10 == 1:
            mark(f"binding batch {batches[0]} saved")

    real_save = SQLiteGraphLookup.save_bindings
    SQLiteGraphLookup.save_bindings = batch_saved  # type: ignore[method-assign]

    def progress(done: int, total: int, path: str) -> None:
        if done % 5000 < 200 or done == total:
            mark(f"parsed and written {done}/{total}")

    mark("start")
    Codefathom(corpus).index(progress)
    mark("done")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="monorepo", help="monorepo | ts | django | core | a directory")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--src", type=Path, help="index with the codefathom package under this directory")
    parser.add_argument("--json", type=Path, help="write the runs here")
    parser.add_argument("--phases", action="store_true", help="index in this process, RSS at each phase")
    args = parser.parse_args()
    builders = {"monorepo": monorepo_corpus, "ts": ts_monorepo_corpus,
                "django": django_corpus, "core": django_core_corpus}
    corpus = builders.get(args.corpus)
    root = corpus() if corpus is not None else Path(args.corpus).resolve()
    if args.phases:
        phases(root)
        return
    listed = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=True)
    files = len(listed.stdout.splitlines())
    print(f"{root} ({files} files listed by git), load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    runs = []
    for number in range(args.repeat):
        run = index_once(root, args.src)
        runs.append(run)
        print(f"run {number + 1}: " + ", ".join(f"{k} {v}" for k, v in run.items()), file=sys.stderr)
    summary = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    print(json.dumps({"corpus": str(root), "files": files, "median": summary, "runs": runs}, indent=1))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"corpus": str(root), "files": files, "runs": runs}, indent=1) + "\n")


if __name__ == "__main__":
    main()
