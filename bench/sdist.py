"""Pinned PyPI source distributions for the benchmarks: downloaded with pip once, checked by sha256.

Shared by speed.py, resync.py and graph_accuracy.py (the quality lab's corpora also come from npm
and Debian and have their own downloader, bench/lab/corpora.py).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

__all__ = ["fetch_sdist"]


def fetch_sdist(requirement: str, archive_name: str, sha256: str, downloads: Path) -> Path:
    """The archive of `requirement` (`NAME==VERSION`) in `downloads`, fetched on first use; exits
    with a clear message when its sha256 is not the pinned one."""
    downloads.mkdir(parents=True, exist_ok=True)
    archive = downloads / archive_name
    if not archive.exists():
        print(f"downloading {requirement} (sdist) from PyPI ...", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", requirement,
             "-d", str(downloads), "--quiet"],
            check=True,
        )
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{archive} has sha256 {digest}, not the pinned {sha256}; delete it and retry")
    return archive
