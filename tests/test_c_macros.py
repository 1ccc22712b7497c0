"""C and C++ attribute-like macros (`EIGEN_DEVICE_FUNC inline`, `UV_EXTERN int`, `class Q_CORE_EXPORT`)
do not cost the declarations after them, through the CLI: each member is a definition of its own,
with its doc; a macro that is a type, a call or a declaration of its own is left as written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import no_index, write_files

from codefathom.parse.hooks.cmacros import without_attribute_macros

pytestmark = pytest.mark.usefixtures("store")

FILES = {
    "include/box.h": """
        #define EIGEN_DEVICE_FUNC
        #define EIGEN_STRONG_INLINE inline
        #define EIGEN_NOEXCEPT noexcept
        #define EIGEN_DEVICE_REF &

        namespace geo {
        /** An axis-aligned box. */
        class EXPORT_API AlignedBox {
         public:
          /** Default constructor initializing a null box. */
          EIGEN_DEVICE_FUNC inline AlignedBox() { setEmpty(); }

          /** Constructs a null box with the dimension of the ambient space. */
          EIGEN_DEVICE_FUNC inline explicit AlignedBox(int dim) : m_dim(dim) { setEmpty(); }

          EIGEN_DEVICE_FUNC ~AlignedBox() {}

          /** The dimension of the ambient space. */
          EIGEN_DEVICE_FUNC int dim() const EIGEN_NOEXCEPT { return m_dim; }

          /** Makes the box empty. */
          EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE
          void setEmpty() { m_dim = 0; }

          /** The volume enclosed by the box. */
          EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE const double& volume() const { return m_volume; }

         private:
          int m_dim;
          double EIGEN_DEVICE_REF m_volume;
        };

        template<typename T> T pload(const T* from);

        /** Loads a packet of floats from aligned memory. */
        template<> EIGEN_STRONG_INLINE float pload<float>(const float* from) { return *from; }
        }
    """,
    "src/loop.c": """
        #define UV_EXTERN
        #define RB_GENERATE_STATIC(name, type, field, cmp) static int name##_cmp(void) { return 0; }

        typedef struct uv_loop_s { int alive; } uv_loop_t;
        typedef long LONG;

        static LONG loop_count;
        static const LONG loop_limit = 8;

        /* Initializes a loop. */
        UV_EXTERN int uv_loop_init(uv_loop_t* loop) {
          loop->alive = 1;
          return 0;
        }

        UV_EXTERN int uv_loop_alive(const uv_loop_t* loop) {
          return loop->alive;
        }

        RB_GENERATE_STATIC(watcher_root, watcher_list, entry, compare_watchers)
    """,
}


@pytest.fixture
def project(tmp_path: Path, run_cli: Callable[..., Result]) -> Path:
    root = write_files(tmp_path / "macros", FILES)
    assert run_cli("index", str(root), "--quiet").exit_code == 0
    return root


def _signatures(defs: list[dict[str, Any]]) -> list[str]:
    found = []
    for item in defs:
        found.append(item["sig"])
        found.extend(_signatures(item.get("defs", [])))
    return found


def test_members_after_attribute_macros_are_definitions(project: Path, run_cli: Callable[..., Result]) -> None:
    outline = json.loads(run_cli("outline", str(project), "--json", "--tokens", "4000").output)
    signatures = {sig for d in outline["dirs"] for f in d["files"] for sig in _signatures(f["defs"])}
    for member in ("AlignedBox()", "explicit AlignedBox(int dim)", "~AlignedBox()", "int dim() const",
                   "void setEmpty()", "const double& volume() const", "float pload<float>(const float* from)",
                   "int uv_loop_init(uv_loop_t* loop)", "int uv_loop_alive(const uv_loop_t* loop)"):
        assert any(member in sig for sig in signatures), (member, signatures)
    assert any(sig.startswith("class") and "AlignedBox" in sig for sig in signatures), signatures


def test_a_member_after_an_attribute_keeps_its_doc(project: Path, run_cli: Callable[..., Result]) -> None:
    reply = json.loads(run_cli("search", "makes the box empty", "--path", str(project), "--json").output)
    assert reply["results"][0]["name"] == "setEmpty", reply["results"]
    reply = json.loads(run_cli("search", "loads a packet of floats", "--path", str(project), "--json").output)
    assert reply["results"][0]["name"].startswith("pload"), reply["results"]


def test_the_macros_themselves_stay_symbols(project: Path, run_cli: Callable[..., Result]) -> None:
    for macro in ("EIGEN_DEVICE_FUNC", "UV_EXTERN", "RB_GENERATE_STATIC"):
        reply = json.loads(run_cli("symbol", macro, "--path", str(project), "--json").output)
        assert reply["symbols"], macro


@no_index
def test_what_is_blanked_and_what_is_not() -> None:
    def blanked(code: str) -> str:
        out = without_attribute_macros(code.encode()).decode()
        assert len(out) == len(code) and out.count("\n") == code.count("\n")
        return " ".join(out.split())

    assert blanked("FMT_DEPRECATED(\"use g\") void f();") == "void f();"
    assert blanked("DWORD WINAPI GetX(void);") == "WINAPI GetX(void);"  # still a name after a type
    assert blanked("Scalar EIGEN_DEVICE_REF m_value;") == "Scalar m_value;"
    assert blanked("EIGEN_STRONG_INLINE const Scalar& coeff() const;") == "const Scalar& coeff() const;"
    assert blanked("EIGEN_UNROLL_LOOP\nfor (;;) {}") == "for (;;) {}"
    assert blanked("if FMT_CONSTEXPR20 (copy) f();") == "if (copy) f();"
    assert blanked("A_ATTR B_ATTR C_ATTR D_ATTR E_ATTR int f();") == "int f();"  # however many in a row
    for kept in ("static HANDLE handle;", "typedef LONG NTSTATUS;", "struct FOO_BAR baz;", "return FOO_BAR;",
                 "x = (int) FOO_MAX;", "if (x) FOO_BAR;", "int FOO_BAR = 3;", "case FOO_X: break;",
                 "#define EIGEN_DEVICE_FUNC inline", "/* EIGEN_DEVICE_FUNC inline */", "s = \"UV_EXTERN int\";",
                 "RB_GENERATE_STATIC(a, b)\nstatic int g(void);", "TEST_F(Suite, Name) {\n}",
                 "void MY_FUNC(int x) { }", "static MY_TYPE foo(void);", "x = a->FOO_X y;", "MY_TYPE const x;"):
        assert blanked(kept) == " ".join(kept.split()), kept
