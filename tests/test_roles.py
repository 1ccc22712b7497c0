"""What a file is for, read from its path, as search weighs it: test modules named for what they are
(Rust's `tests.rs`, Django's `tests.py`) are tests, and a test named exactly still comes first."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import no_index, write_files

from codefathom.search.roles import path_role

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

FILES = {
    "Cargo.toml": '''
        [package]
        name = "lists"
        version = "0.1.0"
    ''',
    "src/lib.rs": '''
        //! Parallel collection into lists.

        mod collect;
        #[cfg(test)]
        mod tests;
    ''',
    "src/collect.rs": '''
        use std::collections::LinkedList;

        /// Collects the items of a parallel iterator into a linked list, one list per thread, appended.
        pub fn collect_linked_list<T>(items: Vec<T>) -> LinkedList<T> {
            let mut list = LinkedList::new();
            for item in items {
                list.push_back(item);
            }
            list
        }

        /// Parallel iterators: collect into a linked list, iterate a linked list in parallel.
        pub mod par_iter {
            /// Collect a parallel iterator into a linked list.
            pub fn collect<T>(items: Vec<T>) -> std::collections::LinkedList<T> {
                super::collect_linked_list(items)
            }
        }
    ''',
    "src/tests.rs": '''
        use super::collect::*;

        #[test]
        fn collect_parallel_iterator_items_into_linked_list() {
            let list = collect_linked_list(vec![1, 2, 3]);
            assert_eq!(list.len(), 3);
        }
    ''',
    "tests/lists.rs": '''
        use lists::*;

        #[test]
        fn par_iter_collect_linked_list() {
            let list = collect_linked_list(vec![1, 2, 3]);
            assert_eq!(list.len(), 3);
        }
    ''',
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_files(tmp_path / "lists", FILES)


def _first(run_cli: Callable[..., Result], root: Path, query: str) -> list[tuple[str, str]]:
    result = run_cli("search", query, "--path", str(root), "--json", "-n", "3")
    assert result.exit_code == 0, result.output
    return [(hit["name"], hit["path"]) for hit in json.loads(result.output)["results"]]


def test_a_rust_test_module_is_weighed_as_tests(project: Path, run_cli: Callable[..., Result]) -> None:
    # The test's name says every word of the question; before `tests.rs` was read as a test module,
    # it came first, above the function it tests.
    found = _first(run_cli, project, "collect the items of a parallel iterator into a linked list")
    assert found[0] == ("collect_linked_list", "src/collect.rs"), found


def test_a_test_named_exactly_comes_first(project: Path, run_cli: Callable[..., Result]) -> None:
    # Source that shares the name's words (`par_iter`, `collect_linked_list`) came first before.
    found = _first(run_cli, project, "par_iter_collect_linked_list")
    assert found[0] == ("par_iter_collect_linked_list", "tests/lists.rs"), found


@no_index
def test_test_modules_by_their_file_names() -> None:
    assert path_role("src/iter/test.rs") == path_role("src/tests.rs") == "test"
    assert path_role("polls/tests.py") == path_role("lib/tests.ts") == "test"
    # A command named `test` is source: only Rust names a test module `test`.
    assert path_role("django/core/management/commands/test.py") == "source"
    assert path_role("src/testing.rs") == path_role("src/iter/mod.rs") == "source"
