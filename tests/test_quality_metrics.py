"""The quality lab's scoring (bench/lab/metrics.py) on hand-made rankings: no corpora, no network."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from lab import metrics  # noqa: E402
from lab.baselines import query_words  # noqa: E402
from lab.corpora import apply_strip  # noqa: E402
from lab.querygen import comment_block_above, first_sentence, without_name  # noqa: E402

FUNC = {"path": "a.py", "start_line": 10, "end_line": 20, "name": "a.f"}


def test_a_result_hits_a_unit_target_when_its_lines_overlap_in_the_same_file() -> None:
    assert metrics.hits_target(("a.py", 10, 20), FUNC)  # the unit itself
    assert metrics.hits_target(("a.py", 12, 15), FUNC)  # a part of a split function
    assert metrics.hits_target(("a.py", 18, 30), FUNC)  # overlapping, not enclosing
    assert not metrics.hits_target(("b.py", 10, 20), FUNC)  # other file
    assert not metrics.hits_target(("a.py", 21, 30), FUNC)  # adjacent, no overlap
    assert not metrics.hits_target(("a.py", 1, 100), FUNC)  # a class or module chunk around it


def test_file_targets_match_by_path_and_duplicate_files_count_once() -> None:
    target = {"path": "pkg/x.go", "start_line": None, "end_line": None, "name": "pkg/x.go"}
    assert metrics.hits_target(("pkg/x.go", 1, 999), target, "file")
    ranking = [("pkg/y.go", 1, 2), ("pkg/y.go", 5, 6), ("pkg/x.go", 3, 4)]
    assert metrics.as_ranking(ranking, "file") == [("pkg/y.go", 0, 0), ("pkg/x.go", 0, 0)]
    scores = metrics.score(ranking, [target], "file")
    assert scores["mrr@10"] == 0.5  # second distinct file, not third unit


def test_a_directory_result_hits_only_a_package_description_s_targets() -> None:
    targets = [{"path": f"pkg/{n}.go", "start_line": None, "end_line": None, "name": n} for n in ("a", "b")]
    ranking = [("pkg/", 0, 0), ("pkg/b.go", 1, 9)]
    assert metrics.score(ranking, targets, "file")["mrr@10"] == 0.5  # a miss unless asked for
    package = metrics.score(ranking, targets, "file", directories=True)
    assert package["mrr@10"] == 1.0
    assert package["r@10"] == 1.0  # the directory found one target, the file the other
    assert not metrics.hits_target(("other/", 0, 0), targets[0], "file", directories=True)
    assert not metrics.hits_target(("", 0, 0), targets[0], "file", directories=True)


def test_mrr_p1_and_recall_on_a_single_target() -> None:
    ranking = [("b.py", 1, 2), ("c.py", 1, 2), ("a.py", 10, 20)]
    s = metrics.score(ranking, [FUNC])
    assert s["mrr@10"] == pytest.approx(1 / 3)
    assert s["p@1"] == 0.0
    assert s["r@5"] == 1.0 and s["r@10"] == 1.0
    assert s["ndcg@10"] == pytest.approx(1 / math.log2(4))
    first = metrics.score([("a.py", 10, 20)], [FUNC])
    assert first == {"mrr@10": 1.0, "p@1": 1.0, "r@5": 1.0, "r@10": 1.0, "ndcg@10": 1.0}
    assert metrics.score([], [FUNC])["mrr@10"] == 0.0


def test_beyond_rank_ten_counts_nothing_and_recall_at_5_stops_at_5() -> None:
    misses = [("z.py", i, i) for i in range(1, 6)]
    s = metrics.score([*misses, ("a.py", 10, 20)], [FUNC])
    assert s["r@5"] == 0.0 and s["r@10"] == 1.0 and s["mrr@10"] == pytest.approx(1 / 6)
    far = [("z.py", i, i) for i in range(1, 11)] + [("a.py", 10, 20)]
    assert metrics.score(far, [FUNC]) == {m: 0.0 for m in metrics.METRICS}


def test_ndcg_with_several_targets_counts_each_target_once() -> None:
    targets = [{"path": p, "start_line": None, "end_line": None, "name": p} for p in ("a", "b", "c", "d")]
    ranking = [("a", 1, 1), ("x", 1, 1), ("b", 1, 1)]
    s = metrics.score(ranking, targets, "file")
    dcg = 1 + 1 / math.log2(4)
    ideal = sum(1 / math.log2(i + 2) for i in range(4))
    assert s["ndcg@10"] == pytest.approx(dcg / ideal)
    assert s["r@10"] == 0.5
    # the same unit target hit twice (two parts) is found once: the second is relevant, not new
    parts = [("a.py", 10, 14), ("a.py", 15, 20)]
    assert metrics.judge(parts, [FUNC]) == [0, -1]
    assert metrics.score(parts, [FUNC])["ndcg@10"] == 1.0


def test_significance_helpers() -> None:
    a = [0.0] * 30
    b = [1.0] * 20 + [0.0] * 10
    assert metrics.paired_bootstrap(a, b) < 0.01
    assert metrics.paired_bootstrap(a, a) == 1.0
    wins, losses, p = metrics.sign_test(a, b)
    assert (wins, losses) == (20, 0) and p < 0.001
    assert metrics.sign_test([1.0, 0.0], [0.0, 1.0])[2] == 1.0


def test_query_generation_helpers() -> None:
    assert first_sentence("Sets the limit.\n\nMore text.") == "Sets the limit."
    assert first_sentence("Reads a {@code byte} from {@link java.io.InputStream#read the stream}. Then more.") == (
        "Reads a byte from the stream."
    )
    assert first_sentence("<summary>\nGets the name.\n</summary>") == "Gets the name."
    assert first_sentence("Line one goes\n\non here.") == "Line one goes on here."  # double-spaced `///` docs
    assert without_name("OnInitialize sets the functions.", "OnInitialize", "java") == "Sets the functions."
    assert without_name("kind of a Tuple.", "kind", "python") == "kind of a Tuple."
    lines = ["x = 1", "/**", " * Doc.", " */", "// more", "int f() {", "}"]
    assert comment_block_above(lines, 6) == (2, 5)
    assert comment_block_above(lines, 1) is None
    text = b"def f():\n    '''Doc.\n    more'''\n    return 1\n"
    assert apply_strip(text, [[2, 3, "pass"]]) == b"def f():\n    pass\n\n    return 1\n"
    assert query_words("Request.prepare the body") == ["request", "prepare", "body"]


def test_characters_to_the_first_hit_count_the_reply_up_to_and_including_it() -> None:
    results = [("b.py", 1, 5), ("a.py", 12, 15), ("a.py", 30, 40)]
    prefix = [100, 250, 400]  # the reply's length holding results 0..i
    assert metrics.chars_to_first_hit(prefix, results, [FUNC]) == 250.0
    assert metrics.chars_to_first_hit(prefix, results[:1] + results[2:], [FUNC]) == 400.0  # no hit: read whole
    assert metrics.chars_to_first_hit(prefix[:1], results, [FUNC]) == 100.0  # only what the reply holds
    assert metrics.chars_to_first_hit([], [], [FUNC]) == 0.0
