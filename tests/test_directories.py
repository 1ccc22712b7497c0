"""Directory nodes through the `codefathom` command: built at index time from each directory's files,
returned as results of kind `directory` for questions about an area, kept current by syncs."""

from __future__ import annotations

import json
import sqlite3
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from conftest import no_index, one_store, project_rows, write_files

from codefathom.service import Codefathom

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

FILES = {
    "README.md": """
        # Shopfront

        A small web shop: accounts, checkout and invoices.
    """,
    "app/__init__.py": '''
        """The shop application."""
    ''',
    "app/cli.py": '''
        """Command-line entry point."""


        def main(argv: list[str]) -> int:
            """Run the shop server."""
            return 0
    ''',
    "app/auth/__init__.py": '''
        """Authentication of users: sign-in, sessions and bearer credentials."""
    ''',
    "app/auth/tokens.py": '''
        """Issuing and verifying tokens."""

        import hmac


        def issue_token(user_id: int, ttl: int) -> str:
            """Sign a new token for the user, valid for ttl seconds."""
            return hmac.new(b"key", str(user_id).encode(), "sha256").hexdigest()


        def verify_token(token: str) -> bool:
            """Check the signature and expiry of a token."""
            return bool(token)


        class TokenStore:
            """Remembers revoked tokens."""

            def revoke(self, token: str) -> None:
                self.revoked = token
    ''',
    "app/auth/passwords.py": '''
        """Password hashing."""

        import hashlib


        def hash_password(password: str, salt: bytes) -> bytes:
            """Derive a slow hash of a password with its salt."""
            return hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 100_000)


        def check_password(password: str, salt: bytes, expected: bytes) -> bool:
            return hash_password(password, salt) == expected
    ''',
    "app/auth/middleware.py": '''
        """Rejects requests without valid credentials."""

        from app.auth.tokens import verify_token


        def require_login(request: dict) -> dict:
            """Turn away a request whose bearer header is missing or stale."""
            if not verify_token(request.get("bearer", "")):
                raise PermissionError("login required")
            return request
    ''',
    "app/billing/__init__.py": '''
        """Billing: invoices, payments and refunds."""
    ''',
    "app/billing/invoices.py": '''
        """Invoices for orders."""


        class Invoice:
            """The amounts owed for one order."""

            def total(self) -> int:
                return 0


        def render_invoice(invoice: Invoice) -> str:
            """Lay an invoice out as text for printing."""
            return str(invoice.total())
    ''',
    "app/billing/payments.py": '''
        """Card payments."""


        def charge_card(card: str, amount: int) -> bool:
            """Take a payment from a card."""
            return amount > 0


        def refund_payment(payment_id: str) -> None:
            """Give the money of a payment back."""
    ''',
    "tests/test_tokens.py": '''
        from app.auth.tokens import issue_token, verify_token


        def test_a_fresh_token_verifies() -> None:
            assert verify_token(issue_token(1, 60))
    ''',
}


@pytest.fixture
def shopfront(tmp_path: Path) -> Path:
    """A small project whose `app/auth/` handles sign-in and tokens and `app/billing/` payments."""
    return write_files(tmp_path / "shopfront", FILES)


