"""TypeScript (and a JavaScript file) bound like Python: the same method name on several classes,
`extends` and `super`, import aliases, `import * as`, default imports, re-exports through an
index.ts, a directory's index file, `.js` specifiers of `.ts` files, CommonJS `require`, typed
fields and constructor parameter properties, `new Foo().m()`, return types, a module constant made
by a call, interface members, parameters of callbacks typed by the callee's signature, `for...of`
over typed arrays, destructuring, `x!`, `as` casts, `Partial<T>`, constructor parameter properties,
typed interface properties, narrowing by `instanceof` and type guards, and members of primitives
(`string[]`, `any`) never guessed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

from codefathom.service import Codefathom

MODELS, REPO, LIB = "src/models.ts", "src/repo.ts", "src/lib/index.ts"
# (path, line) of each reference -> (path and qualified name of the definition it means, label)
EXPECTED = {
    ("src/models.ts", 9): ((MODELS, "Base"), "exact"),  # class User extends Base
    ("src/models.ts", 11): ((MODELS, "Base.save"), "exact"),  # super.save()
    ("src/models.ts", 12): ((MODELS, "User.touch"), "exact"),  # this.touch()
    ("src/repo.ts", 6): ((MODELS, "User.find"), "exact"),  # new U().find() with `User as U`
    ("src/repo.ts", 10): ((MODELS, "Order"), "exact"),  # new models.Order() with `import * as models`
    ("src/repo.ts", 15): ((MODELS, "User"), "exact"),
    ("src/service.ts", 11): ((MODELS, "Order"), "exact"),  # from "./models.js"
    ("src/service.ts", 14): ((REPO, "Repo"), "exact"),  # re-exported by index.ts: `export *`
    ("src/service.ts", 18): ((REPO, "Repo.find"), "high"),  # this.repo: a typed field
    ("src/service.ts", 19): ((REPO, "Repo.find"), "high"),  # constructor(private readonly users: Repo)
    ("src/service.ts", 20): ((MODELS, "Order.find"), "high"),  # order = new Order()
    ("src/service.ts", 21): ((REPO, "makeUser"), "exact"),
    ("src/service.ts", 22): ((MODELS, "User.save"), "high"),  # makeUser(): U
    ("src/service.ts", 23): ((MODELS, "Money"), "exact"),  # a default import
    ("src/service.ts", 24): ((MODELS, "Money.amount"), "high"),
    ("src/service.ts", 25): ((LIB, "helper"), "exact"),  # "./lib": the directory's index.ts
    ("src/service.ts", 26): ((MODELS, "User.touch"), "exact"),  # `export { User } from`, new User().touch()
    ("src/service.ts", 32): (("src/service.ts", "Service.find"), "exact"),
    ("src/legacy.js", 4): ((MODELS, "Order"), "exact"),  # const { Order } = require("./models")
    ("src/legacy.js", 7): ((REPO, "Repo"), "exact"),  # const repo = require("./repo")
    ("src/legacy.js", 11): ((REPO, "Repo.find"), "high"),  # this.repo = new repo.Repo()
    ("src/usage.ts", 4): ((LIB, "trim"), "exact"),  # `export const trim = makeTrimmer()`: a module constant
    ("src/usage.ts", 8): ((LIB, "Store.find"), "high"),  # a member of an interface, on a parameter typed by it
    # Parameters of functions passed to a call or `new`, typed by the callee's signature:
    ("src/usage.ts", 20): ((MODELS, "User.touch"), "high"),  # eachUser((user, index) => user.touch(), ...)
    ("src/usage.ts", 21): ((MODELS, "Order.validate"), "high"),  # its second, optional callback
    ("src/usage.ts", 24): ((MODELS, "Order.find"), "high"),  # new Task(function (order) {...}): `this:` skipped
    ("src/usage.ts", 26): ((MODELS, "User.find"), "high"),  # another arrow's `user`, same function
    ("src/usage.ts", 31): (("src/lib/visit.ts", "shoutOut"), "exact"),  # `export var x = make() as (...) => T`
    ("src/usage.ts", 35): ((LIB, "Store.find"), "high"),  # through `type SizedStore = Store & {...}`
    ("src/flow.ts", 14): (("src/flow.ts", "Listener.notify"), "high"),  # for (const x of this.xs), xs: Listener[]
    ("src/flow.ts", 17): (("src/flow.ts", "Listener.notify"), "high"),  # const { pending } = this; Partial<Listener>
    ("src/flow.ts", 18): ((MODELS, "User.touch"), "exact"),  # const { users: all } = this; all[0]
    ("src/flow.ts", 19): ((MODELS, "User.touch"), "exact"),  # this.users.shift()!: readonly User[]
    ("src/flow.ts", 21): ((MODELS, "User.touch"), "high"),  # const first = this.users[0]!
    ("src/flow.ts", 23): ((MODELS, "User.touch"), "high"),  # const cast = given as User
    ("src/flow.ts", 38): (("src/flow.ts", "Worker.onDone"), "exact"),  # a constructor parameter property
    ("src/flow.ts", 39): (("src/flow.ts", "Listener.notify"), "high"),  # an interface's property: its type
    ("src/flow.ts", 58): (("src/aliases.ts", "try_"), "exact"),  # `export { try_ as attempt }`, both ways in
    ("src/flow.ts", 64): (("src/clock.ts", "Clock.sleep"), "high"),  # `clock.Clock`: the interface, not the const
    ("src/flow.ts", 65): (("src/clock.ts", "Clock.sleep"), "high"),  # `import type { Clock }`: the same
    ("src/flow.ts", 72): ((MODELS, "Order.validate"), "exact"),  # const queue = [new Order()]
    ("src/flow.ts", 73): (("src/flow.ts", "isArray"), "exact"),  # const { isArray } = Array: a module constant
    ("src/flow.ts", 84): ((MODELS, "User.touch"), "high"),  # if (isUser(value)): `value is User`
    ("src/flow.ts", 86): ((MODELS, "Order.validate"), "high"),  # if (other instanceof Order)
}
NEVER_BOUND = {
    ("src/service.ts", 25),  # helper(key).find: helper returns a string (its call binds, not .find)
    ("src/service.ts", 30),  # thing.find: `any`
    ("src/service.ts", 31),  # names.find: `string[]`
    ("src/usage.ts", 27),  # loose((order) => order.find()): `order: any`, though other arrows' `order` is an Order
}
DECOYS = {
    ("src/flow.ts", "Listener.notify"), ("src/flow.ts", "Worker.onDone"), (MODELS, "Base.find"),
    (MODELS, "User.find"), (MODELS, "Order.find"), (REPO, "Repo.find"), ("src/aliases.ts", "String$"),
    ("src/clock.ts", "Tag.sleep"),
}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    shutil.copytree(FIXTURES / "repos" / "bindings-ts", tmp_path / "bindings-ts")
    return Codefathom(tmp_path / "bindings-ts")


def bound_refs(service: Codefathom) -> dict[tuple[str, int], set[tuple[tuple[str, str], str, str]]]:
    found: dict[tuple[str, int], set[tuple[tuple[str, str], str, str]]] = {}
    for path, qualified in {target for target, _ in EXPECTED.values()} | DECOYS:
        response = service.refs(qualified, fresh=False)
        ids = {s.id for s in response.symbols if s.path == path and s.qualified_name == qualified}
        assert ids, (path, qualified)
        for ref in response.references:
            if ref.target_id in ids and ref.kind in ("call", "inherit"):
                found.setdefault((ref.path, ref.line), set()).add(((path, qualified), ref.label, ref.name))
    return found


def test_typescript_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    service.index()
    found = bound_refs(service)
    for site, (target, label) in EXPECTED.items():
        assert (target, label) in {(t, lab) for t, lab, _ in found.get(site, set())}, \
            f"{site}: {found.get(site)} has no {target} {label}"
    wrong = {site: found[site] for site in NEVER_BOUND if any(name == "find" for *_, name in found.get(site, ()))}
    assert not wrong, wrong
    assert ("src/usage.ts", 13) not in found  # a local `const trim = () => ...` hides the module's `trim`
    # a parameter of a function chosen by a conditional, passed to `new Task(...)`
    assert ((MODELS, "Order.find"), "high", "find") in found[("src/flow.ts", 73)]
    assert ("src/flow.ts", 87) not in found  # `value: any` where no test narrows it
    assert ("src/aliases.ts", 7) not in found  # String(1) in the file exporting `String$ as String` is the builtin


def test_typescript_imports_resolve_to_files_and_packages_are_external(service: Codefathom) -> None:
    service.index()
    deps = service.deps("src/service.ts", fresh=False)
    # names re-exported by index.ts lead to the files defining them, as in Python
    assert {"src/models.ts", "src/lib/index.ts", "src/repo.ts"} <= {
        child.path for child in deps.roots[0].children
    }
    assert deps.external["src/service.ts"] == ["@angular/core"]


def test_dead_checks_typescript(service: Codefathom) -> None:
    service.index()
    dead = service.dead(fresh=False)
    names = {(d.symbol.path, d.symbol.qualified_name) for d in dead.unused + dead.public_api}
    assert ("src/models.ts", "Order.archive") in names  # nothing calls it
    called = {("src/models.ts", "User.touch"), ("src/models.ts", "Order.find"), (REPO, "makeUser")}
    assert not (called | {("src/models.ts", "Order.validate")}) & names  # validate: by a callback's parameter only


def test_typescript_parameters_hide_module_names_outside_functions_and_when_destructured(service: Codefathom) -> None:
    service.index()
    response = service.refs("announce", fresh=False)
    ids = {s.id for s in response.symbols if s.path == "src/flow.ts"}
    lines = {ref.line for ref in response.references if ref.target_id in ids and ref.kind == "call"}
    assert lines == {53}  # not 51 (a parameter of an arrow passed to run()) nor 52 (`({ announce }) =>`)


def test_typescript_names_exported_under_an_alias_bind_from_importers_only(service: Codefathom) -> None:
    service.index()
    response = service.refs("try_", fresh=False)
    ids = {s.id for s in response.symbols if s.path == "src/aliases.ts"}
    calls = [(r.path, r.line, r.name) for r in response.references if r.target_id in ids and r.kind == "call"]
    assert sorted(calls) == [("src/flow.ts", 58, "attempt"), ("src/flow.ts", 58, "attempt")]


def test_a_module_reached_at_two_depths_of_re_exports_answers_each_as_itself(tmp_path: Path) -> None:
    # `d.ts` is asked for `deep` twice while imports are resolved: past the re-export limit from
    # `a_first.ts` (a -> b -> c -> d), within it from `z_second.ts` (c -> d -> e). Answers are
    # remembered during the pass; the first must not stand for the second.
    root = tmp_path / "barrels"
    (root / "src").mkdir(parents=True)
    for name, following in (("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")):
        (root / "src" / f"{name}.ts").write_text(f'export * from "./{following}";\n')
    (root / "src" / "e.ts").write_text("export function deep(): number {\n  return 1;\n}\n")
    (root / "src" / "a_first.ts").write_text('import { deep } from "./a";\n\nexport const first = deep();\n')
    (root / "src" / "z_second.ts").write_text('import { deep } from "./c";\n\nexport const second = deep();\n')
    service = Codefathom(root)
    service.index()
    response = service.refs("deep", fresh=False)
    (definition,) = [s for s in response.symbols if s.path == "src/e.ts"]
    labels = {ref.path: ref.label for ref in response.references if ref.target_id == definition.id}
    assert labels.get("src/z_second.ts") == "exact", labels
    assert labels.get("src/a_first.ts") != "exact", labels  # four re-exports away: past the limit
