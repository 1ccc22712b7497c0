"""Kill -9 matrix on a real repository: a sync is killed at each named phase, the next sync must
leave an index whose digest equals a clean first index of the same tree.

    python bench/reliability.py                          # FastAPI 0.115.6 sdist (PyPI), every phase
    python bench/reliability.py --corpus PATH --json bench/results/reliability.json

Phases (the function that kills its own process when called): write (the second file's graph rows),
bind (the binding step), forked (this process waiting for the binder's forked child), ranks,
directories, snapshot (the listing kept for the next sweep). Syncs: a first index, `index --full`
over a complete index, and a sync after every Python file was edited. The binder forks as it does
for any user: from 2 CPUs and 20,000 references. tests/test_reliability.py runs the same matrix on a
small fixture in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
CORPORA = BENCH / ".corpora"
FASTAPI = ("fastapi==0.115.6", "fastapi-0.115.6.tar.gz", "fastapi-0.115.6")

KILLER = """
import os, signal, sys
import codefathom.graph as graph
import codefathom.service.indexer as indexer
from codefathom.store.sqlite import SQLiteStore as Store

phase, nth = sys.argv[1], int(sys.argv[2])
calls = [0]

def killing(real):
    def wrapper(*args, **kwargs):
        calls[0] += 1
        if calls[0] >= nth:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    return wrapper

owner, name = {
    "write": (Store, "replace_facts"), "bind": (indexer, "rebind"), "ranks": (indexer, "recompute_ranks"),
    "directories": (Store, "refresh_directories"), "snapshot": (indexer, "after_sync"),
    "forked": (graph, "_receive"),
}[phase]
setattr(owner, name, killing(getattr(owner, name)))
from codefathom.cli import main
sys.argv = ["codefathom", *sys.argv[3:]]
main()
"""
PHASES = (("write", 2), ("bind", 1), ("forked", 1), ("ranks", 1), ("directories", 1), ("snapshot", 1))
SYNCS = ("first", "full", "edits")


def fastapi() -> Path:
    """The FastAPI sdist, unpacked once under bench/.corpora/ and made a git repository."""
    package, archive, folder = FASTAPI
    root = CORPORA / folder
    if not (root / ".git").exists():
        CORPORA.mkdir(parents=True, exist_ok=True)
        if not (CORPORA / archive).exists():
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                            package, "-d", str(CORPORA)], check=True)
        shutil.rmtree(root, ignore_errors=True)
        subprocess.run(["tar", "xzf", archive], cwd=CORPORA, check=True)
        ident = ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "init.defaultBranch=main"]
        for args in (["init", "-q"], ["add", "-A", "-f"], ["commit", "-q", "-m", folder]):
            subprocess.run(["git", *ident, "-C", str(root), *args], check=True, capture_output=True)
    return root


def codefathom(*args: str, killer: tuple[str, int] | None = None) -> subprocess.CompletedProcess[str]:
    if killer is None:
        command = [sys.executable, "-c", "from codefathom.cli import main; main()", *args]
    else:
        command = [sys.executable, "-c", KILLER, killer[0], str(killer[1]), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=900)


def digest(repo: Path, index_dir: Path) -> dict[str, str]:
    done = codefathom("status", str(repo), "--index-dir", str(index_dir), "--digest", "--json")
    parts: dict[str, str] = json.loads(done.stdout)["digest"]
    return parts


def edit_python_files(repo: Path) -> None:
    for path in sorted(repo.rglob("*.py")):
        if ".git" not in path.parts:
            path.write_text(path.read_text() + "\n\ndef added_later():\n    return None\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="a project of its own to use instead of FastAPI (copied)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    source = args.corpus.resolve() if args.corpus else fastapi()
    started = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="reliability-") as scratch:
        work = Path(scratch)
        for sync in SYNCS:
            repo = work / f"repo-{sync}"
            shutil.copytree(source, repo, symlinks=True)
            clean_dir = work / f"clean-{sync}"
            if sync == "edits":
                edit_python_files(repo)
            codefathom("index", str(repo), "--index-dir", str(clean_dir), "-q", "--no-embed")
            clean = digest(repo, clean_dir)
            if sync == "edits":  # the first index is of the tree before the edits
                subprocess.run(["git", "-C", str(repo), "stash", "-q"], check=True, capture_output=True)
            for phase, nth in PHASES:
                index_dir = work / f"killed-{sync}-{phase}"
                index = ["index", str(repo), "--index-dir", str(index_dir), "-q", "--no-embed"]
                if sync in ("full", "edits"):
                    codefathom(*index)
                if sync == "edits":
                    subprocess.run(["git", "-C", str(repo), "stash", "pop", "-q"], check=True, capture_output=True)
                t0 = time.perf_counter()
                killed = codefathom(*index, *(["--full"] if sync == "full" else []), killer=(phase, nth))
                kill_s = time.perf_counter() - t0
                codefathom(*index)
                recovered = digest(repo, index_dir)
                differing = sorted(part for part in clean if recovered.get(part) != clean[part])
                rows.append({"sync": sync, "phase": phase, "killed": killed.returncode == -signal.SIGKILL,
                             "seconds_to_kill": round(kill_s, 1), "differing_parts": differing})
                print(f"{sync:6} {phase:12} killed={rows[-1]['killed']!s:5} after {kill_s:5.1f}s  "
                      f"digest {'equal' if not differing else 'differs: ' + ', '.join(differing)}", flush=True)
                if sync == "edits":
                    subprocess.run(["git", "-C", str(repo), "stash", "-q"], check=True, capture_output=True)
                shutil.rmtree(index_dir, ignore_errors=True)
    equal = sum(1 for r in rows if r["killed"] and not r["differing_parts"])
    print(f"{equal} of {len(rows)} kills recovered to a clean index's digest in {time.perf_counter() - started:.0f}s"
          f" (load {os.getloadavg()[0]:.1f})")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"corpus": str(source), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
