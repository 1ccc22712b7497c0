"""The concept thesaurus: a question in other words than the code's finds the code, through the CLI."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import no_index, write_files

from codefathom.search.concepts import CONCEPTS_FILE, abbreviations, initialisms, thesaurus, with_concepts
from codefathom.search.config import DEFAULT_RANKING
from codefathom.search.query import STOPWORDS, light_stem, plan_query
from codefathom.service import Codefathom

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

FIXTURES = Path(__file__).parent / "fixtures" / "repos"


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    target = tmp_path / "ledger"
    shutil.copytree(FIXTURES / "ledger", target)
    return target


def _names(run_cli: Callable[..., Result], root: Path, query: str) -> list[str]:
    result = run_cli("search", query, "--path", str(root), "--json", "-n", "3")
    assert result.exit_code == 0, result.output
    return [hit["name"] for hit in json.loads(result.output)["results"]]


def test_a_synonym_finds_the_code_that_says_it_otherwise(ledger: Path, run_cli: Callable[..., Result]) -> None:
    # The code says "delete"; the question says "remove", a word the project never uses. Without
    # the thesaurus, the units that mention "account" most come first.
    question = "remove a customer account for good"
    assert _names(run_cli, ledger, question)[0] == "delete_account"
    with Codefathom(ledger) as service:
        plain = service.search(question, limit=3, fresh=False, ranking=DEFAULT_RANKING.with_(concepts=False))
    assert plain.results[0].name != "delete_account"


@no_index
def test_names_are_taken_as_written() -> None:
    # A name is not a question: `remove_account` must not bring in `delete`.
    assert with_concepts(plan_query("remove_account")).related == ()
    assert with_concepts(plan_query("Store.remove")).related == ()
    related = with_concepts(plan_query("where are failed uploads removed")).related
    assert ("removed", "delete", 1.0) in related
    assert all(other not in STOPWORDS for _, other, _ in related)


@no_index
def test_the_thesaurus_is_symmetric_and_weighted_within_bounds() -> None:
    table = thesaurus(CONCEPTS_FILE)
    assert len(table) > 300
    for word, related in table.items():
        assert word == word.lower() and word.isalpha(), word
        for other, weight in related:
            assert other != word and 0 < weight <= 1
            assert (word, weight) in table[other]


def test_an_irregular_past_finds_the_verb_the_code_is_named_after(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    # "stole" is not a form any suffix rule brings back to `steal`.
    root = tmp_path / "pool"
    root.mkdir()
    (root / "metrics.py").write_text(
        "class WorkerMetrics:\n"
        '    """Counters a worker thread keeps while it runs tasks."""\n\n'
        "    def steal_count(self, worker):\n"
        "        return self.workers[worker].steals\n\n"
        "    def park_count(self, worker):\n"
        '        """How long the worker thread slept, waiting for tasks."""\n'
        "        return self.workers[worker].parks\n\n"
        "    def poll_count(self, worker):\n"
        '        """The number of tasks the worker thread polled."""\n'
        "        return self.workers[worker].polls\n"
    )
    names = _names(run_cli, root, "how often a worker thread stole tasks")
    assert names[0] == "steal_count", names


STREAM = {
    "net/stream.py": '''
        class Stream:
            """Bytes on their way to a socket."""

            def flush_log(self):
                self.sock.sendall(self.log_lines)
                self.log_lines = b""

            def flush_buf(self):
                self.sock.sendall(self.pending)
                self.pending = b""
    ''',
    "net/sizes.py": '''
        def limits(settings):
            """The limits of a stream: the largest buffer and the longest wait."""
            return settings.get("largest", 4096), settings.get("wait", 30)


        def pad(data, size):
            """A buffer at least as large as size, holding the data."""
            return data + b"\\0" * max(0, size - len(data))


        def is_full(data, size):
            """Whether a buffer holds as much as it may."""
            return len(data) >= size
    ''',
}


def test_a_name_says_a_word_by_its_abbreviation(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `flush_buf` says "buffer" as surely as `flush_buffer` would. The project says "buffer" often
    # enough that the thesaurus does not step in, so it is the reranker's reading of the name.
    root = write_files(tmp_path / "stream", STREAM)
    assert abbreviations()["buffer"] == {"buf"}
    question = "flush everything held in the buffer out to the socket"
    names = _names(run_cli, root, question)
    assert "flush_buf" in names[:2] and "flush_log" not in names[:2], names
    from codefathom.search import rerank

    monkeypatch.setattr(rerank, "abbreviations", dict)
    with Codefathom(root) as service:
        plain = service.search(question, limit=3, fresh=False, ranking=DEFAULT_RANKING.with_(vectors=False))
    assert "flush_buf" not in [hit.name for hit in plain.results]


SETTINGS = {
    "app/settings.py": '''
        class Settings:
            """What a client is configured with."""

            def get_timeout(self):
                return self.values["timeout"]

            def set_timeout(self, seconds):
                self.values["timeout"] = seconds
    ''',
    "app/waits.py": '''
        def deadline(now, settings):
            """The time a request gives up at: now plus the configured timeout of the settings."""
            return now + settings.timeout


        def configured(settings, key):
            """A value of the settings as configured, or None when it is not."""
            return settings.values.get(key)
    ''',
}


def test_returns_is_said_by_a_getter(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A doc says "Returns the timeout"; the code names it `get_timeout`.
    root = write_files(tmp_path / "client", SETTINGS)
    question = "Returns the timeout configured for the client"
    names = _names(run_cli, root, question)
    assert names[0] == "get_timeout", names
    from codefathom.search import rerank

    monkeypatch.setattr(rerank, "NAMED_BY", {})
    with Codefathom(root) as service:
        plain = service.search(question, limit=3, fresh=False, ranking=DEFAULT_RANKING.with_(vectors=False))
    assert plain.results[0].name != "get_timeout", [hit.name for hit in plain.results]


CREDENTIALS = {
    "os/peer.rs": """
        /// Who is at the other end of a local socket.
        pub struct Peer {
            ids: (u32, u32, u32),
        }

        impl Peer {
            pub fn pid(&self) -> u32 {
                self.ids.2
            }

            pub fn uid(&self) -> u32 {
                self.ids.0
            }

            pub fn gid(&self) -> u32 {
                self.ids.1
            }
        }
    """,
    "os/process.rs": """
        /// The process a command runs, and the user it runs as.
        pub fn spawn_as(user: &str, program: &str) -> u32 {
            run(user, program)
        }

        /// The user a session was opened by, looked up by name.
        pub fn session_user(name: &str) -> String {
            lookup(name)
        }
    """,
}


def test_a_name_says_the_phrase_its_initials_stand_for(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `uid` is the "user ID", which neither spells by the first letter and letters in order rule.
    root = write_files(tmp_path / "peer", CREDENTIALS)
    assert initialisms()["uid"] == ("user", "id")
    question = "Gets UID (user ID) of the process at the other end"
    names = _names(run_cli, root, question)
    assert names[0] == "uid", names
    from codefathom.search import rerank

    monkeypatch.setattr(rerank, "abbreviations", dict)
    with Codefathom(root) as service:
        plain = service.search(question, limit=3, fresh=False, ranking=DEFAULT_RANKING.with_(vectors=False))
    assert [hit.name for hit in plain.results][0] != "uid"


MASKS = {
    "flags/mask.hpp": """
        namespace flags {
        class Mask {
         public:
          explicit Mask(unsigned value) : value_(value) {}

          Mask operator<<(int n) const { return Mask(value_ << n); }

          bool operator==(const Mask &other) const { return value_ == other.value_; }

         private:
          unsigned value_;
        };
        }
    """,
    "flags/trig.hpp": """
        /// The cosine of each coefficient, in radians.
        inline Mask cos(const Mask &m) { return m.map(std::cos); }

        inline Mask acos(const Mask &m, bool clamped = false) { return m.map(std::acos); }

        /// The sine of each coefficient, in radians.
        inline Mask sin(const Mask &m) { return m.map(std::sin); }
    """,
    "flags/cursor.hpp": """
        namespace flags {
        /// The number of places a cursor holds, counted from the left.
        int width();

        /// Moves a cursor left by a number of columns.
        void move_left(int columns);

        /// Whether two cursors stand in the same place.
        bool same_place(int a, int b);
        }
    """,
}


@pytest.mark.parametrize(("question", "operator"), [
    ("returns the arc cosine of each coefficient of a mask", "acos"),
    ("shift the bits left by a number of places", "operator<<"),
    ("whether two masks are equal", "operator=="),
])
def test_an_operator_is_found_by_what_it_does(
    tmp_path: Path, run_cli: Callable[..., Result], question: str, operator: str
) -> None:
    # An operator's name has no words of its own, and `acos` none of "arc cosine": they come from a table.
    root = write_files(tmp_path / "masks", MASKS)
    assert _names(run_cli, root, question)[0] == operator


@no_index
def test_an_adverb_says_its_adjective() -> None:
    # "Unsafely returns the last element" asks for `unsafeLast` (effect's List): no plural's or past's
    # rule brings an adverb back to its adjective.
    for adverb, adjective in [("unsafely", "unsafe"), ("lazily", "lazy"), ("atomically", "atomic"),
                              ("recursively", "recursive"), ("carefully", "careful"), ("previously", "previous")]:
        assert light_stem(adverb) == light_stem(adjective), adverb
    assert [light_stem(w) for w in ("apply", "reply", "only")] == ["apply", "reply", "only"]


SORTING = {
    "sorting/merge.py": '''
        def mergesort(v):
            if len(v) < 2:
                return list(v)
            mid = len(v) // 2
            return merged(mergesort(v[:mid]), mergesort(v[mid:]))


        def merged(left, right):
            """Two sorted lists as one sorted list."""
            out = []
            while left and right:
                out.append((left if left[0] <= right[0] else right).pop(0))
            return out + left + right
    ''',
    "sorting/slices.py": '''
        def sort_slice(items):
            """Sorts the slice in place, keeping equal items in their order."""
            items.sort()


        def sort_descending(items):
            """Sorts the slice in descending order."""
            items.sort(reverse=True)
    ''',
}


def test_two_words_of_a_question_are_one_word_of_a_name(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    # The question says "merge sort"; the code says `mergesort`, one word the tokenizer cannot split.
    root = write_files(tmp_path / "sorting", SORTING)
    # (Read as words of its own, neither "merge" nor "sort" is said by it, and it was not in the first three.)
    question = "Sorts a slice using merge sort, unless it is already in descending order"
    names = _names(run_cli, root, question)
    assert "mergesort" in names, names


READ_BUFFER = {
    "io/read_buf.rs": """
        impl<'a> ReadBuf<'a> {
            /// Returns a mutable reference to the unfilled part of the buffer, ensuring it is fully initialized.
            pub fn initialize_unfilled(&mut self) -> &mut [u8] {
                self.initialize_unfilled_to(self.remaining())
            }

            /// Returns a mutable reference to the first n bytes of the unfilled part of the buffer, ensuring
            /// it is fully initialized.
            pub fn initialize_unfilled_to(&mut self, n: usize) -> &mut [u8] {
                let end = self.filled + n;
                self.buf[self.filled..end].fill(0);
                &mut self.buf[self.filled..end]
            }

            pub unsafe fn unfilled_mut(&mut self) -> &mut [MaybeUninit<u8>] {
                &mut self.buf[self.filled..]
            }

            /// Returns the number of bytes at the end of the slice that have not yet been filled.
            pub fn remaining(&self) -> usize {
                self.capacity() - self.filled
            }
        }
    """,
}


def _name_words(root: Path, question: str) -> dict[str, float]:
    """The reranker's `name_words` of each result, searched without vectors."""
    with Codefathom(root) as service:
        found = service.search(question, limit=5, fresh=False, ranking=DEFAULT_RANKING.with_(vectors=False),
                               include_debug=True, explain=True)
    return {hit["name"].rpartition(".")[2]: hit["reranker"]["features"].get("name_words", {}).get("value", 0.0)
            for hit in found.debug["results"]}  # type: ignore[union-attr]


def test_mut_says_mutable(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    # Rust names the mutable variant of a method by `_mut`: of two siblings whose names say
    # "unfilled", the one that also says "mutable" says more of the question.
    root = write_files(tmp_path / "io", READ_BUFFER)
    question = "Returns a mutable reference to the unfilled part of the buffer without ensuring that it is initialized"
    assert _names(run_cli, root, question)[0] == "unfilled_mut"
    said = _name_words(root, question)
    assert said["unfilled_mut"] > said["initialize_unfilled"], said


FLATTEN = {
    "par/flatten.rs": """
        impl<I: ParallelIterator> Flattener<I> {
            /// Flattens the items of each parallel collection into one large parallel sequence.
            pub fn flatten(self) -> Flatten<I> {
                Flatten::new(self)
            }

            pub fn flatten_iter(self) -> FlattenIter<I> {
                FlattenIter::new(self)
            }
        }
    """,
}


def test_iter_says_iterator(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    # `flatten_iter` says "iterator" as its own doc would have.
    root = write_files(tmp_path / "par", FLATTEN)
    question = "Flattens the serial iterator items of each collection into one large parallel sequence"
    said = _name_words(root, question)
    assert said["flatten_iter"] > said["flatten"], said
