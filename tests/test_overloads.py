"""A name defined more than once in a file (overloads, a `const` twin) is one search result that lists
the others with their lines, through the CLI; the same name in another class or file stays a result
of its own."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import write_files

pytestmark = pytest.mark.usefixtures("store")

FILES = {
    "include/plane.h": """
        namespace geo {
        /** A hyperplane in space. */
        class Hyperplane {
         public:
          /** Returns a constant reference to the distance of the plane to the origin. */
          const double& offset() const { return m_offset; }

          double& offset() { return m_offset; }

          /** Returns the normal of the plane. */
          const double& normal() const { return m_normal; }

         private:
          double m_offset;
          double m_normal;
        };

        /** A line in space. */
        class Line {
         public:
          /** Returns the distance of the line to the origin. */
          double offset() const { return m_offset; }

         private:
          double m_offset;
        };
        }
    """,
    "src/Parser.java": """
        package demo;

        /** Reads numbers. */
        public class Parser {
            /** Parses a number written in decimal digits. */
            public int parseNumber(String text) {
                return Integer.parseInt(text);
            }

            public int parseNumber(String text, int radix) {
                return Integer.parseInt(text, radix);
            }

            public long parseNumber(char[] digits) {
                return Long.parseLong(new String(digits));
            }
        }
    """,
    "src/chunks.rs": """
        impl<I: Iterator> Chunks<I> {
            pub fn new(base: I, size: usize) -> Chunks<I> {
                Chunks { base, size }
            }

            pub fn resized(self, size: usize) -> Chunks<I> {
                Chunks { base: self.base, size }
            }
        }

        /// An iterator over pieces of another, some items at a time.
        pub struct Chunks<I> {
            base: I,
            size: usize,
        }
    """,
    "src/step_by.rs": """
        /// An iterator that yields every n-th item of another.
        pub struct StepBy<I> {
            base: I,
            step: usize,
        }

        impl<I> StepBy<I> {
            pub fn new(base: I, step: usize) -> StepBy<I> {
                StepBy { base, step }
            }

            pub fn with_step(self, step: usize) -> StepBy<I> {
                StepBy { base: self.base, step }
            }
        }

        impl<I: Iterator> Iterator for StepBy<I> {
            type Item = I::Item;

            fn next(&mut self) -> Option<I::Item> {
                self.base.nth(self.step - 1)
            }
        }
    """,
}


SURFACE = """
    namespace geo {
    /** A flat surface. */
    class Surface {
     public:
      /** A read-only reference to the distance from the origin. */
      const double& offset() const { return m_offset; }

      double& offset() { return m_offset; }

     private:
      double m_offset;
    };
    }
