"""`codefathom conventions` and the `code_health` MCP tool: a codebase's conventions learned from its
own code, each with its share and examples, and the places planted to break them flagged.

The fixtures (tests/fixtures/repos/conventions/{py,go,ts}) are small projects written to one
convention per question, with one place breaking each: `computeTotal` among snake_case functions,
a bare `except:` among named ones, `load_all` among Go's MixedCaps, `return err` among wrapped
errors, `orderUtils.ts` among kebab-case files, `throw new Error` among the project's own classes.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import no_index

from codefathom.graph.conventions import naming_style

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

FIXTURES = Path(__file__).parent / "fixtures" / "repos"


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURES / "conventions" / name, target)
    return target


@pytest.fixture
def py_repo(tmp_path: Path) -> Path:
    return _copy(tmp_path, "py")


@pytest.fixture
def go_repo(tmp_path: Path) -> Path:
    return _copy(tmp_path, "go")


@pytest.fixture
def ts_repo(tmp_path: Path) -> Path:
    return _copy(tmp_path, "ts")


def _report(run_cli: Callable[..., Result], root: Path, *extra: str) -> dict[str, Any]:
    result = run_cli("conventions", "-p", str(root), "--json", *extra)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


def _find(data: dict[str, Any], topic: str, aspect: str, language: str | None = None) -> dict[str, Any]:
    found = [c for c in data["conventions"] if c["topic"] == topic and c["aspect"] == aspect
             and (language is None or c["language"] == language)]
    assert len(found) == 1, (topic, aspect, [(c["topic"], c["aspect"]) for c in data["conventions"]])
    return found[0]


def _share(convention: dict[str, Any], label: str) -> float:
    return float(next(c["share"] for c in convention["choices"] if c["label"] == label))


def _outliers(convention: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(o["path"], o["line"], o["choice"]) for o in convention["outliers"]]


def _examples_are_real(root: Path, data: dict[str, Any]) -> None:
    """Every example and outlier names a line of its file; a named one (a definition, an import)
    holds that name on that line."""
    for convention in data["conventions"]:
        example = [convention["example"]] if convention.get("example") else []  # compact: one
        places = [e for c in convention["choices"] for e in c.get("examples", [])] + example + convention["outliers"]
        for place in places:
            lines = (root / place["path"]).read_text(encoding="utf-8").splitlines()
            assert 1 <= place["line"] <= len(lines), (convention["aspect"], place)
            text = lines[place["line"] - 1]
            assert text.strip(), (convention["aspect"], place)
            if convention["topic"] in ("naming", "libraries") and not place["text"].endswith((".py", ".ts", ".go")):
                assert place["text"] in text, (convention["aspect"], place, text)


def test_python_conventions_with_shares_examples_and_the_planted_outliers(
    py_repo: Path, run_cli: Callable[..., Result]
) -> None:
    data = _report(run_cli, py_repo)
    assert data["files"] == {"python": 6}  # tests are read for the test questions only
    _examples_are_real(py_repo, data)

    functions = _find(data, "naming", "functions")
    assert (functions["dominant"], functions["total"], _share(functions, "snake_case")) == ("snake_case", 10, 0.9)
    assert [(o["path"], o["line"], o["text"]) for o in functions["outliers"]] == [
        ("pkg/ledger.py", 18, "computeTotal")
    ]
    constants = _find(data, "naming", "constants")
    assert constants["dominant"] == "UPPER_CASE" and constants["outliers"] == []

    raised = _find(data, "errors", "raise")
    assert raised["dominant"] == "own exception classes" and _share(raised, "own exception classes") == 0.833
    assert _outliers(raised) == [("pkg/ledger.py", 13, "builtin exceptions")]  # raise ValueError
    caught = _find(data, "errors", "except")
    assert caught["dominant"] == "named exceptions"
    assert _outliers(caught) == [("pkg/ledger.py", 25, "bare except")]

    logger = _find(data, "logging", "logger")
    assert [(c["label"], c["count"]) for c in logger["choices"]] == [("logging.getLogger(__name__)", 4)]
    imports = _find(data, "imports", "project modules")
    assert imports["dominant"] == "relative (from . import)"
    assert _outliers(imports) == [("pkg/ledger.py", 3, "absolute")]  # from pkg.errors import PaymentError
    quotes = _find(data, "formatting", "quotes")
    assert quotes["dominant"] == "double quotes" and _outliers(quotes) == [("pkg/report.py", 6, "single quotes")]
    assert _find(data, "formatting", "indent")["dominant"] == "4 spaces"
    http = _find(data, "libraries", "http")
    assert [(c["label"], c["count"]) for c in http["choices"]] == [("requests", 2)]

    framework = _find(data, "tests", "framework")  # one imports pytest, one only has test functions
    assert [(c["label"], c["count"]) for c in framework["choices"]] == [("pytest", 2)]
    assert _find(data, "tests", "layout")["choices"][0]["label"] == "a separate tests directory"
    assert _find(data, "tests", "file names")["choices"][0]["label"] == "test_*.py"


def test_the_text_is_short_and_flags_what_breaks_a_convention(py_repo: Path, run_cli: Callable[..., Result]) -> None:
    result = run_cli("conventions", "-p", str(py_repo))
    assert result.exit_code == 0, result.output
    text = result.output
    assert text.startswith("# Conventions (python 6 files)")
    assert ("  naming functions: snake_case 90%, camelCase 10% of 10 definitions  e.g. pkg/ledger.py:11 post_entry"
            "  ! 1 camelCase: pkg/ledger.py:18 computeTotal\n") in text
    assert ("  errors except: named exceptions 80%, bare except 20% of 5 lines  e.g. pkg/ledger.py:34"
            "  ! 1 bare except: pkg/ledger.py:25\n") in text
    assert "  tests framework: pytest 100% of 2 files  e.g. " in text
    assert not any(line.startswith("    ") for line in text.splitlines())  # one line per convention
    full = run_cli("conventions", "-p", str(py_repo), "--detail", "full").output
    assert "  naming functions: snake_case 90%, camelCase 10% of 10 definitions  pkg/ledger.py:11 post_entry" in full
    assert "    ! camelCase: pkg/ledger.py:18 computeTotal" in full
    assert "    ! bare except: pkg/ledger.py:25" in full
    assert len(text) < len(full) < 2_500, (len(text), len(full))


def test_compact_json_keeps_one_example_and_counts_what_breaks_it(
    py_repo: Path, run_cli: Callable[..., Result]
) -> None:
    compact, full = _report(run_cli, py_repo), _report(run_cli, py_repo, "--detail", "full")
    assert (compact["detail"], full["detail"]) == ("compact", "full")
    functions = _find(compact, "naming", "functions")
    assert functions["example"] == {"path": "pkg/ledger.py", "line": 11, "text": "post_entry"}
    assert [c["label"] for c in functions["choices"]] == ["snake_case", "camelCase"]
    assert all("examples" not in c for c in functions["choices"])
    assert _outliers(functions) == [("pkg/ledger.py", 18, "camelCase")] and functions["more_outliers"] == 0
    assert [len(c["examples"]) for c in _find(full, "naming", "functions")["choices"]] == [2, 1]
    # conventions of a handful of cases are in the full reply only, and counted in the compact one
    assert compact["few_cases"] == len(full["conventions"]) - len(compact["conventions"]) > 0
    assert len(json.dumps(compact)) < 0.8 * len(json.dumps(full))


def test_tests_count_in_naming_only_when_asked(py_repo: Path, run_cli: Callable[..., Result]) -> None:
    with_tests = _report(run_cli, py_repo, "--include-tests")
    functions = _find(with_tests, "naming", "functions")
    assert functions["total"] == 12  # test_charge_needs_an_amount, test_total_adds_amounts
    assert with_tests["files"] == {"python": 8}
    one = _report(run_cli, py_repo, "--limit", "0")
    assert one["limit"] == 0


def test_go_conventions(go_repo: Path, run_cli: Callable[..., Result]) -> None:
    data = _report(run_cli, go_repo)
    _examples_are_real(go_repo, data)
    functions = _find(data, "naming", "functions")  # Go's case is visibility: camelCase and PascalCase are one
    assert functions["dominant"] == "MixedCaps" and _share(functions, "MixedCaps") == 0.833
    assert [(o["path"], o["line"], o["text"]) for o in functions["outliers"]] == [("store/orders.go", 25, "load_all")]
    returned = _find(data, "errors", "returning errors")
    assert returned["dominant"] == "wrapped: fmt.Errorf with %w"
    assert _outliers(returned) == [("store/orders.go", 28, "returned as is (return err)")]
    logger = _find(data, "logging", "logger")  # log/slog is not the standard `log`
    assert logger["dominant"] == "log/slog" and _outliers(logger) == [("cmd/shop/main.go", 4, "log (standard)")]
    assert _find(data, "tests", "framework")["choices"][0]["label"] == "testing (standard)"
    assert _find(data, "tests", "layout")["choices"][0]["label"] == "beside the code"
    assert _find(data, "formatting", "indent")["dominant"] == "tabs"
    http = _find(data, "libraries", "http")
    assert [(c["label"], c["count"]) for c in http["choices"]] == [("net/http", 2)]
    assert [c["label"] for c in _find(data, "libraries", "db")["choices"]] == ["database/sql"]


def test_typescript_conventions(ts_repo: Path, run_cli: Callable[..., Result]) -> None:
    data = _report(run_cli, ts_repo)
    _examples_are_real(ts_repo, data)
    files = _find(data, "naming", "files")
    assert files["dominant"] == "kebab-case" and _share(files, "kebab-case") == 0.8
    assert _outliers(files) == [("src/orderUtils.ts", 1, "camelCase")]
    assert _find(data, "naming", "functions")["dominant"] == "camelCase"
    thrown = _find(data, "errors", "throw")
    assert thrown["dominant"] == "own exception classes"
    assert _outliers(thrown) == [("src/order-store.ts", 19, "builtin exceptions")]  # throw new Error(...)
    quotes = _find(data, "formatting", "quotes")
    assert quotes["dominant"] == "single quotes" and _outliers(quotes) == [("src/orderUtils.ts", 1, "double quotes")]
    assert _find(data, "formatting", "semicolons")["dominant"] == "semicolons"
    assert _find(data, "formatting", "indent")["dominant"] == "2 spaces"
    assert _find(data, "tests", "framework")["choices"][0]["label"] == "vitest"
    assert _find(data, "tests", "layout")["choices"][0]["label"] == "__tests__ directories"
    assert _find(data, "tests", "file names")["choices"][0]["label"] == "*.test.ts"
    assert _find(data, "imports", "project modules")["dominant"] == "relative (./x)"
    assert [c["label"] for c in _find(data, "libraries", "http")["choices"]] == ["axios"]


def test_languages_and_directories_keep_the_report_to_them(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    root = tmp_path / "mixed"
    for name in ("py", "go", "ts"):
        shutil.copytree(FIXTURES / "conventions" / name, root / name)
    everything = _report(run_cli, root)
    assert set(everything["files"]) == {"python", "go", "typescript"}
    only_ts = _report(run_cli, root, "-l", "ts")
    assert set(only_ts["files"]) == {"typescript"} and {c["language"] for c in only_ts["conventions"]} == {"typescript"}
    assert set(_report(run_cli, root, "-l", "go,python")["files"]) == {"go", "python"}
    inside = _report(run_cli, root / "go")
    assert inside["files"] == {"go": 4}
    assert inside["conventions"] and all(c["example"]["path"].startswith("go/") for c in inside["conventions"])
    missing = run_cli("conventions", "-p", str(root), "-l", "rust")
    assert missing.exit_code == 1 and "No conventions found" in missing.output
    assert run_cli("conventions", "-p", str(root), "-l", "cobol").exit_code == 2


def test_dead_and_duplicates_take_languages_too(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    root = tmp_path / "mixed"
    shutil.copytree(FIXTURES / "conventions" / "py", root / "py")
    shutil.copytree(FIXTURES / "clones", root / "clones")
    dead = json.loads(run_cli("dead", "-p", str(root), "--json", "-l", "python").output)
    assert dead["total_public_api"] + dead["total_unused"] > 0
    none = json.loads(run_cli("dead", "-p", str(root), "--json", "-l", "go").output)
    assert none["total_public_api"] == none["total_unused"] == 0
    every = json.loads(run_cli("duplicates", "-p", str(root), "--json").output)
    copies = json.loads(run_cli("duplicates", "-p", str(root), "--json", "-l", "py").output)
    assert copies["total_groups"] == every["total_groups"] == 2  # the fixtures' own, and charge/refund
    assert run_cli("duplicates", "-p", str(root), "-l", "go").exit_code == 1


@pytest.mark.parametrize(("name", "style"), [
    ("parse_args", "snake_case"), ("_private_helper", "snake_case"), ("parseArgs", "camelCase"),
    ("observe_", None), ("HTTPServer", "PascalCase"), ("Store", "PascalCase"),
    ("MAX_RETRIES", "UPPER_CASE"), ("URL", "UPPERWORD"), ("api-client", "kebab-case"), ("get", None), ("T", None),
    ("get_Value", None), ("__init__", None),
])
@no_index
def test_naming_styles(name: str, style: str | None) -> None:
    assert naming_style(name) == style


def test_code_health_answers_the_three_reports_over_stdio_as_the_cli_does(
    py_repo: Path, tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    import anyio
    from test_mcp_stdio import error_text, reply, serve

    from codefathom.service import Codefathom

    home = tmp_path / "server-home"
    results: dict[str, Any] = {}

    async def scenario() -> None:
        async with serve(py_repo, home) as client:
            calls: dict[str, dict[str, Any]] = {
                "conventions": {"report": "conventions"},
                "conventions_all": {"report": "conventions", "limit": 0, "include_tests": True},
                "conventions_go": {"report": "conventions", "languages": "go"},
                "conventions_full": {"report": "conventions", "detail": "full"},
                "duplicates": {"report": "duplicates"},
                "exact": {"report": "duplicates", "similarity": 1},
                "dead": {"report": "dead", "languages": ["python"], "limit": 1},
                "bad_report": {"report": "lint"},
                "bad_similarity": {"report": "duplicates", "similarity": 0.2},
                "bad_language": {"report": "conventions", "languages": ["cobol"]},
            }
            for key, arguments in calls.items():
                result = await client.call_tool("code_health", arguments)
                results[key] = result if key.startswith("bad_") else reply(result)
                if key in ("conventions", "duplicates"):
                    results[key + "_text"] = error_text(result)

    anyio.run(scenario)
    conventions = results["conventions"]
    assert conventions["files"] == {"python": 6}
    functions = _find(conventions, "naming", "functions")
    assert _outliers(functions) == [("pkg/ledger.py", 18, "camelCase")]
    assert results["conventions_text"].startswith("# Conventions (python 6 files)")
    assert "! 1 camelCase: pkg/ledger.py:18 computeTotal" in results["conventions_text"]
    assert "examples" in results["conventions_full"]["conventions"][0]["choices"][0]
    assert results["conventions_full"]["detail"] == "full"
    assert results["conventions_all"]["limit"] == 0 and results["conventions_all"]["files"] == {"python": 8}
    assert results["conventions_go"]["conventions"] == []
    [group] = results["duplicates"]["groups"]  # charge_card and refund_charge: one renamed copy
    assert {u["name"].rsplit(".", 1)[-1] for u in group["units"]} == {"charge_card", "refund_charge"}
    assert "copies of" in results["duplicates_text"]
    assert results["exact"]["groups"] == []
    dead = results["dead"]
    assert dead["limit"] == 1 and len(dead["public_api"]) <= 1 and dead["total_public_api"] >= 1
    assert results["bad_report"].is_error and "report" in error_text(results["bad_report"])
    assert results["bad_similarity"].is_error and "similarity" in error_text(results["bad_similarity"])
    assert results["bad_language"].is_error and "unknown language" in error_text(results["bad_language"])

    # The replies are the dicts the commands print with --json.
    with Codefathom(py_repo) as service:
        assert results["conventions"] == service.conventions().to_json()
        assert results["duplicates"] == service.duplicates().to_json()
    cli = json.loads(run_cli("conventions", "-p", str(py_repo), "--json").output)
    assert cli == results["conventions"]


@no_index
def test_a_project_s_own_package_is_not_one_of_its_libraries() -> None:
    from codefathom.graph.conventions import Import, Source, find_conventions

    sources = [Source(f"src/requests/{name}.py", "python", "source", "import requests\n") for name in ("api", "cli")]
    imports = [
        Import("src/requests/api.py", 1, "requests", 0, False, "python"),  # the package itself, unresolved
        Import("src/requests/cli.py", 1, "requests.models", 0, True, "python"),
        Import("src/requests/cli.py", 2, "httpx", 0, False, "python"),
    ]
    found = find_conventions(sources, [], imports)
    [http] = [c for c in found if c.topic == "libraries" and c.aspect == "http"]
    assert [(c.label, c.count) for c in http.choices] == [("httpx", 1)]


def test_class_constants_are_named_as_constants_not_as_fields(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    root = tmp_path / "consts"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "retry.py").write_text(
        "class Retry:\n"
        "    MAX_RETRIES = 3\n"
        "    DEFAULT_METHODS: frozenset[str] = frozenset({'GET'})\n"
        "    BACKOFF = 0.5\n"
        "    RETRY_AFTER_STATUS_CODES = (413, 503)\n"
        "    total = 0\n"
        "    connect_timeout = 1\n"
        "    read_timeout = 2\n"
        "    redirectCount = 0\n"  # a field in camelCase: the one place that breaks the convention
        "    status_forcelist = ()\n"
    )
    (root / "pkg" / "pool.py").write_text("class Pool:\n    max_size = 10\n    block = False\n")
    (root / "src").mkdir()
    (root / "src" / "Shop.java").write_text(
        "class Shop {\n"
        "    private static final int MAX_ITEMS = 10;\n"
        "    public final static String DEFAULT_NAME = \"shop\";\n"
        "    static final long TIMEOUT_MS = 500L;\n"
        "    private int itemCount;\n    private String ownerName;\n    private long openedAt;\n"
        "    private boolean isOpen;\n"
        "}\n"
    )
    (root / "src" / "Color.java").write_text("enum Color {\n    DARK_RED,\n    LIGHT_BLUE(\"b\"),\n    GREEN;\n}\n")
    (root / "src" / "Till.java").write_text("class Till {\n    private int cashTotal;\n}\n")
    data = _report(run_cli, root, "-l", "python,java")
    fields = _find(data, "naming", "fields", "python")
    assert (fields["dominant"], fields["total"]) == ("snake_case", 5)  # `total` and `block` are any style
    assert [(o["text"], o["choice"]) for o in fields["outliers"]] == [("redirectCount", "camelCase")]
    constants = _find(data, "naming", "constants", "python")
    assert (constants["dominant"], constants["total"]) == ("UPPER_CASE", 4)  # each of Retry's
    java_fields = _find(data, "naming", "fields", "java")
    assert (java_fields["dominant"], java_fields["total"], java_fields["outliers"]) == ("camelCase", 5, [])
    java_constants = _find(data, "naming", "constants", "java")
    assert (java_constants["dominant"], java_constants["total"]) == ("UPPER_CASE", 6)  # static finals, enum constants
