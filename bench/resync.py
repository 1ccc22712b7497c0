"""Re-sync benchmark: what "re-sync before every answer" costs, unchanged and after edits.

    python bench/resync.py                       # Django --core and the ~30,000-file mix
    python bench/resync.py --corpus core --corpus django --json bench/results/resync.json
    python bench/resync.py --corpus ~/src/some-project

Corpora (downloaded with pip on first use, checked against pinned sha256, unpacked under
bench/.corpora/ and committed into a git repository of their own, as bench/speed.py does):
  core    Django 5.1.4's django/ package without its locale/ catalogs (1,024 files)
  django  the whole Django 5.1.4 sdist (6,709 files)
  mix     nine sdists side by side in one repository, 29,554 files: Django 5.1.4, ansible-core
          2.17.7, botocore 1.35.76, salt 3007.1, sympy 1.13.3, Pygments 2.18.0, mypy 1.13.0,
          Twisted 24.11.0, kubernetes 31.0.0

Everything runs through `codefathom.service.Codefathom.index()`, the sync every search runs
first, on an index kept under bench/.corpora/resync-index/ (built on first use; a later run
only syncs it). Measured, each the median of --runs runs:
  unchanged, warm       index() again in the same process (the MCP server's case)
  unchanged, cold       a new Codefathom each time: open the index, load the kept listing,
                        sweep (a CLI call's case, without the interpreter's start-up)
  unchanged, listing    as warm, with the kept listing deleted first: a full listing (git
                        ls-files, or a walk) and a stat of every file, as before the sweep existed
  1 / 10 / 100 edited   index() after that many files, spread over the tree, got a line added
                        (they are re-read, re-parsed and rewritten); the files are restored after
                        each run, bytes and mtime. Reported whole, and without the time the code
                        graph spends re-binding references and re-ranking files (`codefathom.graph.rebind` and
                        `rerank`, timed apart)
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import speed  # noqa: E402 - the corpus helpers and timing of bench/speed.py
from sdist import fetch_sdist  # noqa: E402

CORPORA = speed.CORPORA
INDEXES = CORPORA / "resync-index"
EDITS = (1, 10, 100)

# (pip requirement, archive name, sha256): the sdists of the ~30,000-file corpus.
MIX: tuple[tuple[str, str, str], ...] = (
    ("Django==5.1.4", "Django-5.1.4.tar.gz", speed.DJANGO_SHA256),
    ("ansible-core==2.17.7", "ansible_core-2.17.7.tar.gz",
     "3aaab735d6c4e2d6239bc326800dc0ecda2a1490caa8455b41084ec0bc54dacf"),
    ("botocore==1.35.76", "botocore-1.35.76.tar.gz",
     "a75a42ae53395796b8300c5fefb2d65a8696dc40dc85e49cf3a769e0c0202b13"),
    ("salt==3007.1", "salt-3007.1.tar.gz", "b933ac4cb3e4b1118b46dada55c9cc6bdc6f0f94b4c92877aec44b25c6a28c9a"),
    ("sympy==1.13.3", "sympy-1.13.3.tar.gz", "b27fd2c6530e0ab39e275fc9b683895367e51d5da91baa8d3d64db2565fec4d9"),
    ("Pygments==2.18.0", "pygments-2.18.0.tar.gz", "786ff802f32e91311bff3889f6e9a86e81505fe99f2735bb6d60ae0c5004f199"),
    ("mypy==1.13.0", "mypy-1.13.0.tar.gz", "0291a61b6fbf3e6673e3405cfcc0e7650bebc7939659fdca2702958038bd835e"),
    ("Twisted==24.11.0", "twisted-24.11.0.tar.gz", "695d0556d5ec579dcc464d2856b634880ed1319f45b10d19043f2b57eb0115b5"),
    ("kubernetes==31.0.0", "kubernetes-31.0.0.tar.gz",
     "28945de906c8c259c1ebe62703b56a03b714049372196f854105afe4e6d014c0"),
)
MIX_NAME = "mix-30k"

# The targets of the "always fresh" issue, for an unchanged repository.
TARGETS_MS = {"2k files": 50.0, "30k files": 300.0}


def mix_corpus() -> Path:
    """The nine sdists unpacked side by side in one git repository (29,554 files)."""
    target = CORPORA / MIX_NAME
    ready = CORPORA / f"{MIX_NAME}.ready"
    if ready.exists() and target.is_dir():
        return target
    downloads = CORPORA / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for requirement, name, sha256 in MIX:
        archive = fetch_sdist(requirement, name, sha256, downloads)
        print(f"unpacking {name} ...", file=sys.stderr)
        staging = Path(tempfile.mkdtemp(prefix="unpack-", dir=CORPORA))
        try:
            with tarfile.open(archive) as tar:
                tar.extractall(staging, filter="data")
            (unpacked,) = staging.iterdir()
            unpacked.rename(target / unpacked.name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    speed._git_commit(target, "nine sdists: " + ", ".join(r for r, _, _ in MIX))
    ready.write_text("\n".join(r for r, _, _ in MIX) + "\n")
    return target


def corpus_path(name: str) -> tuple[str, Path]:
    if name == "core":
        return "Django 5.1.4 django/ without locale/", speed.django_core_corpus()
    if name == "django":
        return "Django 5.1.4 sdist", speed.django_corpus()
    if name == "mix":
        return "nine sdists (mix-30k)", mix_corpus()
    path = Path(name).expanduser().resolve()
    if not path.is_dir():
        raise SystemExit(f"not a corpus name (core, django, mix) nor a directory: {name}")
    return str(path), path


class StageClock:
    """Time spent in one function the indexer calls (patched in `codefathom.service.indexer`)."""

    def __init__(self, name: str) -> None:
        import codefathom.service.indexer as indexer

        self.total = 0.0
        inner = getattr(indexer, name, None)
        if inner is None:
            return

        def clocked(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.total += time.perf_counter() - started

        setattr(indexer, name, clocked)

    def lap(self) -> float:
        spent, self.total = self.total, 0.0
        return spent


def timed(work: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def run(label: str, root: Path, runs: int, repeat: int) -> dict[str, Any]:
    from codefathom.service import Codefathom
    from codefathom.service.sweep import SNAPSHOT_NAME

    speed._reset_if_dirty(root)
    graph = (StageClock("rebind"), StageClock("rerank"))
    index_dir = INDEXES / root.name
    results: dict[str, Any] = {"corpus": label, "root": str(root)}
    with Codefathom(root, index_dir=index_dir) as service:
        seconds, report = timed(service.index)
        print(f"  {label}: first sync {seconds:.1f}s ({report.method}, {report.discovered} files)", file=sys.stderr)
        service.index()  # whatever the first one left for a listing (a directory changed meanwhile)
        results["files"] = report.discovered
        results["first_sync_s"] = round(seconds, 2)

        warm = []
        for _ in range(runs):
            seconds, report = timed(service.index)
            assert report.method == "sweep" and report.changed == 0, (report.method, report.changed)
            warm.append(seconds)
        results["unchanged_warm_s"] = speed.Timing(warm).as_json()

        listing = []
        for _ in range(max(3, runs // 3)):
            (index_dir / SNAPSHOT_NAME).unlink(missing_ok=True)
            seconds, report = timed(service.index)
            assert report.method != "sweep" and report.changed == 0, report.method
            listing.append(seconds)
        results["unchanged_listing_s"] = speed.Timing(listing).as_json()
        service.index()

    cold = []
    for _ in range(runs):
        def once() -> Any:
            with Codefathom(root, index_dir=index_dir) as fresh:
                return fresh.index()

        seconds, report = timed(once)
        assert report.method == "sweep" and report.changed == 0, report.method
        cold.append(seconds)
    results["unchanged_cold_s"] = speed.Timing(cold).as_json()

    with Codefathom(root, index_dir=index_dir) as service:
        for count in EDITS:
            picked = speed.pick_files(index_dir / "index.db", count)
            restorer = speed.Restorer(root, picked)
            samples, without_graph = [], []
            try:
                for _ in range(repeat):
                    for rel in picked:
                        with (root / rel).open("ab") as handle:
                            handle.write(b"\n")
                    for clock in graph:
                        clock.lap()
                    seconds, report = timed(service.index)
                    assert report.updated == len(picked), (report.updated, len(picked))
                    samples.append(seconds)
                    without_graph.append(seconds - sum(clock.lap() for clock in graph))
                    restorer.restore()
                    service.index()
            finally:
                restorer.restore()
                service.index()
            results[f"edited_{count}_s"] = speed.Timing(samples).as_json()
            results[f"edited_{count}_without_graph_s"] = speed.Timing(without_graph).as_json()
            print(f"  {label}: {count} edited: {speed.Timing(samples).median * 1000:.0f} ms"
                  f" ({speed.Timing(without_graph).median * 1000:.0f} ms without the graph)", file=sys.stderr)
    return results


def table(all_results: list[dict[str, Any]]) -> str:
    rows = [("corpus", "files", "unchanged warm", "unchanged cold", "unchanged, listing",
             *(f"{n} edited" for n in EDITS))]
    for r in all_results:
        rows.append((
            r["corpus"], f"{r['files']:,}",
            *(f"{r[key]['median'] * 1000:.1f} ms" for key in ("unchanged_warm_s", "unchanged_cold_s",
                                                               "unchanged_listing_s")),
            *(f"{r[f'edited_{n}_s']['median'] * 1000:.0f} ({r[f'edited_{n}_without_graph_s']['median'] * 1000:.0f}) ms"
              for n in EDITS),
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", help="core, django, mix or a directory (repeatable;"
                        " default: core and mix)")
    parser.add_argument("--runs", type=int, default=15, help="unchanged re-syncs to time (15)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of each edit size (3)")
    parser.add_argument("--workers", type=int, help="parse worker processes (sets CODEFATHOM_WORKERS; 0: none)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every number to FILE")
    args = parser.parse_args()
    if args.workers is not None:
        os.environ["CODEFATHOM_WORKERS"] = str(args.workers)
    results = []
    for name in args.corpus or ["core", "mix"]:
        label, root = corpus_path(name)
        print(f"re-sync benchmark on {label} at {root}", file=sys.stderr)
        results.append(run(label, root, args.runs, args.repeat))
    env = speed.environment(Path(results[0]["root"]), pinned=False)
    env.pop("corpus", None)
    print()
    print(f"codefathom {env['codefathom']} ({env['commit']}), Python {env['python']}, SQLite {env['sqlite']}, "
          f"{env['cpus']} CPUs ({env['processor']})")
    print(table(results))
    print("edited: the whole sync (in brackets: without re-binding the code graph's references)")
    print(f"targets for an unchanged repository: < {TARGETS_MS['2k files']:.0f} ms at 2,000 files, "
          f"< {TARGETS_MS['30k files']:.0f} ms at 30,000 files")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"environment": env, "command": " ".join(["python", "bench/resync.py", *sys.argv[1:]]),
                   "results": results}
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