"""


@pytest.fixture
def project(tmp_path: Path, run_cli: Callable[..., Result]) -> Path:
    root = write_files(tmp_path / "overloads", FILES)
    assert run_cli("index", str(root), "--quiet").exit_code == 0
    return root


def _search(run_cli: Callable[..., Result], project: Path, query: str) -> list[dict[str, object]]:
    result = run_cli("search", query, "--path", str(project), "--json", "-n", "10")
    assert result.exit_code == 0, result.output
    results: list[dict[str, object]] = json.loads(result.output)["results"]
    return results


def test_overloads_are_one_result_that_lists_the_others(project: Path, run_cli: Callable[..., Result]) -> None:
    results = _search(run_cli, project, "parseNumber")
    parsers = [r for r in results if r["name"] == "parseNumber"]
    assert len(parsers) == 1, results
    assert [(o["start_line"], o["signature"]) for o in parsers[0]["overloads"]] == [  # type: ignore[union-attr]
        (10, "public int parseNumber(String text, int radix)"), (14, "public long parseNumber(char[] digits)"),
    ]
    text = run_cli("search", "parseNumber", "--path", str(project), "-n", "3").output
    assert "also 10-12: public int parseNumber(String text, int radix)" in text, text


def test_a_types_impl_blocks_are_one_result_with_it(project: Path, run_cli: Callable[..., Result]) -> None:
    steps = [r for r in _search(run_cli, project, "StepBy") if r["name"] == "StepBy"]
    assert len(steps) == 1, steps
    assert steps[0]["start_line"] == 2, steps
    assert [(o["start_line"], o["signature"]) for o in steps[0]["overloads"]] == [  # type: ignore[union-attr]
        (7, "impl<I> StepBy<I>"), (17, "impl<I: Iterator> Iterator for StepBy<I>"),
    ]
    # The type is shown as its definition, even after an impl that says its name more often.
    chunks = [r for r in _search(run_cli, project, "Chunks") if r["name"] == "Chunks"]
    assert [(r["start_line"], [o["start_line"] for o in r["overloads"]]) for r in chunks] == [(12, [1])], chunks
    # The documented struct leads its undocumented impl, which shares more of the question's words.
    results = _search(run_cli, project, "an iterator that yields every n-th item")
    steps = [r for r in results if r["name"] == "StepBy"]
    # Every impl block is listed with it, the one the words miss too.
    assert [(r["start_line"], [o["start_line"] for o in r["overloads"]]) for r in steps] == [(2, [7, 17])], results


def test_a_const_twin_is_found_with_its_documented_overload(project: Path, run_cli: Callable[..., Result]) -> None:
    # The twin has no doc of its own: it is shown with the one whose doc the question echoes.
    results = _search(run_cli, project, "reference to the distance of the plane to the origin")
    first = results[0]
    assert first["qualified_name"] == "geo.Hyperplane.offset", results
    shown = {first["start_line"], *(o["start_line"] for o in first["overloads"])}  # type: ignore[union-attr]
    assert shown == {6, 8}, first
    assert not any(r["qualified_name"] == "geo.Hyperplane.offset" for r in results[1:]), results


def test_the_same_name_in_another_class_is_a_result_of_its_own(project: Path, run_cli: Callable[..., Result]) -> None:
    results = _search(run_cli, project, "offset")
    offsets = {r["qualified_name"]: r for r in results if r["name"] == "offset"}
    assert set(offsets) == {"geo.Hyperplane.offset", "geo.Line.offset"}, results
    assert "overloads" not in offsets["geo.Line.offset"]
    assert all("overloads" not in r for r in results if r["name"] == "normal")


def test_an_overload_the_words_miss_is_listed_with_the_one_they_find(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    # The question is the documented `offset() const`'s doc, the answer its undocumented twin, which
    # shares no word with it: no channel found the twin, so the result left it out (Eigen's
    # `Hyperplane::offset()`).
    root = write_files(tmp_path / "shapes", {"include/shapes.h": SURFACE})
    found = _search(run_cli, root, "a writable reference to the distance from the origin")
    offsets = [r for r in found if r["qualified_name"] == "geo.Surface.offset"]
    assert [[o["signature"] for o in r["overloads"]] for r in offsets] == [["double& offset()"]], found


def test_an_overload_found_below_the_reranker_is_listed_too(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # BM25F found the twin, below the few the reranker orders: a candidate it did not rank, and still
    # the answer's other half.
    others = {f"include/{word}.h": f"/** The {word} of a thing. */\nint {word}_of(int thing) {{ return thing; }}\n"
              for word in ["color", "shade", "light", "paint", "brush", "canvas"]}
    root = write_files(tmp_path / "shapes", {"include/shapes.h": SURFACE, **others})
    from codefathom.search import rerank

    monkeypatch.setattr(rerank, "lexical_depth", lambda limit: 2)  # the twin is BM25F's third
    found = _search(run_cli, root, "the offset of a surface, a reference to the distance from the origin")
    offsets = [r for r in found if r["qualified_name"] == "geo.Surface.offset"]
    assert [[o["signature"] for o in r.get("overloads", [])] for r in offsets] == [["double& offset()"]], found


def test_a_compact_result_lists_many_overloads_by_their_lines(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    parameters = ["int units", "int units, int cents", "int units, int cents, String currency", "long units",
                  "long units, int scale"]
    overloads = "".join(f"    public static Money of({p}) {{ return null; }}\n" for p in parameters)
    root = write_files(tmp_path / "money", {"src/Money.java": "public class Money {\n" + overloads + "}\n"})
    text = run_cli("search", "Money.of", "--path", str(root), "-n", "1").output
    also = [line.strip() for line in text.splitlines() if line.strip().startswith("also")]
    assert len(also) == 4 and also[-1].startswith("also at ") and also[-1].count("-") == 1, text
    full = run_cli("search", "Money.of", "--path", str(root), "-n", "1", "--detail", "full").output
    assert sum(1 for line in full.splitlines() if line.strip().startswith("also ")) == 4, full
