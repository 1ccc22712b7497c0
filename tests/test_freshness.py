"""Always fresh, never broken: re-sync before every answer, first contact, concurrency, damaged
indexes, several indexes at once, and replies that never cite what is gone."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import git, one_store, project_rows

from codefathom.config import index_dir_for
from codefathom.service import Codefathom, WatchState

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def index_json(run_cli: Any, repo: Path, *args: str) -> dict[str, Any]:
    result = run_cli("index", str(repo), "--json", *args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codefathom", *args], capture_output=True, text=True, timeout=120,
        env={**os.environ, **(env or {})},
    )


def settle(root: Path) -> None:
    """Date every directory a second back, as in a tree nobody is changing right now (a directory
    changed during a listing is listed again next time, to be safe)."""
    past = time.time() - 1
    for folder, _, _ in os.walk(root):
        os.utime(folder, (past, past))


def the_db(home: Path) -> Path:
    (db,) = home.glob("*/index.db")
    return db


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {
        ".gitignore": "logs/\n*.tmp\n",
        "src/app.py": "def start_app():\n    return 1\n",
        "src/util.py": "def helper():\n    return 2\n",
    })
    (root / "empty" / "nested").mkdir(parents=True)
    git(root, "init")
    git(root, "add", "-A")
    git(root, "commit", "-m", "init")
    return root


def test_a_sweep_vouches_for_the_listing_and_every_change_is_seen(repo: Path, run_cli: Any, search_json: Any) -> None:
    settle(repo)
    first = index_json(run_cli, repo)
    assert (first["discovery"], first["added"]) == ("git", 3)
    assert index_json(run_cli, repo)["discovery"] == "sweep"  # nothing changed: no listing

    (repo / "src" / "app.py").write_text("def start_app():\n    return 1\n\n\ndef stop_app():\n    return 0\n")
    edited = index_json(run_cli, repo)
    assert (edited["discovery"], edited["updated"]) == ("sweep", 1)

    write(repo, {"empty/nested/deep.py": "def deep_function():\n    pass\n"})  # in a directory that held nothing
    assert search_json("deep_function", "-p", str(repo))["results"][0]["path"] == "empty/nested/deep.py"
    write(repo, {"logs/ignored.py": "def not_listed():\n    pass\n", "src/x.tmp": "ignored too\n"})
    assert index_json(run_cli, repo)["added"] == 0
    (repo / ".gitignore").write_text("*.tmp\n")  # logs/ is no longer ignored
    assert index_json(run_cli, repo)["added"] == 1
    git(repo, "add", "-f", "src/x.tmp")  # git's index decides too
    assert index_json(run_cli, repo)["added"] == 1
    (repo / "src" / "util.py").unlink()
    assert index_json(run_cli, repo)["removed"] == 1
    settle(repo)
    index_json(run_cli, repo)
    assert index_json(run_cli, repo)["discovery"] == "sweep"
    status = json.loads(run_cli("status", str(repo), "--json").stdout)
    assert status["files"] == 5 and status["complete"] is True


def test_a_branch_switch_of_hundreds_of_files_is_seen_by_the_next_search(tmp_path: Path, search_json: Any) -> None:
    repo = tmp_path / "branches"
    write(repo, {f"pkg/mod{i}.py": f"def main_only_{i}():\n    return {i}\n" for i in range(220)})
    write(repo, {"README.md": "# Project\n"})
    git(repo, "init")
    git(repo, "add", "-A")
    git(repo, "commit", "-m", "main")
    git(repo, "checkout", "-b", "feature")
    for i in range(220):
        (repo / "pkg" / f"mod{i}.py").write_text(f"def feature_only_{i}():\n    return {i}\n")
    write(repo, {f"extra/new{i}.py": f"def added_on_feature_{i}():\n    pass\n" for i in range(30)})
    git(repo, "add", "-A")
    git(repo, "commit", "-m", "feature")
    git(repo, "checkout", "main")
    assert search_json("main_only_7", "-p", str(repo))["results"][0]["path"] == "pkg/mod7.py"

    git(repo, "checkout", "feature")
    reply = search_json("feature_only_219", "-p", str(repo))
    assert reply["results"][0]["path"] == "pkg/mod219.py"
    assert any("re-indexed 250 changed" in notice for notice in reply["notices"])
    assert search_json("added_on_feature_29", "-p", str(repo))["results"][0]["path"] == "extra/new29.py"
    assert all(r["name"] != "main_only_7" for r in search_json("main_only_7", "-p", str(repo))["results"])

    git(repo, "checkout", "main")
    back = search_json("added_on_feature_29", "-p", str(repo))
    assert all(not r["path"].startswith("extra/") for r in back["results"])
    assert any("30 removed" in notice for notice in back["notices"])


def test_two_indexers_at_once_do_the_work_once_and_leave_a_consistent_index(tmp_path: Path, store: str) -> None:
    repo = tmp_path / "busy"
    write(repo, {f"p{i % 8}/m{i}.py": f"def f_{i}(x):\n    return x + {i}\n" for i in range(400)})
    command = [sys.executable, "-m", "codefathom", "index", str(repo), "--json", "--quiet"]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    replies = []
    for process in (first, second):
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        replies.append(json.loads(out))
    assert [r["files"] for r in replies] == [400, 400]
    assert sorted(r["added"] for r in replies) == [0, 400]  # the second waited, then found nothing to do
    if store == "sqlite":
        with sqlite3.connect(the_db(Path(os.environ["CODEFATHOM_HOME"]))) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with Codefathom(repo) as service:
        assert project_rows(
            service, "SELECT count(*), count(DISTINCT path) FROM files",
            "SELECT count(*), count(DISTINCT path) FROM files WHERE project_id = %s",
        ) == [(400, 400)]
        assert project_rows(
            service, "SELECT count(*) FROM units WHERE file_id NOT IN (SELECT id FROM files)",
            "SELECT count(*) FROM units WHERE project_id = %s AND file_id NOT IN (SELECT id FROM files)",
        ) == [(0,)]


@one_store("a damaged SQLite file")
@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign"])
def test_a_damaged_or_foreign_index_file_is_rebuilt_with_a_notice(
    tmp_path: Path, run_cli: Any, search_json: Any, damage: str
) -> None:
    repo = tmp_path / "damaged"
    write(repo, {"a.py": "def survivor():\n    return 1\n"})
    index_json(run_cli, repo)
    db = the_db(Path(os.environ["CODEFATHOM_HOME"]))
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    if damage == "garbage":
        db.write_bytes(os.urandom(8192))
    elif damage == "truncated":
        db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])
    else:
        db.unlink()
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE notes(text)")
    reply = search_json("survivor", "-p", str(repo))
    assert reply["results"][0]["name"] == "survivor"
    assert any("unreadable" in notice and "recreated" in notice for notice in reply["notices"]), reply["notices"]

    db.write_bytes(os.urandom(4096))
    result = run_cli("index", str(repo))
    assert result.exit_code == 0 and "# the index file was unreadable" in result.output


def test_a_large_first_index_runs_in_the_background_and_answers_partially(tmp_path: Path) -> None:
    repo = tmp_path / "large"
    write(repo, {f"pkg{i % 10}/mod{i}.py": f"def fn_{i}():\n    return {i}\n" for i in range(300)})
    env = {"CODEFATHOM_INLINE_INDEX_S": "0"}  # everything counts as large
    done = cli("search", "fn_299", "-p", str(repo), "--json", "--background", env=env)
    assert done.returncode == 0, done.stderr
    first = json.loads(done.stdout)
    assert first["partial"] is True and first["indexing"]["total"] == 300
    assert any(notice.startswith("PARTIAL RESULTS") for notice in first["notices"])

    deadline = time.monotonic() + 60
    status: dict[str, Any] = {}
    while time.monotonic() < deadline:
        status = json.loads(cli("status", str(repo), "--json").stdout)
        if status["complete"]:
            break
        assert status.get("indexing") is None or status["indexing"]["total"] == 300
        time.sleep(0.2)
    assert status["complete"] and status["files"] == 300 and "indexing" not in status
    final = json.loads(cli("search", "fn_299", "-p", str(repo), "--json", env=env).stdout)
    assert "partial" not in final and final["results"][0]["path"] == "pkg9/mod299.py"


def test_status_after_a_run_committed_says_complete_and_not_indexing(tmp_path: Path, run_cli: Any) -> None:
    # Between a background index's last commit and its letting go of the lock, its progress record
    # (300 of 300) is still there: `status` said complete and indexing at once.
    repo = tmp_path / "done"
    write(repo, {"a.py": "def present():\n    pass\n"})
    index_json(run_cli, repo)
    with Codefathom(repo) as service:
        record = {"done": 300, "total": 300, "started": time.time() - 60, "pid": os.getpid()}
        service._open(create=False).set_meta("progress", json.dumps(record))
    (folder,) = Path(os.environ["CODEFATHOM_HOME"]).iterdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX);"
         " print('held', flush=True); time.sleep(60)", str(folder / "index.lock")],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        status = json.loads(cli("status", str(repo), "--json").stdout)
    finally:
        holder.kill()
        holder.wait()
    assert status["complete"] and "indexing" not in status, status


def test_a_search_while_another_process_holds_the_index_answers_from_what_is_there(
    tmp_path: Path, run_cli: Any, search_json: Any
) -> None:
    repo = tmp_path / "locked"
    write(repo, {"a.py": "def present():\n    pass\n"})
    index_json(run_cli, repo)
    (repo / "a.py").write_text("def present():\n    pass\n\n\ndef newer():\n    pass\n")
    (folder,) = Path(os.environ["CODEFATHOM_HOME"]).iterdir()  # (the index's folder, whichever store)
    lock = folder / "index.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX);"
         " print('held', flush=True); time.sleep(60)", str(lock)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("codefathom.service.freshness.SEARCH_WAIT_S", 0.2)
            reply = search_json("present", "-p", str(repo))
        assert reply["results"][0]["name"] == "present"  # a reader never waits for the writer
        assert any("another process is updating" in notice for notice in reply["notices"])
    finally:
        holder.kill()
        holder.wait()
    assert search_json("newer", "-p", str(repo))["results"][0]["name"] == "newer"
    with open(lock) as handle:  # released when its holder died
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_several_indexes_are_searched_together_and_results_say_which(
    tmp_path: Path, run_cli: Any, search_json: Any, store: str
) -> None:
    app, lib = tmp_path / "app", tmp_path / "shared-lib"
    write(app, {"app.py": "def upload_file():\n    '''Upload a file, retrying on failure.'''\n"})
    write(lib, {"retry.py": "def retry_with_backoff(fn):\n    '''Retry a failing call with backoff.'''\n"})
    alone = search_json("retry backoff", "-p", str(app))
    assert {r["path"] for r in alone["results"]} == {"app.py"} and "index" not in alone["results"][0]

    both = search_json("retry backoff", "-p", str(app), "--index", str(lib))
    assert {(r["index"], r["path"]) for r in both["results"]} == {(str(app), "app.py"), (str(lib), "retry.py")}
    scores = [r["score"] for r in both["results"]]
    assert scores == sorted(scores, reverse=True)

    listed = {i["project_root"]: i for i in json.loads(run_cli("list", "--json").stdout)["indexes"]}
    # By the name of its index: SQLite's folder in the home, the project's name in a database (the same
    # name unless the config names it), or where `list` says it is.
    name = listed[str(lib)]["project"] if store == "postgresql" else Path(listed[str(lib)]["index_path"]).parent.name
    assert name == index_dir_for(lib).name
    for index in (name, listed[str(lib)]["index_path"]):
        by_name = search_json("retry_with_backoff", "-p", str(app), "--index", index)
        assert by_name["results"][0]["index"] == str(lib) and by_name["results"][0]["name"] == "retry_with_backoff"
    result = run_cli("search", "retry", "-p", str(app), "--index", "no-such-project")
    assert result.exit_code == 2 and "no project or index named 'no-such-project'" in result.output

    # A link names a project inside the repository: here a nested repository, which git leaves out of the app's.
    git(app, "init")
    nested = app / "vendor" / "retry-lib"
    write(nested, {"retry.py": "def retry_with_backoff(fn):\n    '''Retry a failing call with backoff.'''\n"})
    git(nested, "init")
    (app / ".codefathom.toml").write_text('linked = ["vendor/retry-lib", "missing"]\n')
    linked = search_json("retry_with_backoff", "-p", str(app))
    assert linked["results"][0]["index"] == str(nested)
    assert any("linked project missing" in notice for notice in linked["notices"])


@pytest.mark.parametrize("store", ["postgresql"], indirect=True)
def test_a_database_project_named_to_search_must_have_its_folder_here(
    tmp_path: Path, run_cli: Any, search_json: Any, store: str
) -> None:
    app, lib = tmp_path / "app", tmp_path / "lib"
    write(app, {"app.py": "def upload_file():\n    '''Upload a file.'''\n"})
    write(lib, {"retry.py": "def retry_with_backoff(fn):\n    '''Retry a failing call with backoff.'''\n"})
    for root in (app, lib):
        index_json(run_cli, root)
    name = index_dir_for(lib).name
    assert search_json("retry_with_backoff", "-p", str(app), "--index", name)["results"][0]["index"] == str(lib)
    lib.rename(tmp_path / "moved")  # (as a project another machine indexed, at a path this one has not)
    result = run_cli("search", "retry", "-p", str(app), "--index", name)
    assert result.exit_code == 2 and f"the project {name!r} of " in result.stderr
    assert f"was indexed from {lib}, which is not a folder on this machine" in result.stderr
    unknown = run_cli("search", "retry", "-p", str(app), "--index", "no-such-project")
    assert unknown.exit_code == 2 and "no project or index named 'no-such-project'" in unknown.stderr


def test_a_link_never_leads_outside_the_repository(
    tmp_path: Path, search_json: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repository's config is the repository's to write: it may not make a search read other directories."""
    app = tmp_path / "app"
    write(app, {"app.py": "def upload_file():\n    '''Upload a file.'''\n"})
    secret = "def secret_key():\n    '''The signing key.'''\n    return 'hunter2'\n"
    write(tmp_path / "outside", {"keys.py": secret})
    write(tmp_path / "user" / "x", {"keys.py": secret})
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    (app / "escape").symlink_to(tmp_path / "outside", target_is_directory=True)
    (app / ".codefathom.toml").write_text('linked = ["../outside", "~/x", "escape", "sub/../../outside"]\n')

    reply = search_json("secret_key", "-p", str(app), "-x", "escape")

    assert reply["results"] == []
    notices = [notice for notice in reply["notices"] if notice.startswith("linked project")]
    assert len(notices) == 4, reply["notices"]
    for notice in notices[:1] + notices[2:]:
        assert "outside the repository" in notice and "--index" in notice, notice
    assert "~/x" in notices[1] and "`~` is not expanded" in notices[1] and "--index" in notices[1]
    home = Path(os.environ["CODEFATHOM_HOME"])
    assert [index.name.split("-")[0] for index in home.iterdir()] == ["app"]  # nothing outside was indexed


