"""Opens a PostgreSQL index: the connection, the schema by numbered migrations, the project's row,
its fingerprint, the advisory locks that serialise writers, and psycopg's errors as StoreError.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import resources

from codefathom.errors import IndexUnusable, StoreUnavailable
from codefathom.store.errors import ProjectMissing, StoreError

try:
    import psycopg
    from psycopg import conninfo
    from psycopg.rows import TupleRow
except ImportError as exc:  # the default install has no driver
    raise StoreUnavailable(
        "a postgresql:// store needs the PostgreSQL driver: pip install 'codefathom[postgres]'"
    ) from exc

__all__ = [
    "Conn", "SCHEMA", "SCHEMA_VERSION", "LOCK_SPACE", "SYNC_SPACE", "WORK_SPACES", "project_names",
    "REPARSE_HASH", "connect", "migrate", "open_project",
    "backend_errors", "describe", "psycopg", "copy_rows",
]

Conn = psycopg.Connection[TupleRow]


def copy_rows(conn: Conn, table: str, columns: str, rows: Sequence[Sequence[object]]) -> None:
    """Rows into `table` by COPY: any number of them in one round trip."""
    if not rows:
        return
    with conn.cursor() as cursor, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)

SCHEMA = "codefathom"  # every table lives in this PostgreSQL schema, beside whatever else the database holds
SCHEMA_VERSION = 6  # `migrations/NNNN_*.sql` brings the schema from version NNNN-1 to NNNN
APPLICATION = "codefathom"
REPARSE_HASH = "reparse"  # as in SQLite: a file's hash while it waits to be parsed again

# Advisory locks of codefathom take (LOCK_SPACE, key): key 0 while ids are reserved (reserve_ids in
# the schema), -1 while the schema migrates, a project's id while its writes run.
LOCK_SPACE = 1667657831  # 'cfpg'
# A sync as a whole holds (SYNC_SPACE, project id) on its session: a space of its own, so that the
# writes of another process (vectors, summaries) still take turns per transaction and do not wait
# for a whole sync.
SYNC_SPACE = 1667658611  # 'cfs' + 's'
# Each long work on a project holds (its space, project id) on its session, from any machine.
WORK_SPACES = {"sync": SYNC_SPACE, "embed": SYNC_SPACE + 1, "summarize": SYNC_SPACE + 2}
_MIGRATING = -1
_HOST = socket.gethostname()[:32]


def describe(uri: str) -> str:
    """The location without its password, for messages."""
    try:
        params = conninfo.conninfo_to_dict(uri)
    except psycopg.ProgrammingError:
        return "postgresql://?"
    host = params.get("host") or "localhost"
    port = f":{params['port']}" if params.get("port") else ""
    user = f"{params['user']}@" if params.get("user") else ""
    return f"postgresql://{user}{host}{port}/{params.get('dbname') or ''}"


@contextmanager
def backend_errors() -> Iterator[None]:
    """psycopg's errors raised inside, as StoreError. A database says nothing of an index being
    damaged short of data corruption (class XX): a failure is otherwise never a reason to rebuild."""
    try:
        yield
    except psycopg.Error as exc:
        state = getattr(exc, "sqlstate", None) or ""
        raise StoreError(str(exc).strip().split("\n")[0], damaged=state in ("XX001", "XX002")) from exc


def connect(uri: str, *, read_only: bool = False, replica: bool = False) -> Conn:
    """A connection in autocommit (transactions are explicit), reading the codefathom schema;
    `replica`: the read side of a store whose reads go to another server (`store_read`)."""
    # Named for `holder` (who holds a project's sync or embedding lock, seen from another machine) and so
    # that pg_stat_activity tells the connections answering reads on a replica apart.
    name = f"codefathom {'reader ' if replica else ''}pid {os.getpid()} on {_HOST}"
    try:
        conn = psycopg.connect(uri, autocommit=True, application_name=name)
    except psycopg.Error as exc:
        raise StoreUnavailable(f"cannot connect to {describe(uri)}: {str(exc).strip().splitlines()[0]}") from exc
    conn.execute(f"SET search_path TO {SCHEMA}, public")
    if read_only:
        conn.execute("SET default_transaction_read_only = on")
    return conn


def _migration_sql(step: int) -> str:
    folder = resources.files("codefathom.store.postgres").joinpath("migrations")
    for entry in folder.iterdir():
        if entry.name.startswith(f"{step:04d}_") and entry.name.endswith(".sql"):
            return entry.read_text("utf-8")
    raise IndexUnusable(f"codefathom is missing its PostgreSQL migration {step}; reinstall it")


def migrate(conn: Conn) -> None:
    """Bring the schema to SCHEMA_VERSION, one migration per transaction; two processes starting at
    once take turns (an advisory lock), the second finding nothing left to do."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, _MIGRATING))
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at double precision"
            " NOT NULL)"
        )
        row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
        version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            raise IndexUnusable(
                f"this database was written by a newer codefathom (schema {version}, this one reads"
                f" {SCHEMA_VERSION}); upgrade codefathom"
            )
        for step in range(version + 1, SCHEMA_VERSION + 1):
            with conn.transaction():  # (a savepoint: a failed step leaves the ones before)
                conn.execute(_migration_sql(step).encode("utf-8"))
                conn.execute("INSERT INTO schema_migrations(version, applied_at) VALUES (%s, %s)", (step, time.time()))


