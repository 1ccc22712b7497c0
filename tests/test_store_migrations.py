"""An index written by an older schema is migrated step by step, then re-parsed (its fingerprint
differs), and answers as a fresh one would; a newer index is refused with a clear message."""

from __future__ import annotations

import json
import os
import sqlite3
from importlib import resources
from pathlib import Path

from codefathom.errors import IndexUnusable
from codefathom.store.sqlite import SQLiteStore
from codefathom.store.sqlite.db import SCHEMA_VERSION


def make_version_1_index(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    schema = resources.files("codefathom.store.sqlite").joinpath("schema.sql").read_text("utf-8")
    with sqlite3.connect(db_path) as conn:
        conn.executescript(schema)
        conn.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?)",
            [("application", "codefathom"), ("schema_version", "1"), ("fingerprint", "from an old release")],
        )


def test_an_old_index_is_migrated_and_rebuilt(shop_repo: Path, tmp_path: Path, run_cli) -> None:
    index_dir = tmp_path / "old-index"
    make_version_1_index(index_dir / "index.db")
    result = run_cli("refs", "Stack.push", "-p", str(shop_repo), "--index-dir", str(index_dir), "--json")
    assert result.exit_code == 0, result.output
    assert [r["path"] for r in json.loads(result.stdout)["references"]] == ["tests/test_stack.py"] * 2
    with sqlite3.connect(index_dir / "index.db") as conn:
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
        columns = {row[1] for row in conn.execute("PRAGMA table_info(imports)")}
    assert int(version) == SCHEMA_VERSION
    assert "binds_module" in columns


def test_an_index_from_a_newer_release_is_refused(shop_repo: Path, tmp_path: Path, run_cli) -> None:
    index_dir = tmp_path / "new-index"
    make_version_1_index(index_dir / "index.db")
    with sqlite3.connect(index_dir / "index.db") as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    result = run_cli("status", str(shop_repo), "--index-dir", str(index_dir))
    assert result.exit_code == 3  # neither not found (1) nor a usage error (2)
    assert "newer codefathom" in result.stderr


def test_an_index_of_other_parsers_answers_from_what_it_holds_until_parsed_again(
    shop_repo: Path, tmp_path: Path, run_cli
) -> None:
    index_dir = tmp_path / "index"
    assert run_cli("index", str(shop_repo), "--index-dir", str(index_dir)).exit_code == 0
    clean = run_cli("status", str(shop_repo), "--index-dir", str(index_dir), "--digest", "--json")
    with sqlite3.connect(index_dir / "index.db") as conn:  # as after an upgrade that changed a query file
        conn.execute("UPDATE meta SET value = 'an older release' WHERE key = 'fingerprint'")
    # Answered without a sync: from the facts the index holds, said to be waiting, not from an empty index.
    stale = run_cli("search", "Stack.push", "-p", str(shop_repo), "--index-dir", str(index_dir), "--no-sync", "--json")
    assert stale.exit_code == 0, stale.output
    reply = json.loads(stale.stdout)
    assert reply["results"] and reply["results"][0]["path"] == "shop/stack.py"
    assert any("parsed again" in notice for notice in reply.get("notices", [])), reply.get("notices")
    # The next sync parses every file again and the index is as a clean one.
    assert run_cli("index", str(shop_repo), "--index-dir", str(index_dir)).exit_code == 0
    again = run_cli("status", str(shop_repo), "--index-dir", str(index_dir), "--digest", "--json")
    assert json.loads(again.stdout)["digest"] == json.loads(clean.stdout)["digest"]



def test_a_new_index_opened_by_several_connections_at_once_is_created_once(tmp_path: Path) -> None:
    # A server's services (and a CLI beside it) may open a new index at the same moment. The one that
    # loses the race to create the schema must not take the file for damaged and delete it under the
    # others (they would go on with a deleted file: a server's embedder then saw no units, ever), and
    # one that only reads must not create anything.
    import os

    for trial in range(40):
        path = tmp_path / f"{trial}" / "index.db"
        path.parent.mkdir()
        if trial % 2:
            path.touch()  # as a creator stopped before its schema was committed leaves it
        seen = _open_together(path, creates=[True, False, True, False])
        inode = os.stat(path).st_ino
        assert [outcome for create, outcome in seen if create] == [(None, inode, "codefathom")] * 2, seen
        assert all(
            isinstance(outcome, IndexUnusable) or outcome == (None, inode, "codefathom") for _, outcome in seen
        ), seen


def _open_together(path: Path, creates: list[bool]) -> list[tuple[bool, object]]:
    """Open the index at `path` from one thread per entry of `creates`, all at once: what each saw
    (rebuilt reason, inode, application), or the IndexUnusable (no index yet) it got."""
    import os
    import threading

    start = threading.Barrier(len(creates))
    seen: list[tuple[bool, object]] = []

    def open_index(create: bool) -> None:
        start.wait()
        try:
            with SQLiteStore.open(path, "fingerprint", create=create) as store:
                seen.append((create, (store.rebuilt_reason, os.stat(path).st_ino, store.get_meta("application"))))
        except IndexUnusable as exc:
            seen.append((create, exc))

    threads = [threading.Thread(target=open_index, args=(create,)) for create in creates]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == len(creates), seen  # none failed otherwise
    return seen


def test_what_a_creator_killed_before_linking_left_is_cleared(tmp_path: Path, run_cli) -> None:
    # A new index is made as `.index.db.PID.THREAD.new` and linked into place: a creator killed in
    # between leaves that file, which the next creation (its process gone) and `clear` delete.
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("def handler():\n    return 1\n")
    index_dir = tmp_path / "index"
    index_dir.mkdir()
    gone = index_dir / ".index.db.999999999.1.new"
    alive = index_dir / f".index.db.{os.getpid()}.1.new"  # this process: still creating, kept
    gone.write_bytes(b"partial")
    alive.write_bytes(b"partial")
    assert run_cli("index", str(repo), "--index-dir", str(index_dir), "-q", "--no-embed").exit_code == 0
    assert not gone.exists() and alive.exists() and (index_dir / "index.db").exists()
    assert run_cli("clear", str(repo), "--index-dir", str(index_dir)).exit_code == 0
    assert not index_dir.exists()
