"""A name asked for in words or with its symbols: `max by` is `max_by`, `left and then` is
`left_and_then` (small words and all), and a C++ operator is named by its symbol (`operator&`,
`Option::operator=`), through the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import index_with_vectors, no_index, write_files

from codefathom.search.query import plan_query

pytestmark = pytest.mark.usefixtures("store")

FILES = {
    "src/grouping.rs": '''
        /// Groups of items by key.
        pub struct Groups {
            items: Vec<(u32, i64)>,
        }

        impl Groups {
            /// The largest item of each group.
            pub fn max(&self) -> Vec<i64> {
                self.items.iter().map(|(_, v)| *v).collect()
            }

            /// The largest item of each group, by a comparison of its own.
            pub fn max_by(&self, compare: fn(&i64, &i64) -> std::cmp::Ordering) -> Vec<i64> {
                let mut values = self.max();
                values.sort_by(compare);
                values
            }

            /// The left value, and then a function of it.
            pub fn left_and_then(&self, then: fn(i64) -> i64) -> Vec<i64> {
                self.max().into_iter().map(then).collect()
            }

            /// The left value of each pair.
            pub fn left(&self) -> Vec<u32> {
                self.items.iter().map(|(k, _)| *k).collect()
            }
        }
    ''',
    "src/items.rs": '''
        /// Values one by one.
        pub trait Items {
            fn items(self) -> Vec<i64>;
        }

        impl<const N: usize> Items for [i64; N] {
            fn items(self) -> Vec<i64> {
                self.to_vec()
            }
        }

        impl Items for Vec<i64> {
            fn items(self) -> Vec<i64> {
                self
            }
        }

        impl<'a> Items for &'a [i64] {
            fn items(self) -> Vec<i64> {
                self.to_vec()
            }
        }
    ''',
    "src/printer.py": '''
        class StrPrinter:
            """Prints expressions as strings."""

            def _print_str(self, expr):
                return str(expr)

            def _print_Str(self, expr):
                return expr.name
    ''',
    "lib/loader.js": '''
        function calculateConfigArray(options) {
            return [options];
        }

        class ConfigLoader {
            #calculateConfigArray(options) {
                return calculateConfigArray(options);
            }
        }

        class LegacyConfigLoader {
            #calculateConfigArray(options) {
                const found = calculateConfigArray(options);
                return found.concat([]);
            }
        }

        module.exports = { ConfigLoader, LegacyConfigLoader };
    ''',
    "include/option.hpp": '''
        namespace cli {
        /// One command-line option.
        class Option {
          public:
            /// Copy another option's settings.
            Option &operator=(const Option &other) = default;
            /// True when both options have the same name.
            bool operator==(const Option &other) const { return name_ == other.name_; }
            bool operator!=(const Option &other) const { return name_ != other.name_; }
            bool operator<(const Option &other) const { return name_ < other.name_; }
            bool operator>(const Option &other) const { return name_ > other.name_; }
            bool operator<=(const Option &other) const { return name_ <= other.name_; }
            bool operator>=(const Option &other) const { return name_ >= other.name_; }
          private:
            int name_;
        };

        /// A check on an option's value.
        class Validator {
          public:
            /// Both checks must pass.
            Validator operator&(const Validator &other) const {
                Validator both = *this;
                both.checks_ += other.checks_;
                both.description_ = description_ + " AND " + other.description_;
                return both;
            }
            /// Either check may pass.
            Validator operator|(const Validator &other) const { return other; }
            /// Run the check.
            bool operator()(int value) const { return value > 0; }
            /// True when the check has anything to run.
            explicit operator bool() const { return checks_ > 0; }
        };

        /// Writes a validator's description to a stream.
        std::ostream &operator <<(std::ostream &out, const Validator &validator) { return out; }
        }
    ''',
}


FILES["src/Money.cs"] = '''
    namespace Shop {
    public class Money {
        public decimal Amount { get; }

        public static Money operator +(Money a, Money b) { return a; }

        public static bool operator ==(Money a, Money b) { return a.Amount == b.Amount; }

        public static bool operator !=(Money a, Money b) { return !(a == b); }

        public static implicit operator decimal(Money m) { return m.Amount; }
    }
    }
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_files(tmp_path / "names", FILES)


@pytest.mark.parametrize(("query", "name"), [
    ("max by", "max_by"),
    ("left and then", "left_and_then"),
    ("operator&", "operator&"),
    ("Option::operator=", "operator="),
    ("Validator::operator()", "operator()"),
    ("operator<<", "cli.operator<<"),  # written `operator <<`: an operator's name is its symbol, spaces left out
    ("Validator::operator bool", "Validator.operator bool"),  # a conversion is named by its type alone
    ("Money.operator==", "Money.operator=="),  # C#'s `operator ==`: the keyword before the symbol
    ("Money.operator decimal", "Money.operator decimal"),
    ("StrPrinter._print_Str", "_print_Str"),  # not `_print_str`: another name in a language with case
    ("LegacyConfigLoader.#calculateConfigArray", "LegacyConfigLoader.#calculateConfigArray"),
    ("LegacyConfigLoader#calculateConfigArray", "LegacyConfigLoader.#calculateConfigArray"),
])
def test_a_name_asked_for_comes_first(project: Path, run_cli: Callable[..., Result], query: str, name: str) -> None:
    result = run_cli("search", query, "--path", str(project), "--json", "-n", "3")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["results"][0]["qualified_name"].endswith(name), result.output


def test_an_operator_is_named_by_its_symbol(project: Path, run_cli: Callable[..., Result]) -> None:
    # Name keys keep letters and digits only: every operator has the key `operator`, and `operator=`
    # had been offered as a folded name for `operator&` (in CLI11 it came first, on words).
    result = run_cli("search", "operator&", "--path", str(project), "--json", "--debug", "-n", "10")
    named = [r["name"] for r in json.loads(result.output)["results"] if "names" in r["debug"]["ranks"]]
    assert named == ["operator&"], result.output


@no_index
def test_how_the_query_reads_them() -> None:
    assert "maxby" in plan_query("max by").joined_word_keys  # `by` carries no meaning, but the name says it
    assert plan_query("Option::operator=").name_queries == [("Option", "operator=")]
    assert plan_query("the operator for adding").tokens == ("the", "operator", "for", "adding")
    # Rust's array type is an owner, as the index names it (`[T; N].into_par_iter`); an index is not.
    array = plan_query("[T; N]::into_par_iter")
    assert array.identifier_like and array.name_queries == [("[T; N]", "into_par_iter")]
    assert plan_query("items[0].name").tokens == ("items", "0", "name")
    # A longer question is not joined whole: its small words would make names of nothing.
    assert "whereisthecsrf" not in plan_query("where is the csrf token checked").joined_word_keys
    # A possessive's `s` is no word: it matched every `s` in the code and joined its neighbour's name.
    assert plan_query("parse a parent command's options").words == ("parse", "parent", "command", "options")
    assert plan_query("the iterator’s next item").words == ("iterator", "next", "item")


def test_a_name_spelled_in_words_leads_with_vectors_too(
    project: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # With vectors, a phrase of words was ordered by the reranker, which weighs a name match little (on
    # the lab, rayon's and client_golang's names came second); a phrase that spells a name keeps fusion.
    index_with_vectors(run_cli, project, monkeypatch)
    for query, name in (("max by", "max_by"), ("left and then", "left_and_then")):
        result = run_cli("search", query, "--path", str(project), "--json", "-n", "3")
        assert json.loads(result.output)["results"][0]["name"] == name, result.output
    for owner in ("[i64; N]", "[i64]"):  # a slice through a reference too: `impl Items for &'a [i64]`
        result = run_cli("search", f"{owner}::items", "--path", str(project), "--json", "-n", "3")
        assert json.loads(result.output)["results"][0]["qualified_name"] == f"items.{owner}.items", result.output
    explained = json.loads(run_cli("explain", "max by", "--path", str(project), "--json").stdout)["analysis"]
    assert explained["fusion"]["reranker"] is False
    # A question in words is still reranked.
    question = "the largest item of each group by a comparison of its own"
    explained = json.loads(run_cli("explain", question, "--path", str(project), "--json").stdout)["analysis"]
    assert explained["fusion"]["reranker"] is True


def test_an_operator_among_hundreds_of_others_is_found(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    # Every operator once had the name key `operator`: the lookup's limit cut the one asked for.
    functors = "\n".join(f"struct Above{i} {{ bool operator()(int v) const {{ return v > {i}; }} }};"
                         for i in range(600))
    printer = "std::ostream &operator<<(std::ostream &out, const Above0 &a) { return out; }"
    root = write_files(tmp_path / "functors", {"include/functors.hpp": f"{functors}\n{printer}\n"})
    assert run_cli("index", str(root), "--quiet").exit_code == 0
    result = run_cli("search", "operator<<", "--path", str(root), "--json", "-n", "1")
    assert json.loads(result.output)["results"][0]["name"] == "operator<<", result.output
