"""Opens the index database: connection pragmas, schema creation, version and fingerprint checks.

The index is a cache of the source tree, so a foreign or outdated file is rebuilt, never patched.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from codefathom.errors import IndexUnusable
from codefathom.store.errors import ProjectMissing

__all__ = [
    "connect", "fingerprint_of", "SCHEMA_VERSION", "APPLICATION", "schema_sql", "is_damaged", "REPARSE_HASH"
]

REPARSE_HASH = "reparse"  # a file's hash while it waits to be parsed again by this version (never a hex digest)

APPLICATION = "codefathom"
SCHEMA_VERSION = 9  # 0006: directory summaries, 0007: vectors, 0008: arguments of a call, 0009: unit summaries
# Version 1 is schema.sql; `migrations/NNNN_*.sql` brings an index from version NNNN-1 to NNNN.
# A new index is made by running them all, so the migrations are the only description of a change.


def _migration_sql(step: int) -> str:
    folder = resources.files("codefathom.store.sqlite").joinpath("migrations")
    for entry in folder.iterdir():
        if entry.name.startswith(f"{step:04d}_") and entry.name.endswith(".sql"):
            return entry.read_text("utf-8")
    raise IndexUnusable(f"codefathom is missing its schema migration {step}; reinstall it")


def schema_sql() -> str:
    """The whole schema of the current version: the first one and every migration after it."""
    base = resources.files("codefathom.store.sqlite").joinpath("schema.sql").read_text("utf-8")
    return "\n".join([base, *(_migration_sql(step) for step in range(2, SCHEMA_VERSION + 1))])


def _statements(script: str) -> list[str]:
    """A script's statements, so they can run inside a transaction (executescript would commit)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return [s for s in statements if s.strip(" ;\n")]


def connect(db_path: Path, fingerprint: str, *, create: bool) -> tuple[sqlite3.Connection, str | None]:
    """An open connection and, when the index had to be rebuilt, the reason why."""
    if not create and not db_path.exists():
        raise IndexUnusable(f"no index at {db_path}")
    try:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        if create and not db_path.exists():
            _create_whole(db_path, fingerprint)
        conn: sqlite3.Connection | None = _open(db_path)
    except sqlite3.DatabaseError as exc:
        if not is_damaged(exc):
            raise IndexUnusable(f"cannot create the index in {db_path.parent}: {exc}") from exc
        conn, damage = None, exc  # garbage, or a damaged header: "file is not a database"
    except OSError as exc:
        raise IndexUnusable(f"cannot create the index in {db_path.parent}: {exc}") from exc
    try:
        if conn is None:
            raise damage
        rebuilt = _ensure_schema(conn, fingerprint, db_path, create=create)
    except ProjectMissing:
        assert conn is not None
        conn.close()
        raise
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        if not is_damaged(exc):
            raise IndexUnusable(f"cannot use the index at {db_path}: {exc}") from exc
        if not create:
            raise IndexUnusable(f"the index at {db_path} is unreadable ({exc}); run `codefathom index`") from exc
        _remove_database(db_path)
        _create_whole(db_path, fingerprint)
        conn = _open(db_path)
        _ensure_schema(conn, fingerprint, db_path)
        rebuilt = f"the index file was unreadable ({exc}) and has been recreated"
    return conn, rebuilt


# Result codes that say nothing about the file's content (busy, locked, out of memory, read-only,
# interrupted, I/O error, disk full, cannot open, no permission): never a reason to rebuild.
_NOT_DAMAGE = frozenset({3, 5, 6, 7, 8, 9, 10, 13, 14, 23})


# How much of the index a connection reads through a memory map (a search reads the same pages
# again and again); a sync maps none (Store.unmapped).
MMAP_BYTES = 256 << 20
WAL_ATTEMPTS = 50  # ~13 s in all


