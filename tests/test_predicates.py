"""A question that asks whether something holds ("returns true if ...") is answered by a predicate:
a definition named or declared to answer yes or no, through the CLI, without vectors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import names_without_feature, write_files

from codefathom.search.query import plan_query

pytestmark = pytest.mark.usefixtures("store")

FILES = {
    "net/connection.py": '''
        """A connection to a peer over a socket."""


        class Connection:
            def __init__(self, sock):
                """A connection over an open socket."""
                self.sock = sock
                self.peer_gone = False

            def close(self):
                """Close the connection and release its socket."""
                self.sock.close()

            def reconnect(self):
                """Open the connection to the peer again after it was closed, with a new socket."""
                self.sock = self.sock.reopen()
    ''',
    "net/pool.py": '''
        """Connections kept open for reuse."""


        def drop_closed(connections):
            """Remove every connection whose peer has closed its socket from the pool."""
            return [c for c in connections if not peer_done(c)]


        def peer_end(connection):
            """The peer's end of a connection: the address its socket is bound to."""
            return connection.sock.getpeername()


        def peer_done(connection: "Connection") -> bool:
            return connection.peer_gone
    ''',
}
QUESTION = "Returns true if the peer closed its end of the connection"


@pytest.mark.parametrize(("text", "asks"), [
    (QUESTION, True),
    ("Checks whether the host is trusted", True),
    ("Determines if the command is runnable", True),
    ("True when the value includes read-closed readiness", True),
    ("where do we retry failed uploads?", False),
    ("Returns the number of tasks stolen", False),
])
def test_a_query_that_asks_whether_is_told_apart(text: str, asks: bool) -> None:
    assert plan_query(text).asks_whether is asks


def test_a_yes_or_no_question_finds_the_predicate(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    project = write_files(tmp_path / "net", FILES)
    result = run_cli("search", QUESTION, "--path", str(project), "--json", "-n", "5")
    assert result.exit_code == 0, result.output
    names = [hit["name"] for hit in json.loads(result.output)["results"]]
    assert names[0] == "peer_done", names
    assert names_without_feature(project, QUESTION, "predicate", 5).index("peer_done") > names.index("peer_done")
