"""What `kill -9` of an indexer leaves: no process of it still at work, the index lock free at
once, and an index that says what the next sync has to finish."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import write_large_project

import codefathom.service.indexer as indexer
from codefathom.config import index_dir_for
from codefathom.service import Codefathom
from codefathom.service.locking import IndexLock
from codefathom.service.workers import usable_cpus

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")


def _stays_a_fork(pid: int, own: bytes) -> bool:
    """A child with the indexer's own command line for 50 ms is the binder: a `git` the indexer
    starts has it too, for the moment between fork and exec."""
    first = {child for child, command in children(pid).items() if command == own}
    time.sleep(0.05)
    return bool(first & {child for child, command in children(pid).items() if command == own})


def children(pid: int) -> dict[int, bytes]:
    """The processes whose parent is `pid`, with their command lines."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
            found[int(entry)] = command
    return found


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "codefathom", *args], capture_output=True, text=True, timeout=300)


def running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting for its new parent to reap it is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.parametrize("phase", ["parsing", "binding"])
def test_kill_9_of_an_indexer_leaves_no_process_at_work_and_the_lock_free(phase: str, tmp_path: Path) -> None:
    if usable_cpus() < 2:
        pytest.skip("workers and a forked binder need 2 CPUs")
    repo = tmp_path / "big"
    # Three times the default references: the binder's fork lives ~0.5 s here, not ~0.09 s, which a
    # check that it keeps the indexer's command line for 50 ms could miss.
    write_large_project(repo, lines=30)
    command = [sys.executable, "-m", "codefathom", "index", str(repo), "--quiet", "--no-embed"]
    indexer = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        # Without workers the binder forks (with 4 CPUs a worker would help bind instead).
        env={**os.environ, "CODEFATHOM_WORKERS": "2" if phase == "parsing" else "0"},
    )
    own = b"".join(arg.encode() + b"\0" for arg in command)  # a forked child's command line
    seen: dict[int, bytes] = {}
    deadline = time.monotonic() + 120
    try:
        # The phase shows in the children: parse workers run `_serve` (killed as soon as one starts,
        # a worker would import everything and parse its first chunk for nobody), the binder is a
        # fork of the indexer.
        while indexer.poll() is None and time.monotonic() < deadline:
            seen = children(indexer.pid)
            if (phase == "parsing" and any(b"_serve" in c for c in seen.values())) or (
                phase == "binding" and own in seen.values() and _stays_a_fork(indexer.pid, own)
            ):
                break
            time.sleep(0.005)
        assert indexer.poll() is None and seen, f"never saw the indexer {phase}"
        os.kill(indexer.pid, signal.SIGKILL)
        indexer.wait()
        lock = IndexLock(index_dir_for(repo.resolve()))
        # Its children die with it (a signal from the kernel, so a moment later on a busy machine),
        # and the lock with them.
        assert lock.acquire(timeout=1.0), "a child of the killed indexer holds the index lock"
        lock.release()
        gone_by = time.monotonic() + 1.0
        while any(running(pid) for pid in seen) and time.monotonic() < gone_by:
            time.sleep(0.01)
        assert not [pid for pid in seen if running(pid)], f"children of a killed indexer still run: {seen}"
    finally:
        if indexer.poll() is None:
            indexer.kill()
            indexer.wait()
    if phase == "binding":
        # Every file was written, no reference bound: the index says so until the next sync binds them.
        status = json.loads(cli("status", str(repo), "--json").stdout)
        assert status["files"] == 300 and status["complete"] is False, status
        assert any(n.startswith("references not bound yet") for n in status["notices"]), status
        done = cli("index", str(repo), "--json", "--quiet", "--no-embed")
        assert done.returncode == 0 and json.loads(done.stdout)["added"] == 0, done.stderr
        assert json.loads(cli("status", str(repo), "--json").stdout)["complete"] is True


def test_an_index_whose_references_are_not_bound_says_so_until_a_sync_binds_them(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / "app").mkdir(parents=True)
    (repo / "app" / "core.py").write_text("def compute(x):\n    return x + 1\n")
    (repo / "app" / "use.py").write_text("from app.core import compute\n\n\ndef run():\n    return compute(1)\n")
    assert run_cli("index", str(repo), "--quiet", "--no-embed").exit_code == 0
    (repo / "app" / "more.py").write_text("from app.core import compute\n\n\ndef again():\n    return compute(2)\n")

    def stopped(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt  # Ctrl-C (or a kill) once the files are written, before they are bound

    with monkeypatch.context() as patch:
        patch.setattr(indexer, "rebind", stopped)
        with pytest.raises(KeyboardInterrupt), Codefathom(repo) as service:
            service.index()

    def reply(*args: str) -> dict[str, Any]:
        result = run_cli(*args, "-p", str(repo), "--json")
        assert result.exit_code == 0, result.output
        data: dict[str, Any] = json.loads(result.stdout)
        return data

    status = json.loads(run_cli("status", str(repo), "--json").stdout)
    assert status["complete"] is False and status["files"] == 3
    assert any(n.startswith("references not bound yet") for n in status["notices"]), status
    assert "references not bound yet" in run_cli("status", str(repo)).output
    for answer in (
        reply("search", "compute", "--no-sync"), reply("refs", "compute", "--no-sync"),
        reply("callers", "compute", "--no-sync"), reply("impact", "app/core.py", "--no-sync"),
        reply("dead", "--no-sync"), reply("brief", "app/use.py", "--no-sync"),
        reply("tests", "compute", "--no-sync"),
        json.loads(run_cli("outline", str(repo), "--no-sync", "--json").stdout),
    ):
        assert [n for n in answer.get("notices", []) if n.startswith("references not bound yet")], answer
    text = run_cli("refs", "compute", "-p", str(repo), "--no-sync").output
    assert text.startswith("# references not bound yet"), text

    synced = reply("refs", "compute")  # a sync binds them: nothing left to say
    assert "notices" not in synced and {r["path"] for r in synced["references"]} == {"app/use.py", "app/more.py"}
    status = json.loads(run_cli("status", str(repo), "--json").stdout)
    assert status["complete"] is True and "notices" not in status
