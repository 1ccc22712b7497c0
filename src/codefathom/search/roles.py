"""What a file is for, read from its path: source, test, example or vendored code.

Search weighs results by it; indexing, the graph and context use it to tell tests apart.
"""

from __future__ import annotations

import functools
import re

__all__ = ["path_role"]

_TEST = re.compile(
    r"(^|/)(tests?|__tests__|spec|specs|testing|testdata|test_data|fixtures)/|(^|/)test_[^/]*$"
    r"|(^|/)conftest\.py$|_tests?\.[A-Za-z]+$|\.(test|spec)\.[A-Za-z]+$|_spec\.rb$"
    r"|(^|/)[^/]*Tests?\.(java|kt|cs|scala|swift|php)$"
    # A module of tests named for what it is (Rust's `mod tests;` or `mod test;`, Django's tests.py).
    r"|(^|/)tests\.[A-Za-z]+$|(^|/)test\.rs$"
)
_EXAMPLE = re.compile(r"(^|/)(examples?|samples?|demos?|docs?|benchmarks?|bench)/")
_VENDORED = re.compile(r"(^|/)(vendor|vendored|third_party|thirdparty|external|extern)/")


@functools.lru_cache(maxsize=65536)  # asked for every candidate of every search; paths repeat
def path_role(path: str) -> str:
    """What a file is for, from its path: test, example, vendored or source."""
    if _TEST.search(path):
        return "test"
    if _VENDORED.search(path):
        return "vendored"
    if _EXAMPLE.search(path):
        return "example"
    return "source"
