"""`codefathom init`: a commented `.codefathom.toml` written for this project, from what a listing
of its files finds: its languages, the directories worth leaving out, the embedder.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from codefathom.config import CONFIG_FILE, DEFAULT_MAX_FILE_SIZE, load_settings
from codefathom.discover import discover
from codefathom.embed.base import DEFAULT_SPEC
from codefathom.parse.languages import language_for
from codefathom.search.roles import path_role

__all__ = ["ProjectSurvey", "survey", "config_text", "CONFIG_FILE"]

MIN_FILES = 20  # a directory proposed for `exclude` holds at least this many files
# Directory names whose files are rarely what one searches for: generated, fixture and snapshot data.
DATA_DIRS = ("testdata", "fixtures", "__snapshots__", "generated", "locale", "locales", "migrations")


@dataclass
class ProjectSurvey:
    root: Path
    files: int
    languages: list[tuple[str, int]]  # most files first
    candidates: list[tuple[str, int, str]]  # directory (with /**), files, why it could be left out
    largest_kept: int  # bytes of the largest file indexed


def survey(root: Path) -> ProjectSurvey:
    files = discover(load_settings(root)).files
    languages: Counter[str] = Counter()
    folders: Counter[tuple[str, str]] = Counter()
    for file in files:
        spec = language_for(file.path)
        languages[spec if isinstance(spec, str) else spec.name] += 1
        parts = file.path.split("/")[:-1]
        for depth, name in enumerate(parts):
            why = "vendored code" if path_role(name + "/x") == "vendored" else (
                "data, fixtures or generated files" if name.lower() in DATA_DIRS else "")
            if why:
                folders[("/".join(parts[: depth + 1]), why)] += 1
                break
    candidates = sorted(((f"{d}/**", n, why) for (d, why), n in folders.items() if n >= MIN_FILES),
                        key=lambda c: -c[1])
    return ProjectSurvey(root, len(files), languages.most_common(), candidates,
                         max((f.size for f in files), default=0))


def config_text(found: ProjectSurvey) -> str:
    """The file's text: every setting explained, the ones this project may want filled in."""
    languages = ", ".join(f"{name} {count:,}" for name, count in found.languages[:8]) or "none yet"
    lines = [
        "# codefathom's settings for this project (written by `codefathom init`; edit freely).",
        f"# Found {found.files:,} files to index: {languages}.",
        "",
        "# Only files these globs name are indexed, when set (paths from the project root).",
        '# include = ["src/**", "tests/**"]',
        "",
        "# Left out besides what .gitignore ignores, dependencies, build output, lock, binary, minified",
        "# and generated files. Directories of this project that may be worth leaving out:",
        "exclude = [",
        *([f'    # "{glob}",  # {count:,} files of {why}' for glob, count, why in found.candidates]
          or [f"    # (none found: vendored code, fixtures or generated data, {MIN_FILES}+ files a directory)"]),
        "]",
        "",
        f"# Files over this many bytes are skipped (the largest indexed now: {found.largest_kept:,}).",
        f"max_file_size = {DEFAULT_MAX_FILE_SIZE}",
        "",
        '# The embedder for search by meaning: "e5onnx" (the default, on this machine\'s CPU), "none" for',
        '# words and names only, or a server: "ollama:nomic-embed-text@http://localhost:11434".',
        f'embedder = "{DEFAULT_SPEC}"',
        "",
        "# Projects inside this one (their own repositories) searched with it, as paths from here.",
        '# linked = ["packages/api"]',
        "",
    ]
    return "\n".join(lines)
