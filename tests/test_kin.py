"""A definition without a doc, beside a documented one of its family (`print_err`, `print_errf`,
`print_errln`): a question the family's doc answers finds it too, through the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import index_with_vectors, write_files

from codefathom.search import rerank
from codefathom.search.config import DEFAULT_RANKING
from codefathom.service import Codefathom

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

FILES = {
    "app/output.py": '''
        """Writing messages for the command line."""

        import sys

        ERR = None


        def print_err(message):
            """Print a message to the error output, falling back to stderr when none is set."""
            (ERR or sys.stderr).write(str(message))


        def print_errf(template, *args):
            print_err(template % args)


        def print_errln(message):
            """Print a message and a newline to the error output, falling back to stderr when none is set."""
            print_err(f"{message}\\n")


        def clear_output(message):
            global ERR
            ERR = None
    ''',
    "app/report.py": '''
        """Reports of a finished run."""


        def error_summary(errors):
            """A message that counts the errors of a run, for the error output."""
            return f"{len(errors)} errors"


        def format_message(template, values):
            """Fill a message template with values, formatted for the output."""
            return template.format(**values)


        def output_stream(settings):
            """The output a run writes to: the one set in the settings, or stderr when none is set."""
            return settings.get("output")
    ''',
    "app/log.py": '''
        """Logging set up for the tool."""


        def warn(message):
            """Print a warning message to the error output when warnings are set to show."""
            print("warning:", message)


        def fallback_handler():
            """A handler falling back to stderr when no log file is set."""
            return None
    ''',
}
QUESTION = "print a formatted message to the error output, falling back to stderr when none is set"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_files(tmp_path / "tool", FILES)


def test_an_undocumented_variant_comes_up_beside_its_documented_kin(
    project: Path, run_cli: Callable[..., Result]
) -> None:
    result = run_cli("search", QUESTION, "--path", str(project), "--json", "-n", "5")
    assert result.exit_code == 0, result.output
    names = [hit["name"] for hit in json.loads(result.output)["results"]]
    assert names[0] == "print_err"  # the documented match still leads
    assert names.index("print_errf") <= 2, names
    assert "clear_output" not in names[:3]  # undocumented and near, but not of the family
    # Without the feature, the documented functions of other files that share some of the words
    # come first.
    unkin = tuple((name, 0.0 if name == "kin" else weight) for name, weight in DEFAULT_RANKING.rerank_lexical_weights)
    with Codefathom(project) as service:
        plain = service.search(QUESTION, limit=5, fresh=False,
                               ranking=DEFAULT_RANKING.with_(vectors=False, rerank_lexical_weights=unkin))
    assert [hit.name for hit in plain.results].index("print_errf") > 2


def test_a_name_query_keeps_its_definition_first(project: Path, run_cli: Callable[..., Result]) -> None:
    result = run_cli("search", "print_errln", "--path", str(project), "--json", "-n", "3")
    assert json.loads(result.output)["results"][0]["name"] == "print_errln"


def test_kin_counts_in_the_model_with_vectors_too(
    project: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    index_with_vectors(run_cli, project, monkeypatch)
    result = run_cli("search", QUESTION, "--path", str(project), "--json", "-n", "5")
    names = [hit["name"] for hit in json.loads(result.output)["results"]]
    assert names[0] == "print_err"
    assert names.index("print_errf") <= 2, names
    unkin = tuple((name, 0.0 if name == "kin" else weight) for name, weight in DEFAULT_RANKING.rerank_weights)
    with Codefathom(project) as service:
        plain = service.search(QUESTION, limit=5, fresh=False, ranking=DEFAULT_RANKING.with_(rerank_weights=unkin))
    assert [hit.name for hit in plain.results].index("print_errf") > 2


RELEASES = {
    "versions/compare.py": '''
        """Comparing release versions."""


        def earlier(first: "Version", second: "Version") -> bool:
            """True when the first release came out before the second, by epoch, then major, minor and patch."""
            return first.key() < second.key()


        def newest(versions):
            """The newest of some versions."""
            return max(versions, key=lambda v: v.key())


        def oldest(versions):
            """The oldest of some versions."""
            return min(versions, key=lambda v: v.key())


        def later(first: "Version", second: "Version") -> bool:
            return first.key() > second.key()
    ''',
    "versions/credentials.py": '''
        """Who is at the other end of a local socket."""


        class PeerCredentials:
            def __init__(self, uid, gid, pid):
                self._ids = (uid, gid, pid)

            def uid(self):
                return self._ids[0]

            def gid(self):
                """The group ID of the process at the other end of the socket."""
                return self._ids[1]
    ''',
    "versions/history.py": '''
        """The project's release history."""


        def release_notes(release):
            """The notes of a release: its major, minor and patch changes, by epoch."""
            return release.notes


        def second_release(history):
            """The second release of a history, the first after the initial one."""
            return history[1]


        def socket_owner(path):
            """The user who owns the socket file at a path, or the process that made it."""
            return path.owner()
    ''',
}
RELEASES["versions/numbers.ts"] = """
    /** The reciprocal of a given number, thrown away when the number is zero. */
    export const unsafeRecip = (n: number): number => {
      if (n === 0) throw new RangeError("zero");
      return 1 / n;
    };

    /** The absolute value of a given number: its sign dropped when it is negative. */
    export const abs = (n: number): number => (n < 0 ? -n : n);

    /** Whether a given number is zero or below. */
    export const isPositive = (n: number): boolean => n > 0;

    export const recip = (n: number): number | undefined => (n === 0 ? undefined : unsafeRecip(n));
"""
# The same question of each pair's undocumented member: its sibling's doc, with the one word that differs.
QUESTIONS = {
    "later": "True when the second release came out after the first, by epoch, then major, minor and patch",
    "uid": "The user ID of the process at the other end of the socket",
    "recip": "The reciprocal of a given number, or nothing when the number is zero",
}


@pytest.mark.parametrize("name", sorted(QUESTIONS))
def test_a_definition_that_takes_and_gives_the_same_or_a_sibling_method_is_kin(
    tmp_path: Path, run_cli: Callable[..., Result], name: str
) -> None:
    project = write_files(tmp_path / "releases", RELEASES)
    result = run_cli("search", QUESTIONS[name], "--path", str(project), "--json", "-n", "5")
    assert result.exit_code == 0, result.output
    names = [hit["name"] for hit in json.loads(result.output)["results"]]
    assert names.index(name) <= 1, names  # beside its documented kin (`earlier`, `gid`, `unsafeRecip`)
    unkin = tuple((n, 0.0 if n == "kin" else weight) for n, weight in DEFAULT_RANKING.rerank_lexical_weights)
    with Codefathom(project) as service:
        plain = service.search(QUESTIONS[name], limit=5, fresh=False,
                               ranking=DEFAULT_RANKING.with_(vectors=False, rerank_lexical_weights=unkin))
    found = [hit.name for hit in plain.results]
    assert name not in found[:2], found


OPTIONS = {
    "cli/names.hpp": """
        namespace cli {
        /// Verify following characters of an option name: letters, digits, `_`, `.` and `-`.
        template <typename T> bool valid_later_char(T c) { return std::isalnum(c) || c == '_' || c == '.'; }

        template <typename T> bool valid_first_char(T c) { return c != '-' && c != '!' && c != ' '; }
        }
    """,
    "cli/validators.hpp": """
        namespace cli {
        /// Verify an option's value: every character of it a digit.
        bool numbers_only(const std::string &value);

        /// Verify an option's name has no spaces: a character of the name that is a space fails.
        bool no_spaces(const std::string &name);

        /// Verify the option name is one of those given, character for character.
        bool one_of(const std::string &name, const std::vector<std::string> &names);

        /// Verify an option name's characters are all lower case.
        bool lower_case(const std::string &name);
        }
    """,
}
OPTION_QUESTION = "Verify the first character of an option name, where ! has a special meaning"


def test_kin_found_below_the_depth_the_reranker_reads(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The reranker reads BM25F's best few; an undocumented variant that shares few of the question's
    # words ranks below them, and is read too as the kin of a documented one among the best.
    project = write_files(tmp_path / "cli", OPTIONS)
    monkeypatch.setattr(rerank, "lexical_depth", lambda limit: 3)
    monkeypatch.setattr(rerank, "LEXICAL_DEPTH", 3)

    def first_three() -> list[str]:
        result = run_cli("search", OPTION_QUESTION, "--path", str(project), "--json", "-n", "3")
        assert result.exit_code == 0, result.output
        return [hit["name"] for hit in json.loads(result.output)["results"]]

    assert "valid_first_char" in first_three()
    # Found below the depth, it counts as found by BM25F, as its kin was (`in_lexical`).
    with Codefathom(project) as service:
        found = service.search(OPTION_QUESTION, limit=3, fresh=False, ranking=DEFAULT_RANKING.with_(vectors=False),
                               include_debug=True, explain=True)
    deep = next(hit for hit in found.debug["results"] if hit["name"].endswith("valid_first_char"))  # type: ignore[index]
    assert deep["reranker"]["features"].get("in_lexical", {}).get("value", 0.0) == 1.0, deep
    monkeypatch.setattr(rerank, "KIN_FROM", 0)
    assert "valid_first_char" not in first_three()


OPTION_CHARACTERS = {
    "cli/names.py": '''
        """What an option's name may be written with."""


        def valid_later_char(c: str) -> bool:
            """Verify a character of an option's name after its first one: a letter, a digit, or one of _ ? @ . -"""
            return c.isalnum() or c in "_?@.-"


        def valid_first_char(c: str) -> bool:
            return c.isalpha() or c == "!"
    ''',
    "cli/text.py": "".join(
        f'''
        def {name}(text):
            """The text made {name}, as a person would write it by hand."""
            return text
        ''' for name in ["titled", "truncated", "indented", "dedented", "slugified", "wrapped", "centred", "quoted"]
    ),
}


def _contrasts(root: Path, question: str, vectors: bool = False, qualified: bool = False) -> dict[str, float]:
    with Codefathom(root) as service:
        found = service.search(question, limit=5, fresh=False, ranking=DEFAULT_RANKING.with_(vectors=vectors),
                                include_debug=True, explain=True)
    return {
        (hit["name"] if qualified else hit["name"].rpartition(".")[2]):
            hit["reranker"]["features"].get("contrast", {}).get("value", 0.0)
        for hit in found.debug["results"] if "reranker" in hit  # type: ignore[union-attr]
    }


def test_of_two_kin_the_one_the_question_names_leads(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    # `valid_later_char`'s doc says most of the question's words; `valid_first_char` has no doc, and
    # its name says the one that tells the two apart (CLI11's, second behind `valid_later_char`).
    root = write_files(tmp_path / "cli", OPTION_CHARACTERS)
    question = "Verify the first character of an option's name: a letter, or ! for its special meaning"
    result = run_cli("search", question, "--path", str(root), "--json", "-n", "3")
    names = [hit["name"] for hit in json.loads(result.output)["results"]]
    assert names[:2] == ["valid_first_char", "valid_later_char"], result.output
    contrasts = _contrasts(root, question)
    assert contrasts["valid_first_char"] == 1.0 and contrasts["valid_later_char"] == 0.0, contrasts
    # A question that says no word of the documented kin's name tells the two apart by none.
    assert _contrasts(root, "a letter or a digit of an option after the first one")["valid_first_char"] == 0.0


def test_contrast_counts_in_the_model_with_vectors_too(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_files(tmp_path / "cli", OPTION_CHARACTERS)
    index_with_vectors(run_cli, root, monkeypatch)
    question = "Verify the first character of an option's name: a letter, or ! for its special meaning"
    contrasts = _contrasts(root, question, vectors=True)
    assert contrasts["valid_first_char"] == 1.0 and contrasts["valid_later_char"] == 0.0, contrasts
    assert dict(DEFAULT_RANKING.rerank_weights)["contrast"] > 0


TRANSFORMS = {
    "geometry/transform.py": '''
        """Affine transforms."""


        def compute_scaling_rotation(transform: "Transform") -> tuple["Matrix", "Matrix"]:
            """Decomposes the linear part of the transform as a product of a scaling and then a rotation."""
            return polar(transform.linear(), scaling_first=True)


        def compute_rotation_scaling(transform: "Transform") -> tuple["Matrix", "Matrix"]:
            return polar(transform.linear(), scaling_first=False)
    ''',
    "geometry/text.py": OPTION_CHARACTERS["cli/text.py"],
}


def test_of_two_kin_with_the_same_words_the_one_in_the_questions_order_is_marked(tmp_path: Path) -> None:
    # Eigen's `computeRotationScaling` came second behind the documented `computeScalingRotation` for
    # "... as a product rotation x scaling".
    root = write_files(tmp_path / "geometry", TRANSFORMS)
    asked = "Decomposes the linear part of the transform as a product of a rotation and then a scaling"
    contrasts = _contrasts(root, asked)
    assert contrasts["compute_rotation_scaling"] == 1.0 and contrasts["compute_scaling_rotation"] == 0.0
    assert _contrasts(root, asked.replace("rotation", "R").replace("scaling", "rotation").replace("R", "scaling"))[
        "compute_rotation_scaling"
    ] == 0.0


SEPARATORS = {
    "cli/config.py": '''
        """How a configuration file's lines are split."""


        class ConfigFormat:
            def array_delimiter(self, sep: str) -> "ConfigFormat":
                """Specify the delimiter character for an array."""
                self.array_separator = sep
                return self

            def value_separator(self, sep: str) -> "ConfigFormat":
                self.value_delimiter = sep
                return self
    ''',
    "cli/text.py": OPTION_CHARACTERS["cli/text.py"],
}


def test_of_two_kin_the_one_whose_name_says_what_the_matched_doc_does_not_leads(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    # CLI11's `arrayDelimiter` is documented, `valueSeparator` beside it is not: "the delimiter between a
    # name and value" matched the first's doc, and its "value" only the second's name says.
    root = write_files(tmp_path / "cli", SEPARATORS)
    question = "Specify the delimiter between a name and value"
    result = run_cli("search", question, "--path", str(root), "--json", "-n", "2")
    assert [hit["name"] for hit in json.loads(result.output)["results"]] == [
        "value_separator", "array_delimiter"
    ], result.output
    assert _contrasts(root, question)["value_separator"] == 1.0
    # When the documented kin's doc says the word too, the name tells the two apart by nothing.
    said = {**SEPARATORS, "cli/config.py": SEPARATORS["cli/config.py"].replace("for an array", "for an array value")}
    root = write_files(tmp_path / "said", said)
    assert _contrasts(root, question)["value_separator"] == 0.0


GROUPING = {
    "lazy/groups.py": '''
        """Groups and chunks of an iterator, read lazily."""


        class GroupInner:
            def step(self, client: int) -> object:
                """`client`: Index of group that requests next element."""
                if client < self.oldest_buffered_group:
                    return None
                return self.buffer[client - self.bottom_group].pop()
    ''' + "\n" * 70 + '''
        class GroupBy:
            def step(self, client: int) -> object:
                return self.inner.step(client)
    ''' + "\n" * 70 + '''
        class IntoChunks:
            def step(self, client: int) -> object:
                return self.inner.step(client)
    ''',
    "cli/text.py": OPTION_CHARACTERS["cli/text.py"],
}


def test_of_namesakes_the_one_whose_owner_says_what_the_matched_doc_does_not_is_marked(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    # itertools' `GroupInner::step` is documented, `GroupBy::step` and `IntoChunks::step` far from it are
    # not: a question of chunks matched the first's doc; only the last's owner says "chunk" (there it
    # came first; in a project this small the doc's BM25F score still leads).
    root = write_files(tmp_path / "lazy", GROUPING)
    question = "client: Index of chunk that requests next element"
    contrasts = _contrasts(root, question, qualified=True)
    assert contrasts["lazy.groups.IntoChunks.step"] == 1.0, contrasts
    assert contrasts["lazy.groups.GroupBy.step"] == 0.0 == contrasts["lazy.groups.GroupInner.step"], contrasts
    result = run_cli("search", question, "--path", str(root), "--json", "-n", "2")
    assert [hit["qualified_name"] for hit in json.loads(result.output)["results"]] == [
        "lazy.groups.GroupInner.step", "lazy.groups.IntoChunks.step"
    ], result.output
    # A question of groups, the word the documented one's doc says, tells them apart by no owner.
    assert _contrasts(root, question.replace("chunk", "group"), qualified=True)["lazy.groups.IntoChunks.step"] == 0.0


SPLITTING = {
    "par/split.rs": """
        impl<I: Iterator> Splitter<I> {
            /// Sets the maximum length of iterators desired to process in each job.
            pub fn with_max_len(self, max: usize) -> MaxLen<I> {
                MaxLen::new(self, max)
            }

            pub fn with_min_len(self, min: usize) -> MinLen<I> {
                MinLen::new(self, min)
            }
        }
    """,
    "par/jobs.rs": """
        /// Runs each job of the pool to its end, the desired number of iterators at a time.
        pub fn run_jobs(pool: &Pool, desired: usize) {
            pool.run(desired)
        }

        /// The length of each job's queue, to process in order.
        pub fn queue_length(pool: &Pool) -> usize {
            pool.queued()
        }
    """,
}


def test_kin_below_every_candidate_is_read_from_the_index(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `with_min_len` says "minimum" and "length" only by abbreviation: BM25F ranks it below the
    # candidates it returns (here, with a depth of 1, its best 2). It is read from the index as the
    # kin of `with_max_len`, whose doc the question echoes.
    root = write_files(tmp_path / "par", SPLITTING)
    monkeypatch.setattr(rerank, "lexical_depth", lambda limit: 1)
    result = run_cli("search", "Sets the minimum length of iterators desired to process in each job",
                     "--path", str(root), "--json", "-n", "3")
    assert result.exit_code == 0, result.output
    names = [hit["name"] for hit in json.loads(result.output)["results"]]
    assert "with_min_len" in names, names
