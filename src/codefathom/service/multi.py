"""Searching several indexes at once: a project, the ones it links to, and any others named.

Each index is searched as a search of its own (synced first, its own filters, at most `limit`
results), then the results are merged by score. The fused score is reciprocal-rank fusion of the
channel ranks times rank-free priors (see search/rank.py): it depends on where a unit ranks in
its own index, not on that index's size or vocabulary, so scores from different indexes compare
well enough to interleave. Results then carry the project root of their index.

Which indexes: the project searched, those its config links to (`linked = ["vendor/shared-lib"]` in
.codefathom.toml or [tool.codefathom], paths inside the repository read from its root; a link
leading outside it is left out), and the ones named (`--index` / `index_names`), each a project
root, a directory inside one, an index directory or `index.db` as `list_indexes` shows, an
index directory's name in $CODEFATHOM_HOME, or the name of a project of the database store
$CODEFATHOM_STORE (or the working directory's config) names (alone, or as `list` shows it:
`postgresql://...#name`), searched at the folder it was indexed from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from codefathom.config import default_home, redacted_uri
from codefathom.errors import CodefathomError, PathOutsideRoot, UsageError
from codefathom.service import Codefathom, SearchResponse, configured_database
from codefathom.service.fingerprint import index_fingerprint
from codefathom.service.project import resolve_project
from codefathom.store import ProjectMissing, is_database_location, open_store

__all__ = ["search_several", "resolve_index_name", "linked_projects", "merge"]

# How a caller runs an action on the service of the project a path belongs to: the CLI opens
# one, the MCP server takes it from its cache (which also checks the path is served).
Call = Callable[[Path, Callable[[Codefathom], Any]], Any]


def resolve_index_name(
    name: str, base: Path | None = None, home: Path | None = None, confine: Callable[[Path], Path] | None = None
) -> Path:
    """The project directory an index name stands for (see the module docstring); a relative
    path is read from `base` (default: the working directory).

    `confine` (the MCP server's served-roots check) gets any existing path the name spells, before
    it is read, unless it lies in the index home, whose indexes say which project they belong to.
    """
    home = home or default_home()
    path = Path(name).expanduser()
    if base is not None and not path.is_absolute():
        path = base / path
    if confine is not None and path.exists() and not path.resolve().is_relative_to(home.resolve()):
        path = confine(path)
    if path.is_file() and path.name == "index.db":
        return _root_of(path)
    if path.is_dir():
        if (path / "index.db").is_file() and not (path / ".git").exists():
            return _root_of(path / "index.db")
        return path
    stored = home / name / "index.db"
    if "/" not in name and stored.is_file():
        return _root_of(stored)
    root = _database_root(name)
    if root is not None:
        return confine(root) if confine is not None else root
    raise UsageError(f"no project or index named {name!r}; `codefathom list` shows the indexes")


def _database_root(name: str) -> Path | None:
    """The folder the project `name` of the configured database store was indexed from (None: the
    database holds no such project, or no database store is configured)."""
    database = configured_database()
    if database is None:
        return None
    if is_database_location(name):  # as `list` shows it: the database (no password), then #name
        shown, _, name = name.rpartition("#")
        if shown != redacted_uri(database):
            return None
    if not name:
        return None
    try:
        with open_store(database, index_fingerprint(), create=False, project=name) as store:
            root = store.get_meta("root")
    except ProjectMissing:
        return None
    where = f"the project {name!r} of {redacted_uri(database)}"
    if not root:
        raise UsageError(f"{where} does not say which folder it was indexed from")
    if not Path(root).is_dir():
        raise UsageError(f"{where} was indexed from {root}, which is not a folder on this machine")
    return Path(root)


def _root_of(db_path: Path) -> Path:
    try:
        with open_store(db_path, index_fingerprint(), create=False) as store:
            root = store.get_meta("root")
    except Exception as exc:  # noqa: BLE001 - any failure: the index cannot say which project it is
        raise UsageError(f"cannot read the index {db_path}: {exc}") from exc
    if not root:
        raise UsageError(f"the index {db_path} does not say which project it belongs to")
    return Path(root)


def linked_projects(service: Codefathom) -> tuple[list[Path], list[str]]:
    """The projects the config links to, and a notice for each link left out.

    The config comes with the repository, so it never makes a search read outside it: a link is a
    path inside the project root (a nested repository, a submodule), `~` is not expanded, and a
    link that resolves (symlinks, `..`) outside the root is left out. A person who wants a sibling
    project searched too names it with `--index PATH` (`index_names` over MCP).
    """
    found: list[Path] = []
    notices: list[str] = []
    elsewhere = "search another project with --index PATH"
    for link in service.settings.linked:
        if link.startswith("~"):
            notices.append(f"linked project {link} left out: a link is a path inside the repository and `~` is"
                           f" not expanded; {elsewhere}")
            continue
        path = (service.root / link).resolve()
        if not path.is_relative_to(service.root):
            notices.append(f"linked project {link} ({path}) left out: it is outside the repository {service.root};"
                           f" {elsewhere}")
        elif path.is_dir():
            found.append(path)
        else:
            notices.append(f"linked project {link} ({path}) is not a directory; left out")
    return found, notices


def search_several(
    call: Call, primary: Path, others: Sequence[Path], search: Callable[[Codefathom], SearchResponse], limit: int
) -> SearchResponse:
    """Search `primary`, the projects it links to and `others`; one merged reply when more than one."""

    def first(service: Codefathom) -> tuple[SearchResponse, Path, list[Path], list[str]]:
        links, notices = linked_projects(service)
        return search(service), service.root, links, notices

    response, root, links, link_notices = call(primary, first)
    targets: list[Path] = []
    seen = {root}
    for path in [*others, *links]:
        try:
            target = resolve_project(path).root
        except CodefathomError as exc:
            if path in links:
                link_notices.append(f"linked project {path} left out: {exc}")
                continue
            raise
        if target not in seen:
            seen.add(target)
            targets.append(path)
    responses: list[SearchResponse] = [response]
    for path in targets:
        try:
            responses.append(call(path, search))
        except PathOutsideRoot as exc:  # a link the caller does not serve (MCP): the search goes on without it
            if path not in links:
                raise
            link_notices.append(f"linked project {path} left out: {exc}")
    if len(responses) == 1:
        response.notices.extend(link_notices)
        return responses[0]
    merged = merge(responses, limit)
    merged.notices.extend(link_notices)
    return merged


def merge(responses: Sequence[SearchResponse], limit: int) -> SearchResponse:
    """The best `limit` results of several replies by score, each tagged with its index."""
    ranked = sorted(
        ((hit.score, order, rank, hit, reply.project_root)
         for order, reply in enumerate(responses) for rank, hit in enumerate(reply.results)),
        key=lambda item: (-item[0], item[1], item[2]),
    )[:limit]
    first = responses[0]
    notices = list(first.notices)
    for reply in responses[1:]:
        notices.extend(f"{reply.project_root}: {notice}" for notice in reply.notices)
    debug: dict[str, object] | None = None
    if any(reply.debug is not None for reply in responses):
        debug = {"indexes": {reply.project_root: reply.debug for reply in responses}}
    partial = [reply for reply in responses if reply.partial]
    return SearchResponse(
        project_root=first.project_root, within=first.within, results=[item[3] for item in ranked],
        notices=notices, debug=debug, partial=bool(partial), indexing=partial[0].indexing if partial else None,
        result_indexes=[item[4] for item in ranked], query=first.query,
    )
