"""Dead code through `codefathom dead --json` on the Java, Rust, C#, Go and Python fixtures: what runs a definition
without a reference the graph binds is an entry point (constructors, `main`, tests by their annotations
or attributes, trait implementations, overrides, framework registrations); a method that may implement
a member of a base outside the project stays listed, at a lower confidence, with that reason."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import FIXTURES

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL


@pytest.fixture
def dead(run_cli: Callable[..., Result], tmp_path: Path) -> Callable[..., dict[str, dict[str, Any]]]:
    """`codefathom dead --json` on a copy of a fixture: qualified name -> item (`public` says which
    list), unused and public alike."""

    def run(fixture: str, *args: str) -> dict[str, dict[str, Any]]:
        root = tmp_path / fixture
        if not root.exists():
            shutil.copytree(FIXTURES / "repos" / fixture, root)
        result = run_cli("dead", "-p", str(root), "--json", *args)
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        listed = [d | {"public": False} for d in data["unused"]] + [d | {"public": True} for d in data["public_api"]]
        return {d["qualified_name"]: d for d in listed}

    return run


def test_java_constructors_overrides_and_tests_are_entry_points(dead: Callable[..., dict[str, dict[str, Any]]]) -> None:
    found = dead("bindings-java", "--include-tests")
    left_out = {
        "com.shop.model.Order.Order",  # a constructor: `new Order(...)` binds to its class
        "com.shop.app.App.App",
        "com.shop.app.Session.Session",
        "com.shop.app.Session.toString",  # @Override
        "com.shop.model.Order.base",  # implements Priced.base, which is called
        "com.shop.app.SessionTest.printsTheUser",  # @Test
        "com.shop.app.SessionTest",  # a class of tests
    }
    assert not left_out & found.keys()
    close = found["com.shop.app.Session.close"]
    assert close["confidence"] == 0.3
    assert "may implement or override a member of `AutoCloseable`" in close["reason"]
    assert found["com.shop.app.Session.legacy"]["confidence"] == 0.3  # @Deprecated says nothing of use
    assert found["com.shop.app.Session.unusedHelper"]["confidence"] == 0.6  # private: overrides nothing
    assert found["com.shop.app.SessionTest.unusedFixture"]["confidence"] == 0.6
    assert "com.shop.app.SessionTest.unusedFixture" not in dead("bindings-java")  # tests only when asked


def test_rust_trait_impls_and_test_functions_are_entry_points(dead: Callable[..., dict[str, dict[str, Any]]]) -> None:
    found = dead("bindings-rust", "--include-tests")
    left_out = {
        "report.Report.fmt",  # impl fmt::Display for Report: called through the trait
        "model.order.Order.base",  # impl Priced for Order
        "report.tests.renders",  # #[test]
        "lib.tests.runs",
    }
    assert not left_out & found.keys()
    assert found["report.Report.unused_helper"]["confidence"] == 0.6  # an inherent impl's method
    orphan = found["report.orphan"]
    assert (orphan["confidence"], orphan["reason"]) == (0.9, "no reference in the project binds to it")  # not `pub`


def test_csharp_constructors_overrides_attributes_and_tests(dead: Callable[..., dict[str, dict[str, Any]]]) -> None:
    found = dead("bindings-csharp", "--include-tests")
    left_out = {
        "Shop.Store.Session.Session",  # constructors, the static one too
        "Shop.Model.Order.Order",
        "Shop.Store.Session.ToString",  # `override`
        "Shop.Model.Order.Base",  # implements IPriced.Base, which is called
        "Shop.Store.Session.Handle",  # [Route(...)]: registered with a framework
        "Shop.Tests.SessionTests.Disposes",  # [Fact]
        "Shop.Tests.SessionTests.TakesData",  # [Theory] [InlineData(1)]
        "Shop.Tests.SessionTests",
        "Shop.App.App",  # holds Main
        "Shop.App.App.Main",
        "Shop.Model.OrderExtensions",  # used through its extension method
    }
    assert not left_out & found.keys()
    dispose = found["Shop.Store.Session.Dispose"]
    assert dispose["confidence"] == 0.3
    assert "may implement or override a member of `IDisposable`" in dispose["reason"]
    assert found["Shop.Store.Session.Close"]["confidence"] == 0.6  # [Obsolete] says nothing of use
    assert found["Shop.Store.Session.Unused"]["confidence"] == 0.6
    assert found["Shop.Tests.SessionTests.UnusedFixture"]["confidence"] == 0.6
    assert {"Shop.Store.Repo.Owner", "Shop.Store.Repo.Reindex"} <= found.keys()


def test_go_interfaces_build_variants_values_and_exports(dead: Callable[..., dict[str, dict[str, Any]]]) -> None:
    found = dead("dead-go")
    left_out = {
        "shop.Square.Area", "shop.Square.Name",  # Square has all of the project's Shape: called through it
        "shop.NotFound.Error", "shop.NotFound.MarshalJSON",  # error and json.Marshaler, of the standard library
        "shop.countingWriter.Write",  # io.Writer
        "shop.serve", "shop.check",  # named as values: handed to the router
        "shop.validate",  # defined twice under //go:build; the one built by default is called
        "main.main",
    }
    assert not left_out & found.keys()
    assert found["shop.orphan"]["confidence"] == 0.9 and not found["shop.orphan"]["public"]
    assert found["shop.Square.unusedHelper"]["confidence"] == 0.6  # no interface asks for it
    assert found["main.Helper"]["confidence"] == 0.9  # capitalised, but in a program
    assert {name for name, item in found.items() if item["public"]} == {
        "shop.Routes", "shop.Exported", "shop.Describe", "shop.Valid", "shop.NewCounter", "shop.Summary"
    }
    # `tocLen := tocLen(n)` calls the function; `new(response)` makes the type
    assert "shop.tocLen" not in found and "shop.response" not in found
    generated = found["shop.fromGenerated"]  # its only caller is generated code, left out of the index
    assert generated["confidence"] == 0.3 and "`zz_generated.go`, generated code" in generated["reason"]


def test_java_static_fields_and_serialization_hooks(dead: Callable[..., dict[str, dict[str, Any]]]) -> None:
    found = dead("dead-java")
    assert "com.shop.Limits" not in found  # used through `Limits.MAX_ITEMS`
    assert found["com.shop.Cart.forgotten"]["confidence"] == 0.6
    hook = found["com.shop.Cart.writeObject"]  # serialization calls it by name
    assert hook["confidence"] == 0.3 and "the standard library calls" in hook["reason"]


def test_python_library_methods_protocols_and_overrides(dead: Callable[..., dict[str, dict[str, Any]]]) -> None:
    found = dead("dead-python")
    assert "lib.client.SupportsRead.read" not in found  # a Protocol's member declares a shape
    assert "lib.client.HTTPAdapter.send" not in found  # overrides BaseAdapter.send, which is called
    assert found["lib.client.Client.head"]["public"]  # a library's public method: callers live elsewhere
    assert found["lib.client._Pool.drain"] == found["lib.client._Pool.drain"] | {"confidence": 0.6, "public": False}
    assert found["lib.client._Pool"]["confidence"] == 0.9
    # used as values, in an annotation, or in the other branch of an `if`
    used = {"lib.client._Marker", "lib.client._argv", "lib.client._on_zero", "lib.client._Cache.acquire"}
    assert not used & found.keys()
    readable, hook = found["lib.client._Stream.readable"], found["lib.wrap.Wrapper._wrap_chunks"]
    assert readable["confidence"] == 0.3 and "the standard library calls" in readable["reason"]
    assert hook["confidence"] == 0.3 and "`TextWrapper`, which is outside the project" in hook["reason"]
    built = found["lib.client.Printer._print_str"]  # getattr(self, "_print_" + kind)
    assert built["confidence"] == 0.3 and "names built from `_print_`" in built["reason"]


def test_orphaned_files_and_coupling(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    root = tmp_path / "dead-python"
    shutil.copytree(FIXTURES / "repos" / "dead-python", root)
    # A library: a module of public names nothing in it imports is still its users' to import.
    assert "src/lib/leftover.py" not in json.loads(run_cli("dead", "-p", str(root), "--json").stdout)["orphan_files"]
    (root / "pyproject.toml").unlink()  # an application: nothing imports leftover.py, so nothing runs it
    data = json.loads(run_cli("dead", "-p", str(root), "--json").stdout)
    assert "src/lib/leftover.py" in data["orphan_files"]
    assert "src/lib/tool.py" not in data["orphan_files"]  # run as a script (`__main__`)
    assert data["total_orphan_files"] == len(data["orphan_files"])
    text = run_cli("dead", "-p", str(root)).stdout
    assert "files nothing else imports or uses, no entry point" in text and "  src/lib/leftover.py" in text

    go = tmp_path / "dead-go"
    shutil.copytree(FIXTURES / "repos" / "dead-go", go)
    data = json.loads(run_cli("dead", "-p", str(go), "--json").stdout)
    # exported names are the package's API; validate_fast.go another build's copy; cmd/app/main.go a program
    assert data["orphan_files"] == []
    assert [c["path"] for c in data["coupling"]] == []  # one package: nothing crosses a directory


def test_typescript_constructors_accessors_and_values(dead: Callable[..., dict[str, dict[str, Any]]]) -> None:
    found = dead("dead-ts")
    assert "Cart.constructor" not in found  # runs on `new Cart()`
    assert "toLabel" not in found  # handed to `map` as a callback
    assert "_case" not in found  # `const _case = internal._case`, exported as `case`
    assert found["Cart.labels"]["confidence"] == 0.6
    assert "forgotten" in found
    size, to_json = found["Cart.size"], found["Cart.toJSON"]
    assert size["confidence"] == 0.3 and "an accessor is read as a property" in size["reason"]
    assert to_json["confidence"] == 0.3 and "the standard library calls" in to_json["reason"]


def test_coupling_counts_other_directories(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    root = tmp_path / "app"
    files = {
        "app/core/util.py": "def helper() -> int:\n    return 1\n",
        "app/api/views.py": "from app.core.util import helper\n\n\ndef view() -> int:\n    return helper()\n",
        "app/jobs/run.py": "from app.core.util import helper\nfrom app.api.views import view\n\n\n"
                           "def job() -> int:\n    return helper() + view()\n\n\n"
                           "if __name__ == '__main__':\n    job()\n",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    data = json.loads(run_cli("dead", "-p", str(root), "--json").stdout)
    coupling = {c["path"]: (c["fan_in"], c["fan_out"]) for c in data["coupling"]}
    assert coupling["app/core/util.py"] == (2, 0)  # used from app/api and app/jobs
    assert coupling["app/jobs/run.py"] == (0, 2)
    assert coupling["app/api/views.py"] == (1, 1)
    assert "used from / uses" in run_cli("dead", "-p", str(root)).stdout


def test_rust_calls_inside_macro_arguments_are_uses(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    root = tmp_path / "crate"
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "crate"\nversion = "0.1.0"\n')
    (root / "src" / "lib.rs").write_text(
        "fn checked(n: u32) -> bool { n > 0 }\n\n"
        "fn forgotten() -> u32 { 0 }\n\n"
        "pub fn run(n: u32) -> u32 {\n    debug_assert!(checked(n));\n    println!(\"{}\", n.count_ones());\n    n\n}\n"
        "\n#[cfg(test)]\nmod tests;\n"
    )
    (root / "src" / "tests.rs").write_text("fn fixture() -> u32 { 1 }\n")  # `mod tests;`: test code
    data = json.loads(run_cli("dead", "-p", str(root), "--json").stdout)
    unused = {d["qualified_name"] for d in data["unused"]}
    assert "lib.checked" not in unused  # called inside `debug_assert!(...)`, a token tree to the grammar
    assert "lib.forgotten" in unused
    assert not any(d["path"] == "src/tests.rs" for d in data["unused"])


def test_rust_macros_and_names_in_token_trees_are_uses(dead: Callable[..., dict[str, dict[str, Any]]]) -> None:
    found = dead("dead-rust", "--include-tests")
    used = {
        "macros.cfg_rt",  # `cfg_rt! { ... }` at item level in another module
        "macros.cfg_net",  # invoked inside `cfg_rt!`'s block: tokens to the grammar
        "net.heap_extend",  # passed whole to a macro: `extend!(v, heap_extend)`
        "local.LocalData",  # written only inside `thread_local!(...)`
        "flags.Alpha",  # unit structs as values: `&[&Alpha, &Beta]`
        "flags.Beta",
        "flags.tests.s",  # called inside `named!(alpha, s("alpha"), ...)` at the top of `mod tests`
        "flags.tests.named",  # a `macro_rules!` of `mod tests`, invoked at its top level
        "platform.device_num",  # `#[cfg(unix)]` and `#[cfg(windows)]`: another build's copy is called
        "tool.flags.render",  # `super::render` from tool/flags/help.rs, a module of `[[bin]] path = "tool/main.rs"`
    }
    assert not used & found.keys()
    for name in ("macros.cfg_never", "net.forgotten", "local.NeverBuilt", "tool.flags.stale",
                 "flags.tests.unused_helper"):
        assert found[name]["confidence"] == 0.9, name
    assert "flags.tests.unused_helper" not in dead("dead-rust")  # `mod tests { }` is test code, as tests.rs is