def test_a_reply_never_cites_a_file_that_changed_after_the_sync(tmp_path: Path, run_cli: Any) -> None:
    repo = tmp_path / "vanishing"
    write(repo, {"keep.py": "def keep_going():\n    return 1\n", "gone.py": "def going_away():\n    return 2\n"})
    with Codefathom(repo) as service:
        service.index()
        # A watcher that saw nothing: the search trusts it and skips the sweep...
        service.watch = WatchState()
        service.watch.started()
        service.watch.done(service.watch.begin())
        (repo / "gone.py").unlink()
        reply = service.search("going_away keep_going", include_debug=True)
        assert reply.debug is not None and reply.debug["freshness"] == "watcher"
        # ...and the check of the cited files re-syncs and runs the query again.
        assert [hit.path for hit in reply.results] == ["keep.py"]
        assert any("re-indexed them and searched again" in notice for notice in reply.notices)

        (repo / "keep.py").write_text("x = 1\n")  # shorter than the lines the index cites
        stale = service.search("keep_going", fresh=False)
        assert stale.results == [] and any("--no-sync" in notice for notice in stale.notices)


def test_a_sync_waiting_for_another_says_whose_it_waits_for(tmp_path: Path, store: str) -> None:
    import threading

    from codefathom.service.fingerprint import index_fingerprint
    from codefathom.service.locking import IndexLock
    from codefathom.store import open_store

    repo = tmp_path / "repo"
    write(repo, {"a.py": "def a():\n    return 1\n"})
    seen: list[str] = []
    with Codefathom(repo) as service:
        service.index()
        other = IndexLock(service.settings.index_dir)  # another process of this machine syncing
        assert other.acquire(0)
        threading.Timer(0.3, other.release).start()
        service.index(lambda done, total, path: seen.append(path))
        assert seen[0].startswith(f"waiting for pid {os.getpid()}, ")
        if store == "postgresql":  # and another machine's sync, which only the database knows of
            name = service._open(create=False).name  # type: ignore[attr-defined]
            elsewhere = open_store(os.environ["CODEFATHOM_STORE"], index_fingerprint(), project=name, create=False)
            assert elsewhere.hold("sync", 0)
            threading.Timer(0.3, elsewhere.let_go, ("sync",)).start()
            seen.clear()
            service.index(lambda done, total, path: seen.append(path))
            elsewhere.close()
            assert seen[0].startswith("waiting for server process ") and "codefathom pid" in seen[0]