def is_damaged(exc: sqlite3.DatabaseError) -> bool:
    """Whether an error means the file is corrupt or not a codefathom index (so: rebuild it)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is None or code & 0xFF not in _NOT_DAMAGE


def _open(db_path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(db_path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 30000")
    _enter_wal(conn)
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute("PRAGMA cache_size = -65536")
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
    return conn


def _enter_wal(conn: sqlite3.Connection) -> None:
    """Switch a new file to WAL (a file already in WAL stays so). The switch needs the file to itself
    and SQLite reports a busy file at once instead of waiting, so two connections opening a new index
    together wait here for each other."""
    for attempt in range(WAL_ATTEMPTS):
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_BUSY or attempt == WAL_ATTEMPTS - 1:
                raise
            time.sleep(0.01 * (attempt + 1))


def _ensure_schema(conn: sqlite3.Connection, fingerprint: str, db_path: Path, *, create: bool = True) -> str | None:
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        # An empty file: another connection is creating the index (or was stopped doing it).
        if not create:
            raise ProjectMissing(f"the index at {db_path} is still empty; run `codefathom index`")
        if _create(conn, fingerprint):
            return None
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "meta" not in tables:
        raise sqlite3.DatabaseError("not a codefathom index (no meta table)")
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("application") != APPLICATION:
        raise sqlite3.DatabaseError("not a codefathom index")
    version = int(meta.get("schema_version", "0"))
    if version > SCHEMA_VERSION:
        raise IndexUnusable(
            f"this index was written by a newer codefathom (schema {version}, this one reads {SCHEMA_VERSION});"
            " upgrade codefathom or run `codefathom clear` to start over"
        )
    for step in range(version + 1, SCHEMA_VERSION + 1):
        _in_transaction(conn, _migration(step))
    if meta.get("fingerprint") != fingerprint:
        # Queries, tokenizer or schema changed: every stored fact is suspect, so parse again.
        _in_transaction(conn, lambda c: _mark_for_reparse(c, fingerprint))
        return "the index was made by another version of codefathom's parsers and is being rebuilt"
    return None


def _migration(step: int) -> Callable[[sqlite3.Connection], None]:
    def migrate(conn: sqlite3.Connection) -> None:
        for statement in _statements(_migration_sql(step)):
            conn.execute(statement)
        _set(conn, "schema_version", str(step))

    return migrate


def _create_whole(db_path: Path, fingerprint: str) -> None:
    """Make a new index file with its schema under a name of its own, then link it into place unless
    another process got there first: a reader never finds the file empty, and a second creator never
    replaces the first one's file under its connections."""
    _remove_leftovers(db_path)
    made = db_path.with_name(f".{db_path.name}.{os.getpid()}.{threading.get_ident()}.new")
    try:
        conn = _open(made)
        try:
            _create(conn, fingerprint)
        finally:
            conn.close()  # (the last connection: its WAL goes into the file, which stays in WAL mode)
        try:
            os.link(made, db_path)
        except FileExistsError:
            pass  # another process made it: that one is used
        except OSError:  # a file system without hard links
            if not db_path.exists():
                os.replace(made, db_path)
    finally:
        _remove_database(made)


def _remove_leftovers(db_path: Path) -> None:
    """Files a creator killed before linking its new index left (`.index.db.PID.THREAD.new`)."""
    for made in db_path.parent.glob(f".{db_path.name}.*.new"):
        pid = made.name.split(".")[-3]
        if pid.isdigit() and not _running(int(pid)):
            _remove_database(made)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def _create(conn: sqlite3.Connection, fingerprint: str) -> bool:
    """Create the schema, unless another connection did since this one looked: whether this one did.

    One transaction: a process killed here leaves an empty file, which is simply created again."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
            conn.execute("ROLLBACK")
            return False
        for statement in _statements(schema_sql()):
            conn.execute(statement)
        meta = {"application": APPLICATION, "schema_version": str(SCHEMA_VERSION), "fingerprint": fingerprint}
        for key, value in meta.items():
            _set(conn, key, value)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return True


def _mark_for_reparse(conn: sqlite3.Connection, fingerprint: str) -> None:
    """Every file to be parsed again, its facts kept until then: a reader meanwhile (`--no-sync`, a
    search during a long re-parse) gets the old answers with a notice, not an empty index. A file's
    hash and mtime no longer match anything on disk, and no sweep may vouch for the last listing."""
    conn.execute("UPDATE files SET content_hash = ?, mtime_ns = -1", (REPARSE_HASH,))
    _set(conn, "sweep_token", "")
    _set(conn, "fingerprint", fingerprint)


def _set(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))


def _in_transaction(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], object]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        work(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _remove_database(db_path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)


def fingerprint_of(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:16]
