"""The arc-eager transition system (Nivre 2003, 2008): configurations, the
four transitions and what they allow, and the finishing of partial trees."""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from .reader import DepSentence

__all__ = ["TRANSITIONS", "SH", "RE", "LA", "RA", "ROOT_LABEL", "State", "is_projective", "apply_transitions", "finish_tree"]

TRANSITIONS = ("SH", "RE", "LA", "RA")
SH, RE, LA, RA = range(4)
ROOT_LABEL = "root"


def is_projective(heads: Sequence[int]) -> bool:
    """Whether the tree (heads of words 1..n, 0 = root) has no crossing arcs
    (with the arc from ROOT included)."""
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads, 1)]
    for a, b in arcs:
        for c, d in arcs:
            if a < c < b < d:
                return False
    return True


class State:
    """A configuration: the stack (ROOT, token 0, at the bottom), the next buffer
    token ``b``, and the arcs built so far."""

    __slots__ = ("n", "stack", "b", "heads", "labels", "ldep", "rdep", "ldep2", "rdep2", "lsets", "rsets",
                 "root_done")

    def __init__(self, n: int):
        self.n = n
        self.stack = [0]
        self.b = 1
        self.heads = [-1] * (n + 1)
        self.labels: List[Optional[str]] = [None] * (n + 1)
        self.ldep = [-1] * (n + 1)
        self.rdep = [-1] * (n + 1)
        # Second leftmost / rightmost dependents, and the labels of the left /
        # right dependents of each token (in order of attachment).
        self.ldep2 = [-1] * (n + 1)
        self.rdep2 = [-1] * (n + 1)
        self.lsets: List[List[str]] = [[] for _ in range(n + 1)]
        self.rsets: List[List[str]] = [[] for _ in range(n + 1)]
        self.root_done = False

    def done(self) -> bool:
        return self.b > self.n

    def allowed(self) -> Tuple[bool, bool, bool, bool]:
        s0 = self.stack[-1]
        has_head = s0 > 0 and self.heads[s0] >= 0
        return (True, has_head, s0 > 0 and not has_head, s0 > 0 or not self.root_done)

    def apply(self, t: int, label: Optional[str] = None) -> None:
        s0, b = self.stack[-1], self.b
        if not self.allowed()[t]:
            raise ValueError(f"transition {TRANSITIONS[t]} is not allowed here")
        if t == LA:
            self.heads[s0], self.labels[s0] = b, label
            self.ldep2[b] = self.ldep[b]  # later left arcs reach further left
            self.ldep[b] = s0
            self.lsets[b].append(label)
            self.stack.pop()
        elif t == RA:
            self.heads[b], self.labels[b] = s0, (ROOT_LABEL if s0 == 0 else label)
            self.rdep2[s0] = self.rdep[s0]  # later right arcs reach further right
            self.rdep[s0] = b
            self.rsets[s0].append(self.labels[b])
            self.root_done |= s0 == 0
            self.stack.append(b)
            self.b += 1
        elif t == RE:
            self.stack.pop()
        else:
            self.stack.append(b)
            self.b += 1


def apply_transitions(n: int, moves: Sequence[Tuple[int, Optional[str]]]) -> Tuple[List[int], List[Optional[str]]]:
    """Heads and labels (words 1..n; -1 / None when unattached) after ``moves``."""
    state = State(n)
    for t, label in moves:
        state.apply(t, label)
    return state.heads[1:], state.labels[1:]


def finish_tree(sentence: DepSentence, heads: List[int], labels: List[Optional[str]]) -> Tuple[List[int], List[str]]:
    """Attach the tokens the parser left headless (see the module docstring)."""
    heads, labels = list(heads), list(labels)
    root = next((k for k, h in enumerate(heads) if h == 0), None)
    for k, h in enumerate(heads):
        if h >= 0:
            continue
        if root is None:
            root = k
            heads[k], labels[k] = 0, ROOT_LABEL
        else:
            heads[k], labels[k] = root + 1, ("punct" if sentence.upos[k] == "PUNCT" else "dep")
    return heads, [lab if lab is not None else "dep" for lab in labels]