def open_project(
    conn: Conn, name: str, root: str, fingerprint: str, *, create: bool
) -> tuple[int, str | None]:
    """The project's id, its row made when missing (unless not `create`), and, when its rows came
    from other parsers (the fingerprint differs), why it is being re-parsed."""
    with conn.transaction():
        row = conn.execute("SELECT id FROM projects WHERE name = %s", (name,)).fetchone()
        if row is None:
            if not create:
                raise ProjectMissing(f"no index of project {name!r} in this database")
            conn.execute(
                "INSERT INTO projects(name, root, created_at) VALUES (%s, %s, %s) ON CONFLICT (name) DO NOTHING",
                (name, root, time.time()),
            )
            row = conn.execute("SELECT id FROM projects WHERE name = %s", (name,)).fetchone()
        assert row is not None
        project = int(row[0])
        conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, project))
        if root:
            conn.execute("UPDATE projects SET root = %s WHERE id = %s AND root != %s", (root, project, root))
        rows = conn.execute("SELECT key, value FROM meta WHERE project_id = %s", (project,)).fetchall()
        meta: dict[str, str] = {str(key): str(value) for key, value in rows}
        if not meta:
            _set(conn, project, "application", APPLICATION)
            _set(conn, project, "fingerprint", fingerprint)
            return project, None
        if meta.get("fingerprint") == fingerprint:
            return project, None
        # As SQLite's index: every file to be parsed again, its facts kept until then.
        conn.execute(
            "UPDATE files SET content_hash = %s, mtime_ns = -1 WHERE project_id = %s", (REPARSE_HASH, project)
        )
        _set(conn, project, "sweep_token", "")
        _set(conn, project, "fingerprint", fingerprint)
        return project, "the index was made by another version of codefathom's parsers and is being rebuilt"


def _set(conn: Conn, project: int, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta(project_id, key, value) VALUES (%s, %s, %s)"
        " ON CONFLICT (project_id, key) DO UPDATE SET value = excluded.value",
        (project, key, value),
    )


def project_names(uri: str) -> list[str]:
    """The names of the projects the database at `uri` holds (none before codefathom wrote to it)."""
    conn = connect(uri)
    try:
        with backend_errors():
            row = conn.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.projects",)).fetchone()
            if row is None or row[0] is None:
                return []
            return [str(name) for (name,) in conn.execute("SELECT name FROM projects ORDER BY name").fetchall()]
    finally:
        conn.close()