def results(search_json: Any, *args: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = search_json(*args)["results"]
    return found


def directories(found: list[dict[str, Any]]) -> list[str]:
    return [r["path"] for r in found if r["kind"] == "directory"]


def test_an_area_question_returns_the_directory_with_its_top_files(shopfront: Path, search_json) -> None:
    found = results(search_json, "what handles authentication tokens and credentials", "--path", str(shopfront))
    node = next(r for r in found if r["kind"] == "directory")
    assert node["path"] == "app/auth"
    assert found.index(node) < 3
    assert node["qualified_name"] == "app/auth/"
    assert node["language"] == "python"
    assert (node["start_line"], node["end_line"]) == (0, 0)
    assert set(node["files"]) == {
        "app/auth/__init__.py", "app/auth/tokens.py", "app/auth/passwords.py", "app/auth/middleware.py",
    }
    assert node["files"][0] == "app/auth/tokens.py"  # the file the others depend on ranks first
    content = node["content"]
    assert content.startswith("app/auth/: 4 files (python 4)")
    assert "Authentication of users" in content  # the package docstring describes it
    assert "- app/auth/tokens.py: Issuing and verifying tokens. Defines " in content


def test_naming_a_directory_brings_its_node_first(shopfront: Path, search_json) -> None:
    found = results(search_json, "what does billing/ do?", "--path", str(shopfront))
    assert (found[0]["kind"], found[0]["path"]) == ("directory", "app/billing")


def test_an_identifier_gets_its_definition_and_no_directory(shopfront: Path, search_json) -> None:
    for query in ("verify_token", "TokenStore.revoke", "hash_password"):
        found = results(search_json, query, "--path", str(shopfront))
        assert found[0]["kind"] != "directory"
        assert not directories(found), query


def test_a_question_one_function_answers_gets_no_directory_on_top(shopfront: Path, search_json) -> None:
    found = results(search_json, "derive a slow hash of a password", "--path", str(shopfront))
    assert found[0]["qualified_name"] == "app.auth.passwords.hash_password"


@pytest.mark.parametrize("question, answer", [
    ("how does billing give the money of a payment back?", "app.billing.payments.refund_payment"),
    ("where does auth check the signature of a token?", "app.auth.tokens.verify_token"),
    ("how are billing invoices laid out as text?", "app.billing.invoices.render_invoice"),
])
def test_a_question_naming_a_directory_about_one_function_gets_the_function_first(
    shopfront: Path, search_json, question: str, answer: str
) -> None:
    # The directory holds every word the function does, and more; the question is still about the function.
    found = results(search_json, question, "--path", str(shopfront))
    assert found[0]["qualified_name"] == answer


@pytest.mark.parametrize("question", ["what does billing do?", "the billing package"])
def test_a_query_that_is_mostly_a_directory_name_gets_that_directory_first(
    shopfront: Path, search_json, question: str
) -> None:
    found = results(search_json, question, "--path", str(shopfront))
    assert (found[0]["kind"], found[0]["path"]) == ("directory", "app/billing")


def test_kind_directory_returns_only_directories(shopfront: Path, search_json) -> None:
    found = results(search_json, "payments", "--path", str(shopfront), "--kind", "directory")
    assert found and all(r["kind"] == "directory" for r in found)
    assert found[0]["path"] == "app/billing"
    # An identifier-like query too: the user asked for directories; the tests using it come after.
    assert directories(results(search_json, "verify_token", "--path", str(shopfront), "-k", "directory")) == [
        "app/auth", "tests",
    ]


def test_filters_apply_to_directories(shopfront: Path, search_json) -> None:
    query = ("authentication tokens credentials", "--kind", "directory")
    assert directories(results(search_json, *query, "--path", str(shopfront / "app" / "billing"))) == []
    assert "app/auth" not in directories(results(search_json, *query, "--path", str(shopfront), "-x", "app/auth/"))
    assert directories(results(search_json, *query, "--path", str(shopfront), "-l", "markdown")) == []
    assert directories(results(search_json, *query, "--path", str(shopfront), "-g", "app/auth/*.py")) == [
        "app/auth"
    ]


def test_the_text_output_shows_a_directory_readably(shopfront: Path, run_cli) -> None:
    result = run_cli("search", "what handles authentication tokens and credentials", "--path", str(shopfront))
    assert result.exit_code == 0, result.output
    lines = result.stdout.split("\n")
    header = next(i for i, line in enumerate(lines) if line.startswith("app/auth/  directory"))
    assert lines[header] == "app/auth/  directory  4 files (python 4)"
    assert lines[header + 1].strip().startswith("Authentication of users")
    assert lines[header + 2].strip().startswith("top files: tokens.py, ")
    assert "notices" not in result.stdout  # a directory is not a file that changed


def test_editing_a_file_updates_its_directory(shopfront: Path, search_json, run_cli) -> None:
    assert directories(results(search_json, "shipping parcels", "--path", str(shopfront), "-k", "directory")) == []
    (shopfront / "app" / "billing" / "shipping.py").write_text(
        '"""Shipping parcels to customers."""\n\n\ndef ship_parcel(order: int) -> None:\n    """Hand over."""\n'
    )
    found = results(search_json, "shipping parcels", "--path", str(shopfront), "-k", "directory")
    assert directories(found) == ["app/billing"]
    assert "app/billing/shipping.py" in found[0]["files"]
    assert "Shipping parcels to customers." in found[0]["content"]

    (shopfront / "app" / "billing" / "shipping.py").write_text('"""Parcels by courier."""\n')
    found = results(search_json, "customers", "--path", str(shopfront), "-k", "directory")
    assert "Shipping parcels to customers." not in json.dumps(found)


def test_deleting_every_file_of_a_directory_removes_its_node(shopfront: Path, search_json, codefathom_home) -> None:
    query = ("invoices payments refunds", "--path", str(shopfront), "-k", "directory")
    assert directories(results(search_json, *query)) == ["app/billing"]
    for path in (shopfront / "app" / "billing").iterdir():
        path.unlink()
    (shopfront / "app" / "billing").rmdir()
    assert directories(results(search_json, *query)) == []
    with Codefathom(shopfront) as service:
        paths = [r[0] for r in project_rows(
            service, "SELECT path FROM directories ORDER BY path",
            "SELECT path FROM directories WHERE project_id = %s ORDER BY path COLLATE \"C\"",
        )]
        [(fts_rows,)] = project_rows(  # (their text in the search index: FTS5's rows, PostgreSQL's sizes)
            service, "SELECT count(*) FROM directories_fts",
            "SELECT count(*) FROM directory_sizes WHERE project_id = %s",
        )
    assert paths == ["app", "app/auth", "tests"]
    assert fts_rows == len(paths)


@one_store("a SQLite file of schema 5 migrated")
def test_an_index_from_before_directory_nodes_is_migrated_and_gets_them(shopfront: Path, tmp_path: Path,
                                                                       search_json) -> None:
    from codefathom.store.sqlite import db

    index_dir = tmp_path / "v5-index"
    index_dir.mkdir()
    with sqlite3.connect(index_dir / "index.db") as conn:
        conn.executescript("\n".join([
            (resources.files("codefathom.store.sqlite") / "schema.sql").read_text("utf-8"),
            *(db._migration_sql(step) for step in range(2, 6)),
        ]))
        conn.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?)",
            [("application", "codefathom"), ("schema_version", "5"), ("fingerprint", "from release 5")],
        )
    found = results(search_json, "payments", "--path", str(shopfront), "--index-dir", str(index_dir), "-k", "directory")
    assert directories(found)[0] == "app/billing"
    with sqlite3.connect(index_dir / "index.db") as conn:
        version = int(conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
    assert version >= 6


@no_index
def test_the_mcp_search_tool_describes_directories() -> None:
    from codefathom.mcp import tools

    assert "directories" in (tools.search_code.__doc__ or "")
    assert "directory" in str(tools.Kinds)  # kinds=['directory']: area summaries only



@one_store("the placement rule runs above the store; unit ids are read from SQLite's file")
def test_a_directory_is_measured_against_the_units_the_words_found_not_only_the_first_results(
    shopfront: Path,
) -> None:
    # With vectors, the first results are ranked by meaning and may hold fewer of the query's words
    # than a unit BM25F found: a directory the question names must beat that unit too to lead.
    from codefathom.model import Hit
    from codefathom.search import SearchRequest
    from codefathom.search.areas import with_areas
    from codefathom.search.query import plan_query

    question = "how does billing give the money of a payment back?"
    service = Codefathom(shopfront)
    service.index()
    ids = dict(project_rows(service, "SELECT qualified_name, id FROM units", ""))
    words_found = ids["app.billing.payments.refund_payment"]  # holds the question's words
    by_meaning = [ids["app.auth.tokens.verify_token"], ids["app.auth.passwords.hash_password"]]
    hits = [Hit(path="app/auth/x.py", start_line=1, end_line=2, name="x", qualified_name="x", kind="function",
                language="python", parent=None, score=1.0 / rank, content="", truncated=False) for rank in (1, 2)]
    store = service._open(create=False)

    def first(lexical: list[int]) -> str:
        request = SearchRequest(question)
        return with_areas(store, plan_query(question), request, hits, by_meaning, lexical)[0].kind

    assert first([]) == "directory"  # against the first results alone, billing/ covers more
    assert first([words_found, *by_meaning]) == "function"
    # The lexical reranker may find it below BM25F's fifth: the first 20 are looked at.
    others = [unit_id for name, unit_id in sorted(ids.items()) if not name.startswith("app.billing")][:6]
    assert first([*others, words_found]) == "function"
