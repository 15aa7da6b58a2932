"""Bunsetsu sentences: short-unit words (:class:`Token`) grouped into
bunsetsu, each with the index of its head bunsetsu."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence

__all__ = ["Token", "Bunsetsu", "BunsetsuSentence", "group_bunsetsu", "FUNCTION_POS", "PUNCT_POS"]

# UniDic top-level POS of function words and punctuation.
FUNCTION_POS = {"助詞", "助動詞"}
PUNCT_POS = {"補助記号"}


@dataclass
class Token:
    """A short-unit word of a UD Japanese sentence."""

    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    head: int
    deprel: str
    bi: Optional[str] = None  # gold bunsetsu boundary label (B/I) when annotated
    pos: str = field(init=False, repr=False)   # UniDic POS, level 1 (computed once)
    pos2: str = field(init=False, repr=False)  # levels 1-2

    def __post_init__(self):
        parts = self.xpos.split("-")
        self.pos = parts[0]
        self.pos2 = "-".join(parts[:2])


@dataclass
class Bunsetsu:
    tokens: List[Token]
    head: int = -1  # index of the head bunsetsu, -1 for the root

    @property
    def surface(self) -> str:
        return "".join(t.form for t in self.tokens)


@dataclass
class BunsetsuSentence:
    bunsetsu: List[Bunsetsu]
    derived_segmentation: bool = False
    sent_index: int = 0

    def __len__(self) -> int:
        return len(self.bunsetsu)

    @property
    def heads(self) -> List[int]:
        return [b.head for b in self.bunsetsu]


def group_bunsetsu(tokens: List[Token], labels: Sequence[str]) -> List[Bunsetsu]:
    """The bunsetsu of a sentence's tokens given B/I labels; a bunsetsu's head is
    the bunsetsu that holds the head of its external dependency."""
    groups: List[Bunsetsu] = []
    for t, lab in zip(tokens, labels):
        if lab == "B" or not groups:
            groups.append(Bunsetsu([]))
        groups[-1].tokens.append(t)
    owner = {t.id: k for k, b in enumerate(groups) for t in b.tokens}
    for k, b in enumerate(groups):
        external = [t for t in b.tokens if t.head == 0 or owner[t.head] != k]
        # The last non-punctuation word whose head lies outside names the head bunsetsu.
        pick = [t for t in external if t.pos not in PUNCT_POS] or external
        if pick:
            t = pick[-1]
            b.head = -1 if t.head == 0 else owner[t.head]
        else:  # only possible for malformed trees: attach to the next bunsetsu
            b.head = k + 1 if k + 1 < len(groups) else -1
    return groups
