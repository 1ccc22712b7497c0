"""A repository's own git config runs no program when codefathom reads the repository.

Each hostile repository names programs in its config that git would run (an fsmonitor hook,
filter and diff drivers, an external diff, a pager, a hook, gpg for a signed commit, a lazy
fetch's upload-pack, a submodule's filter); each program leaves a marker file when it runs. The
verbs are run as a user runs them and must leave no marker while still answering right.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import git

FILES = {
    ".gitattributes": "*.py filter=evil diff=evil\n*.md filter=evilproc diff=evil\n",
    "README.md": "# project\n",
    "pkg/__init__.py": "",
    "pkg/core.py": """\
        def compute(x):
            return x * 2


        def other():
            return compute(1)
    """,
    "pkg/api.py": """\
        from pkg.core import compute


        def handle(x):
            return compute(x) + 1
    """,
    "tests/test_core.py": """\
        from pkg.core import compute


        def test_compute():
            assert compute(2) == 4
    """,
}


@pytest.fixture(autouse=True)
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the repositories' own config is in play, not the machine's or the user's."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user" / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"):
        monkeypatch.delenv(name, raising=False)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / name
    text = path.read_text(encoding="utf-8")
    assert old in text, (name, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def program(tmp_path: Path, name: str) -> str:
    """A program that leaves the marker `ran/<name>`, then copies the files it is given (a
    textconv's) or else its input (a filter's) to its output."""
    ran = tmp_path / "ran"
    ran.mkdir(exist_ok=True)
    path = tmp_path / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f'#!/bin/sh\ntouch "{ran / name}"\nexec cat "$@"\n', encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def ran(tmp_path: Path) -> list[str]:
    folder = tmp_path / "ran"
    return sorted(os.listdir(folder)) if folder.is_dir() else []


def configure(repo: Path, settings: dict[str, str], *, git_dir: Path | None = None) -> None:
    """Writes the settings straight into the config file, as an unpacked archive would bring them:
    no git is run on the repository once it is hostile."""
    lines = []
    for key, value in settings.items():
        section, _, rest = key.partition(".")
        subsection, _, name = rest.rpartition(".")
        header = f'[{section} "{subsection}"]' if subsection else f"[{section}]"
        lines += [header, f"\t{name} = {value}"]
    config = (git_dir or repo / ".git") / "config"
    with config.open("a", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


def sign(repo: Path) -> None:
    """HEAD becomes a commit carrying a (meaningless) PGP signature, which `log.showSignature`
    hands to `gpg.program`."""
    def read(*args: str) -> bytes:
        done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
        return done.stdout

    header, _, message = read("cat-file", "commit", "HEAD").partition(b"\n\n")
    signature = b"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
    commit = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=header + b"\n" + signature + b"\n\n" + message, check=True, capture_output=True,
    ).stdout.decode().strip()
    git(repo, "update-ref", "HEAD", commit)


def make_repo(root: Path) -> Path:
    """Two commits (the second changes `compute`), then `handle` changed in the working tree."""
    write(root, FILES)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    edit(root, "pkg/core.py", "return x * 2", "return x * 3")
    edit(root, "tests/test_core.py", "== 4", "== 6")
    git(root, "commit", "-q", "-am", "triple")
    edit(root, "pkg/api.py", "compute(x) + 1", "compute(x) + 2")
    return root


def run_json(run_cli: Callable[..., Result], *args: str, input: str | None = None) -> dict[str, Any]:
    result = run_cli(*args, "--json", input=input)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def changed(data: dict[str, Any]) -> dict[str, str]:
    return {s["qualified_name"]: s["change"] for s in data["changed_symbols"]}


@pytest.mark.parametrize("hook_in", ["core.hooksPath", ".git/hooks"])
def test_a_hostile_config_runs_nothing_and_every_answer_stays_right(
    tmp_path: Path, run_cli: Callable[..., Result], hook_in: str
) -> None:
    root = make_repo(tmp_path / "project")
    sign(root)
    hooks = tmp_path / "hooks" if hook_in == "core.hooksPath" else root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "post-index-change").write_text(f'#!/bin/sh\nexec {program(tmp_path, "hook")} "$@"\n', encoding="utf-8")
    (hooks / "post-index-change").chmod(0o755)
    settings = {
        "core.fsmonitor": program(tmp_path, "fsmonitor"),
        "core.pager": program(tmp_path, "pager"),
        "pager.diff": program(tmp_path, "pager.diff"),
        "filter.evil.clean": program(tmp_path, "clean"),
        "filter.evil.smudge": program(tmp_path, "smudge"),
        "filter.evil.required": "true",
        "filter.evilproc.process": program(tmp_path, "process"),
        "diff.evil.textconv": program(tmp_path, "textconv"),
        "diff.evil.command": program(tmp_path, "diff.command"),
        "diff.external": program(tmp_path, "diff.external"),
        "log.showSignature": "true",
        "gpg.program": program(tmp_path, "gpg"),
    }
    if hook_in == "core.hooksPath":
        settings["core.hooksPath"] = str(hooks)
    configure(root, settings)
    os.utime(root / "README.md")  # stat no longer matches git's index: its content is read again

    indexed = run_json(run_cli, "index", str(root), "--no-embed")
    assert (indexed["discovery"], indexed["files"], indexed["skipped"]) == ("git", len(FILES), [])
    found = run_json(run_cli, "search", "compute", "-p", str(root))
    assert found["results"][0]["qualified_name"] == "pkg.core.compute"

    impact = run_json(run_cli, "impact", "--diff", "HEAD~1", "-p", str(root))
    assert changed(impact) == {"pkg.core.compute": "modified", "pkg.api.handle": "modified",
                               "tests.test_core.test_compute": "modified"}
    assert {f["path"] for f in impact["changed_files"]} == {"pkg/core.py", "pkg/api.py", "tests/test_core.py"}
    staged = run_json(run_cli, "impact", "--staged", "-p", str(root))
    assert staged["changed_files"] == []

    cochange = run_json(run_cli, "cochange", "pkg/core.py", "-p", str(root))
    assert (cochange["commits"], cochange["files"][0]["path"]) == (2, "tests/test_core.py")
    tests = run_json(run_cli, "tests", "compute", "-p", str(root))
    assert [t["path"] for t in tests["tests"]] == ["tests/test_core.py"]

    assert ran(tmp_path) == []


def test_a_config_included_from_the_working_tree_is_read_again_when_it_appears(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    root = make_repo(tmp_path / "project")
    configure(root, {"include.path": "../hostile.gitconfig"})  # relative to .git/config: in the working tree
    settled = 1_600_000_000  # what git read long ago is kept while its files keep their signatures
    for path in (root / ".git" / "config", root / ".git" / "HEAD"):
        os.utime(path, (settled, settled))
    first = run_json(run_cli, "impact", "--diff", "HEAD", "-p", str(root))
    assert changed(first) == {"pkg.api.handle": "modified"}

    # Brought by a pull, say: the config file itself does not change.
    (root / "hostile.gitconfig").write_text(f"[filter \"evil\"]\n\tclean = {program(tmp_path, 'clean')}\n")
    edit(root, "pkg/core.py", "return x * 3", "return x * 4")
    second = run_json(run_cli, "impact", "--diff", "HEAD", "-p", str(root))
    assert changed(second) == {"pkg.api.handle": "modified", "pkg.core.compute": "modified"}
    assert ran(tmp_path) == []


def test_a_partial_clone_fetches_no_missing_object(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    """A missing object is fetched from the promisor remote, by the upload-pack its config names."""
    root = make_repo(tmp_path / "project")
    # Content of this test's own: a blob parsed before in this process would not be asked of git.
    write(root, {"pkg/fetched.py": f"def fetched():\n    return {str(tmp_path)!r}\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fetched")
    edit(root, "pkg/fetched.py", "return", "return 'now ' +")
    patch = subprocess.run(
        ["git", "-C", str(root), "diff", "--full-index", "HEAD", "--", "pkg/fetched.py"],
        check=True, capture_output=True, text=True,
    ).stdout
    old_blob = patch.split("index ", 1)[1].split("..", 1)[0]
    (root / ".git" / "objects" / old_blob[:2] / old_blob[2:]).unlink()
    git(root, "config", "core.repositoryformatversion", "1")
    configure(root, {
        "extensions.partialClone": "origin",
        "remote.origin.url": str(tmp_path),
        "remote.origin.promisor": "true",
        "remote.origin.uploadpack": program(tmp_path, "uploadpack"),
        "protocol.file.allow": "always",
    })
    data = run_json(run_cli, "impact", "--diff", "-", "-p", str(root), input=patch)
    assert changed(data) == {"pkg.fetched.fetched": "modified"}
    assert ran(tmp_path) == []


def test_a_submodule_config_runs_nothing(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    """git diff looks into a checked-out submodule for changes, and with diff.submodule=diff shows
    the diff of its new commits, by running git there, under the submodule's own config."""
    library = tmp_path / "library"
    write(library, {".gitattributes": "*.py filter=subevil diff=subevil\n", "lib.py": "def helper():\n    return 1\n"})
    git(library, "init", "-q")
    git(library, "add", "-A")
    git(library, "commit", "-q", "-m", "library")
    root = make_repo(tmp_path / "project")
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "vendor/library")
    git(root, "commit", "-q", "-m", "vendor the library")
    checkout = root / "vendor" / "library"
    edit(checkout, "lib.py", "return 1", "return 2")
    git(checkout, "commit", "-q", "-am", "two")  # the submodule's commit is not the one recorded
    edit(checkout, "lib.py", "return 2", "return 3")
    configure(root, {"diff.submodule": "diff"})
    configure(root, {
        "core.fsmonitor": program(tmp_path, "sub.fsmonitor"),
        "filter.subevil.clean": program(tmp_path, "sub.clean"),
        "diff.subevil.textconv": program(tmp_path, "sub.textconv"),
    }, git_dir=root / ".git" / "modules" / "vendor" / "library")

    data = run_json(run_cli, "impact", "--diff", "HEAD", "-p", str(root))
    assert changed(data) == {"pkg.api.handle": "modified"}
    assert ran(tmp_path) == []
