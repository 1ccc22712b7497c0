"""A sentence that says what a thing is ("A Sink is used to consume ...") asks for the definition
of the name it begins with, through the CLI, without vectors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import names_without_feature, write_files

from codefathom.search.query import plan_query

pytestmark = pytest.mark.usefixtures("store")

FILES = {
    "src/Stream.ts": """
        /**
         * A Stream is a description of a program that emits elements one by one, to be consumed by
         * whatever reads them: each element produced is used once.
         */
        export interface Stream<A> {
          readonly run: (consume: (element: A) => void) => void
        }

        export const fromArray = <A>(elements: ReadonlyArray<A>): Stream<A> => ({
          run: (consume) => elements.forEach(consume),
        })
    """,
    "src/Sink.ts": """
        import type { Stream } from "./Stream"

        export class EndedSinkError extends Error {}

        export class FullSinkError extends Error {}

        export interface Sink<A, R> {
          readonly step: (state: R, element: A) => R
          readonly initial: R
          readonly flush: (state: R) => R
          readonly reset: (state: R) => R
          readonly close: (state: R) => R
          readonly open: (state: R) => R
          readonly mark: (state: R) => R
          readonly rewind: (state: R) => R
          readonly drain: (state: R) => R
          readonly seal: (state: R) => R
          readonly split: (state: R) => R
          readonly merge: (state: R) => R
          readonly retry: (state: R) => R
          readonly pause: (state: R) => R
          readonly resume: (state: R) => R
          readonly settle: (state: R) => R
        }

        export const run = <A, R>(stream: Stream<A>, sink: Sink<A, R>): R => {
          let state = sink.initial
          stream.run((element) => { state = sink.step(state, element) })
          return state
        }
    """,
}
QUESTION = "A Sink is used to consume elements produced by a Stream."


@pytest.mark.parametrize(("text", "subject"), [
    (QUESTION, "Sink"),
    ("FiberRefs is a data type that represents a collection of FiberRef values.", "FiberRefs"),
    ("The Effect interface defines a value that lazily describes a workflow.", "Effect"),
    ("`Registry` describes what the registry exposes", "Registry"),
    ("This class represents an arithmetic progression", ""),
    ("Where is the warning raised when state is mutated?", ""),
    ("a sink is used to consume elements", ""),  # no name written as one
    ("Returns the number of tasks stolen", ""),
    ("What is an Attribute?", "Attribute"),
    ("what does `parse_args` do?", "parse_args"),
    ("What is the Sink interface used for?", "Sink"),
    ("what is thrown when JSON has an object where a string is expected?", ""),
])
def test_the_name_a_defining_sentence_begins_with_is_its_subject(text: str, subject: str) -> None:
    assert plan_query(text).subject == subject
    assert plan_query(text).asked == (subject if text.lower().startswith("what") else "")


def test_a_sentence_defining_a_thing_finds_its_definition(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    # The Stream's doc says most of the question's words; the Sink, its subject, has no doc.
    project = write_files(tmp_path / "streams", FILES)
    result = run_cli("search", QUESTION, "--path", str(project), "--json", "-n", "3")
    assert result.exit_code == 0, result.output
    names = [hit["name"] for hit in json.loads(result.output)["results"]]
    assert names[0] == "Sink", names
    assert names_without_feature(project, QUESTION, "subject", 3)[0] == "Stream"


def test_a_question_asking_what_a_thing_is_finds_its_definition(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    # A word of a sentence is no name query ("where is the *index* written"); the name a question asks
    # what it is, is: the interface leads, not the errors whose short names BM25F prefers.
    project = write_files(tmp_path / "streams", FILES)
    result = run_cli("search", "What is a Sink?", "--path", str(project), "--json", "-n", "3")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["results"][0]["name"] == "Sink", result.output
