"""A first index's references held back from PostgreSQL until they are bound, in a file on disk:
each is then written once, with its binding, instead of written and then updated.

An update of every reference costs PostgreSQL more than writing them all (gson: 0.66 s against
0.21; its five indexes take every new row version), and its arrays cost the writer as much again.
Held on disk, a run of rows a file (pickled, and as COPY text), what a project holds does not grow
its memory (java.base: 331,905 references, 50 MB on disk), and a forked binder reads the runs it
binds from the same file (`os.pread`: the file position stays unused).
"""

from __future__ import annotations

import bisect
import os
import pickle
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from codefathom.graphsource import BindingRow, RefRow

__all__ = ["HeldRefs", "REF_COLUMNS", "copy_text"]

# A held row, as the refs table's COPY takes it (then its binding: target, confidence, label, candidates).
REF_COLUMNS = "id, project_id, file_id, name, kind, receiver, line, col, scope, arity, arguments"
_BOUND_COLUMNS = f"{REF_COLUMNS}, target_id, confidence, label, candidates"
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def copy_text(value: object) -> str:
    """A value as COPY's text format writes it: NULL as \\N, and text with its separators escaped."""
    if value is None:
        return "\\N"
    if isinstance(value, str):
        return value.translate(_ESCAPES)
    return str(value)  # (a float's shortest form reads back as the same double)


class HeldRefs:
    """Reference rows (REF_COLUMNS) held by file, each file's a run of consecutive ids added in id
    order; then read back a range of ids at a time (`between`) and written with their bindings.
    A run is kept twice, pickled for the binder and as COPY text for the index."""

    columns = _BOUND_COLUMNS

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()
        self._fd = self._file.fileno()
        self._size = 0
        self._firsts: list[int] = []  # each run's first id, ascending
        self._places: list[tuple[int, int, int, int]] = []  # each run's offset, pickle's and text's bytes, rows
        self._written = bytearray()  # per id from the first run's: 1 once the row went to the index
        self.count = 0

    def add(self, rows: Sequence[tuple[object, ...]]) -> None:
        """A file's rows, in id order, after those of every file added before."""
        if not rows:
            return
        pickled = pickle.dumps(list(rows), pickle.HIGHEST_PROTOCOL)
        text = "\n".join([_copy_line(row) for row in rows]).encode()
        data = pickled + text
        written = 0
        while written < len(data):
            written += os.pwrite(self._fd, data[written:], self._size + written)
        self._firsts.append(_id(rows[0]))
        self._places.append((self._size, len(pickled), len(text), len(rows)))
        self._size += len(data)
        self.count += len(rows)

    def _runs(self, first: int, last: int) -> Iterator[int]:
        """The indexes of the runs holding ids from `first` to `last`."""
        index = max(bisect.bisect_right(self._firsts, first) - 1, 0)
        while index < len(self._firsts) and self._firsts[index] <= last:
            yield index
            index += 1

    def between(self, first: int, last: int) -> list[RefRow]:
        """The references with ids from `first` to `last`, in id order, as the binder reads them."""
        found = []
        for index in self._runs(first, last):
            offset, size, _, _ = self._places[index]
            run: list[tuple[Any, ...]] = pickle.loads(os.pread(self._fd, size, offset))
            found += [RefRow(row[0], *row[2:7], *row[8:]) for row in run if first <= row[0] <= last]
        return found

    def bound(self, bindings: Iterable[BindingRow]) -> str:
        """COPY text of the rows of these bindings with them, each row once (a batch both processes
        of a forked binding bound comes twice), leaving out the reads binding labels local: the
        index drops them (see GraphLookup.drop_local_reads)."""
        by_id = {binding[0]: binding for binding in bindings}
        if not by_id or not self._firsts:
            return ""
        low = self._firsts[0]
        out = []
        for index in self._runs(min(by_id), max(by_id)):
            offset, size, text_size, _ = self._places[index]
            first = self._firsts[index]
            lines = os.pread(self._fd, text_size, offset + size).decode().split("\n")
            for ref_id in range(first, first + len(lines)):
                binding = by_id.get(ref_id)
                if binding is None or self._taken(ref_id - low):
                    continue
                _, target, confidence, label, candidates = binding
                line = lines[ref_id - first]
                if label == "local" and line.split("\t", 5)[4] == "read":
                    continue
                out.append(f"{line}\t{_NULL if target is None else target}\t{confidence!r}\t{copy_text(label)}"
                           f"\t{candidates}\n")
        return "".join(out)

    def rest(self) -> list[BindingRow]:
        """A binding, unbound, for each row not written yet (binding writes all; none should be left)."""
        if not self._firsts:
            return []
        low = self._firsts[0]
        return [
            (first + i, None, 0.0, "unbound", 0)
            for first, (_, _, _, rows) in zip(self._firsts, self._places, strict=True) for i in range(rows)
            if not (first + i - low < len(self._written) and self._written[first + i - low])
        ]

    def _taken(self, offset: int) -> bool:
        """Whether the row at `offset` (its id less the first) was written already; marks it written."""
        if offset >= len(self._written):
            self._written.extend(bytes(offset + 1 - len(self._written) + 4096))
        taken = bool(self._written[offset])
        self._written[offset] = 1
        return taken

    def close(self) -> None:
        self._file.close()


_NULL = "\\N"


def _copy_line(row: Sequence[object]) -> str:
    """A held row as a line of COPY text (without its end): most need no escape, seen at once."""
    scope = row[8]
    texts = f"{row[3]}{row[4]}{row[5]}{'' if scope is None else scope}{row[10]}"  # (the rest are numbers)
    if "\t" in texts or "\n" in texts or "\r" in texts or "\\" in texts:
        return "\t".join([copy_text(value) for value in row])
    return (f"{row[0]}\t{row[1]}\t{row[2]}\t{row[3]}\t{row[4]}\t{row[5]}\t{row[6]}\t{row[7]}"
            f"\t{_NULL if scope is None else scope}\t{row[9]}\t{row[10]}")


def _id(row: Sequence[object]) -> int:
    value = row[0]
    assert isinstance(value, int)
    return value
