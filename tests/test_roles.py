"""What a file is for, read from its path, as search weighs it: test modules named for what they are
(Rust's `tests.rs`, Django's `tests.py`) are tests, and a test named exactly still comes first."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import index_with_vectors, no_index, write_files

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


CHUNKS = {
    "Cargo.toml": '''
        [package]
        name = "chunks"
        version = "0.1.0"
    ''',
    "src/lib.rs": '''
        //! Folding a parallel iterator in chunks.

        /// Check the length of each chunk, then fold the chunks of a slice with `fold`.
        pub fn fold_chunks<T: Copy>(items: &[T], len: usize, fold: fn(T, T) -> T) -> Vec<T> {
            assert!(len > 0, "chunks len must be positive");
            items.chunks(len).map(|c| c.iter().copied().reduce(fold).unwrap()).collect()
        }

        /// The number of chunks of `len` items a slice folds into.
        pub fn chunks_len(items: usize, len: usize) -> usize {
            (items + len - 1) / len
        }
    ''',
    "tests/fold.rs": '''
        use chunks::*;

        #[test]
        fn check_fold_chunks_len() {
            assert_eq!(fold_chunks(&[1, 2, 3], 2, |a, b| a + b), vec![3, 3]);
        }
    ''',
}


def test_a_test_named_by_its_words_comes_first(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Four words are ordered by the reranker, whose `test` feature weighed the test down below the
    # source that shares its words; all the words, joined, name it.
    root = write_files(tmp_path / "chunks", CHUNKS)
    expected = ("check_fold_chunks_len", "tests/fold.rs")
    assert _first(run_cli, root, "check fold chunks len")[0] == expected
    # With vectors too: the model with vectors orders any phrase of words.
    index_with_vectors(run_cli, root, monkeypatch)
    assert _first(run_cli, root, "check fold chunks len")[0] == expected
    # Words that do not spell its whole name leave it a test: the source they describe leads.
    assert _first(run_cli, root, "check the length of each chunk then fold the chunks")[0][0] == "fold_chunks"
