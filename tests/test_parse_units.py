"""How files become units beyond the per-language fixtures: splitting, top-level code, fallbacks."""

from __future__ import annotations

from codefathom.parse import parse


def test_an_oversized_function_is_split_into_parts_that_keep_its_identity() -> None:
    body = "\n".join(f"    total += {i}" for i in range(400))
    parsed = parse("pkg/big.py", f"def accumulate(total):\n{body}\n    return total\n")
    parts = [u for u in parsed.units if u.name == "accumulate"]
    assert len(parts) == 7
    assert {u.qualified_name for u in parts} == {"pkg.big.accumulate"}
    assert [u.part for u in parts] == list(range(1, 8))
    assert (parts[0].start_line, parts[-1].end_line) == (1, 402)
    assert all(u.signature == "def accumulate(total)" for u in parts)


def test_top_level_code_between_definitions_is_kept_in_module_units() -> None:
    text = "import os\n\ndef f():\n    pass\n\nCONSTANT = os.sep\n\nif __name__ == '__main__':\n    f()\n"
    module = [u for u in parse("tool.py", text).units if u.kind == "module"]
    assert len(module) == 1
    assert "import os" in module[0].content and "CONSTANT = os.sep" in module[0].content
    assert "def f" not in module[0].content


def test_a_class_reads_as_its_outline_with_method_bodies_left_to_the_methods() -> None:
    text = "class A:\n    x = 1\n\n    def m(self):\n        return 'secret body'\n"
    unit = next(u for u in parse("a.py", text).units if u.kind == "class")
    assert "def m(self):" in unit.content
    assert "secret body" not in unit.content


def test_unknown_text_is_split_into_line_windows() -> None:
    text = "\n".join(f"line {i}" for i in range(130))
    parsed = parse("data/notes.cfg", text)
    assert parsed.status == "text"
    assert [(u.start_line, u.end_line) for u in parsed.units] == [(1, 60), (61, 120), (121, 130)]
    assert {u.kind for u in parsed.units} == {"chunk"}


def test_syntax_errors_mark_the_file_partial_and_keep_what_parsed() -> None:
    parsed = parse("x.go", "package x\n\nfunc Good() int { return 1 }\n\nfunc Bad( { \n")
    assert parsed.status == "partial"
    assert parsed.error and "line" in parsed.error
    assert "x.Good" in {u.qualified_name for u in parsed.units}


def test_typescript_the_grammar_cannot_read_is_parsed_whole_and_kept_as_written() -> None:
    # tree-sitter-typescript 0.23 fails on variance annotations and on a generic call signature
    # that starts a line after a member written without `;`, and loses what follows.
    text = (
        "export interface Chunk<in out A, B extends Map<string, A>> {\n"
        "  readonly length: number\n"
        "}\n"
        "export const take: {\n"
        "  (n: number): <A>(self: Chunk<A>) => Chunk<A>\n"
        "  /** the data-first form */\n"
        "  <A>(self: Chunk<A>, n: number): Chunk<A>\n"
        "} = make()\n"
        "export class Queue<out T> {\n"
        "  offer(value: T): boolean {\n"
        "    return true\n"
        "  }\n"
        "}\n"
        "const pick = first(\n"
        "  <A>(a: A) => a,\n"
        ")\n"
    )
    parsed = parse("src/chunk.ts", text)
    assert (parsed.status, parsed.error) == ("ok", None)
    names = {(u.kind, u.name, u.start_line) for u in parsed.units if u.kind != "module"}
    assert {("class", "Chunk", 1), ("class", "Queue", 9), ("method", "offer", 10)} <= names
    chunk = next(u for u in parsed.units if u.name == "Chunk")
    assert chunk.signature == "interface Chunk<in out A, B extends Map<string, A>>"
    assert "".join(u.content for u in parsed.units if u.name == "Queue").startswith("export class Queue<out T> {")


def test_typescript_generic_signatures_after_any_type_and_generic_arrows_as_bodies_parse_whole() -> None:
    # effect 3.10.0 and zod: a generic call signature whose `<` ends its line, one after a member
    # whose type ends in `}`, a curried arrow whose generic body starts the next line, and a
    # variance annotation behind a comment. 17 of effect's 18 files parsed in part came from these.
    text = (
        "export interface ZodObject<\n"
        "  /** @ts-ignore Cast variance */\n"
        "  out Shape extends Record<string, unknown> = {},\n"
        "> {\n"
        "  readonly shape: Shape\n"
        "}\n"
        "export const hasProperty: {\n"
        "  <P extends PropertyKey>(property: P): (self: unknown) => self is { [K in P]: unknown }\n"
        "  <P extends PropertyKey>(self: unknown, property: P): self is { [K in P]: unknown }\n"
        "} = dual(2, check)\n"
        "export const around: {\n"
        "  (that: number): <R>(self: R) => R\n"
        "  <\n"
        "    R\n"
        "  >(self: R, that: number): R\n"
        "} = dual(2, pick)\n"
        "export const fromServices =\n"
        "  <S extends Array<unknown>>(...services: S) =>\n"
        "  <R>(\n"
        "    self: R\n"
        "  ): R => provide(self, services)\n"
        "export function after(): number {\n"
        "  return 1\n"
        "}\n"
    )
    parsed = parse("src/Predicate.ts", text)
    assert (parsed.status, parsed.error) == ("ok", None)
    names = {(u.kind, u.name) for u in parsed.units if u.kind != "module"}
    assert {("class", "ZodObject"), ("function", "fromServices"), ("function", "after")} <= names


def test_a_function_keeps_the_locals_it_names_and_drops_the_others() -> None:
    # Untyped locals serve to drop reads of them; one nothing in the function names again (its
    # references and other hints) is not kept. Module variables always are: other files read them.
    text = (
        "total = compute()\n"
        "def f(request, unused):\n"
        "    conn, cursor = open_all()\n"
        "    render(request)\n"
        "    def inner():\n"
        "        return cursor.fetch()\n"
        "    return conn.close()\n"
    )
    hints = {(h.scope, h.variable, h.kind) for h in parse("app/mod.py", text).facts.hints}
    assert ("app.mod.f", "conn", "local") in hints  # a receiver
    assert ("app.mod.f", "cursor", "local") in hints  # a receiver in a function inside
    assert ("app.mod.f", "unused", "local") not in hints
    assert ("app.mod.f", "request", "local") not in hints  # its read was dropped as a local's
    assert (None, "total", "assign") in hints
