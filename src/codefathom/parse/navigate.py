"""Walks of a syntax tree that stay linear in its size: how deep it goes, the parents and siblings of chosen nodes.

tree-sitter's Node.parent and prev_sibling search down from the root each time: n nested nodes cost n² steps.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node, TreeCursor

__all__ = ["MAX_SYNTAX_DEPTH", "deeper_than", "Ancestry"]

# Syntax levels below which no query match starts (`QueryCursor.set_max_start_depth`): the query
# cursor carries every partial match of the nodes above the one it visits, so its cost grows with
# nodes times depth. Real code stays under ~250 (a chain `a + b + ...` is as deep as it is long).
MAX_SYNTAX_DEPTH = 500


def deeper_than(root: Node, limit: int) -> Node | None:
    """The first node (in document order) more than `limit` levels below `root`, if any.

    A subtree with too few nodes to reach that deep is skipped whole, so an ordinary file costs a
    few hundred steps; a deep one, about `limit` steps down to the first node past it."""
    cursor = root.walk()
    depth = 0
    while True:
        if depth > limit:
            return cursor.node
        node = cursor.node
        # descendant_count counts the node itself: its subtree reaches depth + count - 1 at most.
        if node is not None and depth + node.descendant_count - 1 > limit and cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return None
            depth -= 1


class Ancestry:
    """The parent and previous sibling of each target node and of each node above it, from one walk
    in document order: every node on the way is visited once, however many targets share it."""

    def __init__(self, root: Node, targets: Iterable[Node]) -> None:
        self._parents: dict[int, Node] = {}
        self._siblings: dict[int, tuple[list[Node], dict[int, int]]] = {}
        self.visited = 1  # nodes the walk stepped on, the root included
        cursor = root.walk()
        path = [root]  # the cursor's node and the nodes above it
        for target in sorted(targets, key=lambda n: (n.start_byte, -n.end_byte)):
            start, end, wanted = target.start_byte, target.end_byte, target.id
            while path[-1].id != wanted:
                node = path[-1]
                if node.start_byte <= start and end <= node.end_byte:
                    if not cursor.goto_first_child():
                        break  # a leaf spanning the target: not in this tree
                    path.append(self._step(cursor, node))
                    continue
                # Before the target: on to the next sibling, up first when there is none (a node
                # left upwards holds no more of what lies ahead: the targets come in document order).
                while not cursor.goto_next_sibling():
                    if not cursor.goto_parent():
                        break
                    path.pop()
                else:
                    path[-1] = self._step(cursor, path[-2])
                    continue
                break  # past the last node: not in this tree

    def _step(self, cursor: TreeCursor, parent: Node) -> Node:
        node = cursor.node
        assert node is not None
        self._parents[node.id] = parent
        self.visited += 1
        return node

    def parent(self, node: Node) -> Node | None:
        """The node's parent: from the walk when it passed the node, else tree-sitter's search."""
        found = self._parents.get(node.id)
        return found if found is not None else node.parent

    def last_child(self, node: Node) -> Node:
        """The node's last child (it must have one), remembered as the node's child."""
        child = node.children[-1]
        self._parents[child.id] = node
        return child

    def prev_sibling(self, node: Node) -> Node | None:
        """The sibling before the node (named or not), from its parent's children, read once per parent."""
        parent = self.parent(node)
        if parent is None:
            return None
        known = self._siblings.get(parent.id)
        if known is None:
            children = parent.children
            known = self._siblings[parent.id] = (children, {child.id: i for i, child in enumerate(children)})
        children, index = known
        position = index.get(node.id)
        return children[position - 1] if position else None
