"""Indexing and searching a small real project through the `codefathom` command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, git

from codefathom.search import MAX_PER_FILE

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL


def names(data: dict) -> list[str]:
    return [r["qualified_name"] for r in data["results"]]


def test_index_reports_files_units_languages_and_health(shop_repo: Path, run_cli) -> None:
    result = run_cli("index", str(shop_repo))
    assert result.exit_code == 0, result.output
    assert "files: 8" in result.output
    assert "python 5" in result.output
    assert "parse health:" in result.output


def test_an_identifier_brings_its_definition_first(shop_repo: Path, search_json) -> None:
    data = search_json("sign_jwt", "--path", str(shop_repo))
    first = data["results"][0]
    assert first["qualified_name"] == "shop.users.sign_jwt"
    assert (first["path"], first["start_line"], first["end_line"]) == ("shop/users.py", 20, 22)
    assert first["kind"] == "function"
    assert first["language"] == "python"
    assert first["signature"].startswith("def sign_jwt") and "content" not in first  # compact unless asked


def test_a_qualified_name_picks_the_method_of_that_class(shop_repo: Path, search_json) -> None:
    data = search_json("Stack.push", "--path", str(shop_repo))
    assert names(data)[0] == "shop.stack.Stack.push"
    data = search_json("Queue.push", "--path", str(shop_repo))
    assert names(data)[0] == "shop.stack.Queue.push"


def test_a_definition_ranks_above_the_test_that_uses_it(shop_repo: Path, search_json) -> None:
    data = search_json("push", "--path", str(shop_repo))
    paths = [r["path"] for r in data["results"]]
    assert paths[0] == "shop/stack.py"
    assert paths.index("tests/test_stack.py") > paths.index("shop/stack.py")


def test_split_words_find_camel_and_snake_case_names(shop_repo: Path, search_json) -> None:
    assert names(search_json("get user by id", "--path", str(shop_repo)))[0] == "getUserById"
    assert names(search_json("parse args", "--path", str(shop_repo)))[0] == "shop.config.parse_args"


def test_natural_language_finds_code_by_its_doc_words(shop_repo: Path, search_json) -> None:
    data = search_json("issue a new access token when it expires", "--path", str(shop_repo))
    assert names(data)[0] == "shop.users.UserService.refresh_token"


def test_markdown_sections_and_plain_text_are_searchable(shop_repo: Path, search_json) -> None:
    section = search_json("refunds retried with backoff", "--path", str(shop_repo))["results"][0]
    assert (section["kind"], section["name"], section["path"]) == ("section", "Payments", "docs/guide.md")
    assert section["parent"] == "Shop guide"
    chunk = search_json("warehouse sync nightly", "--path", str(shop_repo))["results"][0]
    assert (chunk["kind"], chunk["path"]) == ("chunk", "notes.txt")


def test_json_results_follow_the_contract(shop_repo: Path, search_json) -> None:
    data = search_json("Cart", "--path", str(shop_repo))
    assert data["project_root"] == str(shop_repo.resolve())
    assert "debug" not in data
    keys = {"path", "start_line", "end_line", "name", "qualified_name", "kind", "language", "parent", "score",
            "signature"}
    assert set(data["results"][0]) == keys | {"lines"}
    full = search_json("Cart", "--path", str(shop_repo), "--detail", "full")
    assert set(full["results"][0]) == keys | {"content", "truncated"}
    assert data["results"][0]["qualified_name"] == "Cart"


def test_debug_explains_the_ranking(shop_repo: Path, search_json) -> None:
    data = search_json("Stack.push", "--path", str(shop_repo), "--debug")
    assert data["debug"]["query"]["identifier_like"] is True
    assert "total_ms" in data["debug"]["timings"]
    assert data["results"][0]["debug"]["evidence"]["names"] == "qualified name"


def test_filters_keep_to_languages_kinds_paths_and_names(shop_repo: Path, search_json) -> None:
    root = str(shop_repo)
    assert {r["language"] for r in search_json("push", "-p", root, "-l", "ts")["results"]} == {"typescript"}
    assert {r["kind"] for r in search_json("push", "-p", root, "-k", "class")["results"]} == {"class"}
    assert {r["path"] for r in search_json("push", "-p", root, "-g", "tests/")["results"]} == {"tests/test_stack.py"}
    excluded = {r["path"] for r in search_json("push", "-p", root, "-x", "tests/", "-x", "*.ts")["results"]}
    assert excluded == {"shop/stack.py"}
    named = search_json("stack", "-p", root, "-s", "p*")["results"]
    assert named and {r["name"] for r in named} <= {"push", "pop"}


def test_results_per_file_are_capped_unless_asked(shop_repo: Path, search_json) -> None:
    capped = search_json("stack item", "-p", str(shop_repo), "-n", "20")
    assert sum(1 for r in capped["results"] if r["path"] == "shop/stack.py") == MAX_PER_FILE == 4
    uncapped = search_json("stack item", "-p", str(shop_repo), "-n", "20", "--all-per-file")
    assert sum(1 for r in uncapped["results"] if r["path"] == "shop/stack.py") > MAX_PER_FILE
    fewer = search_json("stack item", "-p", str(shop_repo), "-n", "20", "--max-per-file", "2")
    assert sum(1 for r in fewer["results"] if r["path"] == "shop/stack.py") == 2


COLUMNS = '''
class Columns:
    """The columns of a table of numbers, each reduced to one value."""

    def sum(self):
        """Returns a row vector expression of the sum of each column of the referenced table of numbers."""
        return [sum(c) for c in self.cells]

    def prod(self):
        """Returns a row vector expression of the product of each column of the referenced table of numbers."""
        return [math.prod(c) for c in self.cells]

    def norm(self):
        """Returns a row vector expression of the length of each column of the referenced table of numbers."""
        return [math.hypot(*c) for c in self.cells]

    def largest(self):
        """Returns a row vector expression of the largest value of each column of the referenced table of numbers."""
        return [max(c) for c in self.cells]

    def smallest(self):
        """Returns a row vector expression of the smallest value of each column of the referenced table of numbers."""
        return [min(c) for c in self.cells]


class Summary:
    """What a report prints of a table."""

    def mean(self, table):
        return [s / table.rows for s in table.sum()]
'''


def test_a_file_full_of_its_family_still_gives_the_one_its_name_says(tmp_path: Path, search_json) -> None:
    # The documented siblings fill the file's four places with their docs' words; `mean`, the one
    # the question names, was the fifth of its file and cut (Eigen's `VectorwiseOp.mean`).
    (tmp_path / "stats").mkdir()
    (tmp_path / "stats" / "columns.py").write_text(COLUMNS)
    (tmp_path / "text.py").write_text("".join(
        f'def {name}(text):\n    """The text made {name}, as a person would write it by hand."""\n    return text\n\n\n'
        for name in ["title", "truncated", "indented", "dedented", "slugified", "wrapped", "centred", "quoted",
                     "unquoted", "escaped", "unescaped", "padded", "reversed", "hyphenated", "shouted"]
    ))
    question = "Returns a row vector expression of the mean of each column of the referenced table of numbers"
    found = search_json(question, "-p", str(tmp_path))["results"]
    of_file = [r["name"] for r in found if r["path"] == "stats/columns.py"]
    assert len(of_file) == MAX_PER_FILE + 1 and of_file[-1] == "mean", of_file
    # A cap asked for is kept to.
    asked = search_json(question, "-p", str(tmp_path), "--max-per-file", "2")["results"]
    assert sum(1 for r in asked if r["path"] == "stats/columns.py") == 2


def test_a_directory_inside_the_project_keeps_the_search_to_it(shop_repo: Path, search_json) -> None:
    git(shop_repo, "init")
    data = search_json("push", "--path", str(shop_repo / "tests"))
    assert data["project_root"] == str(shop_repo.resolve())
    assert {r["path"] for r in data["results"]} == {"tests/test_stack.py"}


def test_edits_and_deletions_are_seen_by_the_next_search(shop_repo: Path, run_cli, search_json) -> None:
    assert run_cli("index", str(shop_repo)).exit_code == 0
    config = shop_repo / "shop" / "config.py"
    config.write_text(config.read_text() + "\n\ndef merge_overrides(base, extra):\n    return base | extra\n")
    data = search_json("merge_overrides", "-p", str(shop_repo))
    assert names(data)[0] == "shop.config.merge_overrides"
    assert data["results"][0]["start_line"] == 17
    (shop_repo / "shop" / "users.py").unlink()
    data = search_json("sign_jwt", "-p", str(shop_repo))
    assert all(r["path"] != "shop/users.py" for r in data["results"])
    status = json.loads(run_cli("status", str(shop_repo), "--json").stdout)
    assert status["files"] == 7


def test_searching_a_project_never_indexed_indexes_it(shop_repo: Path, search_json) -> None:
    data = search_json("load_config", "-p", str(shop_repo))
    assert names(data)[0] == "shop.config.load_config"
    assert any("indexed the project first" in n for n in data["notices"])


def test_jsonl_answers_one_line_per_query(shop_repo: Path, run_cli) -> None:
    lines = 'sign_jwt\n{"query": "push", "kinds": ["class"]}\n{"query": "x", "path_glob": ["["]}\n'
    result = run_cli("search", "-p", str(shop_repo), "--jsonl", "-", input=lines)
    assert result.exit_code == 0, result.output
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(replies) == 3
    assert replies[0]["results"][0]["name"] == "sign_jwt"
    assert {r["kind"] for r in replies[1]["results"]} == {"class"}
    assert replies[2]["line"] == 3 and "path_glob" in replies[2]["error"]


def test_status_list_and_clear_manage_the_index(shop_repo: Path, run_cli) -> None:
    assert "not indexed" in run_cli("status", str(shop_repo)).output
    run_cli("index", str(shop_repo))
    status = json.loads(run_cli("status", str(shop_repo), "--json").stdout)
    assert status["indexed"] and status["files"] == 8 and status["units"] > 15
    assert status["languages"]["python"] == 5
    listed = json.loads(run_cli("list", "--json").stdout)["indexes"]
    assert [i["project_root"] for i in listed] == [str(shop_repo.resolve())]
    assert "Deleted" in run_cli("clear", str(shop_repo)).output
    assert json.loads(run_cli("list", "--json").stdout)["indexes"] == []


def test_usage_errors_are_one_line_and_exit_2(shop_repo: Path, run_cli) -> None:
    bad_glob = run_cli("search", "x", "-p", str(shop_repo), "-g", "src/[a")
    assert bad_glob.exit_code == 2
    assert "unclosed '['" in bad_glob.stderr
    assert "not indexed" in run_cli("status", str(shop_repo)).output  # refused before any indexing
    missing = run_cli("search", "x", "-p", str(shop_repo / "nope"))
    assert missing.exit_code == 2
    unknown = run_cli("search", "x", "-p", str(shop_repo), "-l", "cobol")
    assert unknown.exit_code == 2 and "unknown language" in unknown.stderr
    empty = run_cli("search", "  ", "-p", str(shop_repo))
    assert empty.exit_code == 2 and "empty" in empty.stderr


@pytest.fixture
def bindings_repo(tmp_path: Path) -> Path:
    """A copy of the Python project with a real call graph: calls, inheritance and imports across files."""
    return Path(shutil.copytree(FIXTURES / "repos" / "bindings", tmp_path / "bindings"))


def expanded(data: dict) -> dict[str, dict[str, str]]:
    """Qualified name -> `expanded` of each result graph expansion added."""
    return {r["qualified_name"]: r["expanded"] for r in data["results"] if "expanded" in r}


def position(data: dict, qualified: str) -> int:
    return names(data).index(qualified)


def test_expand_adds_the_graph_neighbours_of_the_first_results_after_them(bindings_repo: Path, search_json) -> None:
    root = str(bindings_repo)
    plain = search_json("UserRepo.get", "-p", root)
    assert expanded(plain) == {}  # off unless asked
    data = search_json("UserRepo.get", "-p", root, "--expand")
    assert names(data)[0] == "app.repo.UserRepo.get"
    # `self.model.find(key)`, the model typed `U()`, i.e. app.models.User, bound exact.
    assert expanded(data)["app.models.User.find"] == {"from": "app.repo.UserRepo.get", "via": "calls"}
    found = data["results"][position(data, "app.models.User.find")]
    assert found["score"] < data["results"][0]["score"]
    assert found["path"] == "app/models.py" and found["signature"].startswith("def find")
    by_class = expanded(search_json("Base", "-p", root, "--expand"))  # Base, then User, whose neighbours come
    assert by_class["app.service.Admin"] == {"from": "app.models.User", "via": "inherited by"}
    assert by_class["app.repo.make_user"] == {"from": "app.models.User", "via": "called by"}
    by_module = search_json("app.service", "-p", root, "--expand", "-n", "30", "--all-per-file")
    assert names(by_module)[0] == "app.service"
    assert expanded(by_module)["app.models.User"] == {"from": "app.service", "via": "imports"}  # `from app import User`


def test_expanded_results_say_how_they_are_connected_in_text(bindings_repo: Path, run_cli) -> None:
    result = run_cli("search", "UserRepo.get", "-p", str(bindings_repo), "--expand")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    headers = [line.rsplit("  ", 1)[0] for line in lines]  # less the score
    at = headers.index("app/models.py:10-11  method  app.models.User.find")
    assert lines[at + 1] == "    ^ called by app.repo.UserRepo.get"
    assert headers.index("app/repo.py:9-10  method  app.repo.UserRepo.get") < at


def test_expand_adds_no_result_twice(bindings_repo: Path, shop_repo: Path, search_json) -> None:
    # make_user's caller `use` is a result of its own: it stays one, not marked as a neighbour.
    data = search_json("make_user", "-p", str(bindings_repo), "--expand", "-n", "20")
    assert names(data).count("app.repo.use") == 1 and "app.repo.use" not in expanded(data)
    assert expanded(data)["app.models.User"] == {"from": "app.repo.make_user", "via": "calls"}
    identities = [(r["path"], r["qualified_name"], r["kind"]) for r in data["results"]]
    assert len(identities) == len(set(identities))
    shop = search_json("refresh_token", "-p", str(shop_repo), "--expand")
    assert expanded(shop) == {"shop.users.sign_jwt": {"from": "shop.users.UserService.refresh_token", "via": "calls"}}
    assert names(search_json("sign_jwt", "-p", str(shop_repo), "--expand")).count(
        "shop.users.UserService.refresh_token"
    ) == 1


def test_expand_keeps_to_the_filters_and_the_limit(bindings_repo: Path, search_json) -> None:
    root = str(bindings_repo)
    excluded = search_json("UserRepo.get", "-p", root, "--expand", "-x", "app/models.py")
    assert excluded["results"] and all(r["path"] != "app/models.py" for r in excluded["results"])
    methods = search_json("UserRepo.get", "-p", root, "--expand", "-k", "method")
    assert {r["kind"] for r in methods["results"]} == {"method"}
    assert "app.models.User.find" in expanded(methods)
    assert "app.models.User" not in names(methods)  # what __init__ calls is a class: filtered out
    # On top of the limit: asking for neighbours is asking to see them, each right after its source.
    one = search_json("UserRepo.get", "-p", root, "--expand", "-n", "1")
    assert names(one)[0] == "app.repo.UserRepo.get" and "app.models.User.find" in expanded(one)
    assert all(r["score"] < one["results"][0]["score"] for r in one["results"][1:])
    three, plain = search_json("UserRepo.get", "-p", root, "--expand", "-n", "3"), names(search_json(
        "UserRepo.get", "-p", root, "-n", "3"))
    assert [n for n in names(three) if n not in expanded(three)] == plain
    scores = [r["score"] for r in three["results"]]
    assert scores == sorted(scores, reverse=True)  # a neighbour scores between its source and the next result
    order, marks = names(three), expanded(three)
    for at, name in enumerate(order):  # each neighbour follows its source or a sibling of it
        if name in marks:
            before = order[at - 1]
            assert before == marks[name]["from"] or marks.get(before, {}).get("from") == marks[name]["from"]
    two = search_json("UserRepo.get", "-p", root, "--expand", "-n", "2", "-k", "method", "-g", "app/models.py",
                      "-g", "app/repo.py", "--max-per-file", "1")
    assert "app.models.User.find" in expanded(two)  # with the filters and the cap per file
    assert len({r["path"] for r in two["results"]}) == len(two["results"])
    capped = search_json("make_user", "-p", root, "--expand", "--max-per-file", "1", "-n", "20")
    paths = [r["path"] for r in capped["results"]]
    assert len(paths) == len(set(paths))  # `use`, make_user's caller in the same file, is left out
    assert "app.repo.use" not in names(capped) and "app.models.User" in expanded(capped)


def test_a_question_in_words_without_vectors_is_reranked_and_a_short_phrase_is_not(
    shop_repo: Path, run_cli
) -> None:
    # Without vectors, a question longer than a name's words is ordered by the lexical reranker:
    # the query's words in names, signatures, owners and paths, BM25F, the file's role.
    root = str(shop_repo)
    question = "take the most recently added item off the stack"
    analysis = json.loads(run_cli("explain", question, "-p", root, "--json").stdout)["analysis"]
    assert analysis["analysis"]["mode"].startswith("reranked without vectors")
    assert analysis["fusion"]["reranker"] is True
    results = analysis["results"]
    assert results[0]["name"] == "shop.stack.Stack.pop"
    scores = [r["reranker"]["model_score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    assert "lexical_score" in results[0]["reranker"]["features"]
    short = json.loads(run_cli("explain", "stack item", "-p", root, "--json").stdout)["analysis"]
    assert short["fusion"]["reranker"] is False  # two words may spell a name: fusion and the name channel
    queues = json.loads(run_cli("explain", "push", "-s", "*Queue*", "-p", root, "--json").stdout)["analysis"]
    assert queues["results"] and all("Queue" in r["name"] for r in queues["results"])  # as search -s keeps them


def test_a_class_result_numbers_its_members_lines_as_the_file_does(shop_repo: Path, search_json) -> None:
    # A class is stored as its members' headers, without their bodies: its lines do not run on
    # unbroken, so a matching line's number must come from the file, not from its place in the class.
    data = search_json("Stack push", "--path", str(shop_repo))
    stack = next(r for r in data["results"] if r["qualified_name"] == "shop.stack.Stack")
    source = (shop_repo / "shop" / "stack.py").read_text().splitlines()
    assert stack["lines"], stack
    for number, text in stack["lines"]:
        assert source[number - 1].strip() == text.strip(), (number, text)


def test_a_nul_character_past_the_first_bytes_is_indexed_and_a_query_may_hold_one(
    tmp_path: Path, run_cli, search_json
) -> None:
    # Files with a NUL in their first 8 KB are binary; one further on is text with a stray NUL (a
    # test fixture, a string literal). PostgreSQL refuses NUL in text values: its sync failed whole.
    repo = tmp_path / "repo"
    repo.mkdir()
    padding = "".join(f"def filler_{n}():\n    return {n}\n\n\n" for n in range(400))
    (repo / "escapes.py").write_text(padding + 'def nul_terminated_name():\n    return "name\x00"\n')
    (repo / "plain.py").write_text("def plain_function():\n    return 1\n")
    result = run_cli("index", str(repo), "--no-embed")
    assert result.exit_code == 0, result.output
    data = search_json("nul_terminated_name", "--path", str(repo))
    assert data["results"][0]["qualified_name"] == "escapes.nul_terminated_name"
    full = search_json("nul_terminated_name", "--path", str(repo), "--detail", "full")
    assert "return" in full["results"][0]["content"]
    queried = run_cli("search", "plain\x00function", "--path", str(repo), "--json")
    assert queried.exit_code == 0, queried.output
    assert json.loads(queried.stdout)["results"][0]["qualified_name"] == "plain.plain_function"
