"""Feature template specs and the key tables a model file stores for them.

A :class:`FeatureSpec` declares a task's features once: templates, each a
short list of (attribute, position) parts -- the form of the modifier's head
word, the distance of the pair, a flag such as "the modifier begins the
sentence". A feature is a template and its parts' values; its readable name
is generated from the spec (:meth:`FeatureSpec.name`: ``"m.h.w=本"``,
``"dist=2-5"``, a flag's bare name), and that is the name the Python reference
path of a task builds. :class:`FeatureKeys` stores, per feature id of a
model, its template and its parts' codes in per-attribute vocabularies: what
the C++ engine (``_core.FeatureTables``) packs into integer keys, so that a
feature id never costs a string at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["Part", "Template", "FeatureSpec", "FeatureKeys", "MAX_PARTS"]

#: Parts per template (the C++ engine's FeatureSpec::kMaxParts).
MAX_PARTS = 3
#: Templates per spec (key bits above the codes).
MAX_TEMPLATES = 1 << 14


@dataclass(frozen=True)
class Part:
    """One part of a template: an ``attribute`` (``None``: a flag, which holds
    when its position does and adds no value) at a ``position``; ``fallback``
    is the value used where the position exists but holds no unit."""

    attribute: Optional[str]
    position: str
    fallback: Optional[str] = None


@dataclass(frozen=True)
class Template:
    """A named template; ``group`` is the feature group it belongs to."""

    name: str
    parts: Tuple[Part, ...]
    group: str = ""

    @property
    def valued(self) -> bool:
        """Whether a part carries a value (else the template is a flag)."""
        return any(p.attribute is not None for p in self.parts)


class FeatureSpec:
    """Templates over attributes and positions, checked as the C++ engine checks them.

    Parameters
    ----------
    templates : iterable of Template
    attributes, positions : sequence of str, optional
        Their order (what codes and position indices refer to); by default
        in order of first use.
    """

    def __init__(self, templates: Iterable[Template], attributes: Optional[Sequence[str]] = None,
                 positions: Optional[Sequence[str]] = None):
        self.templates: Tuple[Template, ...] = tuple(templates)
        used_a = list(dict.fromkeys(p.attribute for t in self.templates for p in t.parts if p.attribute is not None))
        used_p = list(dict.fromkeys(p.position for t in self.templates for p in t.parts))
        self.attributes: Tuple[str, ...] = tuple(used_a if attributes is None else attributes)
        self.positions: Tuple[str, ...] = tuple(used_p if positions is None else positions)
        self._check()
        self._by_name = {t.name: k for k, t in enumerate(self.templates)}
        self._attr_index = {a: k for k, a in enumerate(self.attributes)}
        self._pos_index = {p: k for k, p in enumerate(self.positions)}

    def _check(self) -> None:
        if len(self.templates) > MAX_TEMPLATES:
            raise ValueError(f"a feature spec holds at most {MAX_TEMPLATES} templates")
        names = set()
        for t in self.templates:
            where = f"feature template {t.name!r}"
            if not t.name:
                raise ValueError("a feature template has an empty name")
            if "|" in t.name:
                raise ValueError(f"{where}: a name may not hold '|'")
            if t.name in names:
                raise ValueError(f"{where} appears twice")
            names.add(t.name)
            if not 1 <= len(t.parts) <= MAX_PARTS:
                raise ValueError(f"{where}: a template has 1 to {MAX_PARTS} parts")
            for p in t.parts:
                if p.attribute is not None and p.attribute not in self.attributes:
                    raise ValueError(f"{where}: unknown attribute {p.attribute!r}")
                if p.position not in self.positions:
                    raise ValueError(f"{where}: unknown position {p.position!r}")
                if p.attribute is None and p.fallback is not None:
                    raise ValueError(f"{where}: a flag part has no fallback value")
            if t.valued and "=" in t.name:
                raise ValueError(f"{where}: the name of a template with values may not hold '='")
        for t in self.templates:
            head = t.name.split("=", 1)[0]
            if "=" in t.name and head in names:
                raise ValueError(f"feature template {t.name!r} reads as a value of template {head!r}")

    def __len__(self) -> int:
        return len(self.templates)

    def __eq__(self, other) -> bool:
        return isinstance(other, FeatureSpec) and self.to_meta() == other.to_meta()

    def index(self, name: str) -> int:
        """The index of the template called ``name``."""
        return self._by_name[name]

    def select(self, keep) -> "FeatureSpec":
        """The spec of the templates for which ``keep(template)`` is true."""
        return FeatureSpec([t for t in self.templates if keep(t)])

    def name(self, t: int, values: Sequence[str] = ()) -> str:
        """The readable name of template ``t`` with ``values`` (one per
        non-flag part): the template's name, then ``=`` and the values joined
        by ``|``; a flag-only template is its name alone."""
        return self.templates[t].name + ("=" + "|".join(values) if values else "")

    def parse(self, name: str) -> Tuple[int, Tuple[str, ...]]:
        """(template, values) of a feature name: the inverse of :meth:`name`.
        ``ValueError`` if no template of the spec reads it."""
        t = self._by_name.get(name)
        if t is not None and not self.templates[t].valued:
            return t, ()
        head, eq, rest = name.partition("=")
        t = self._by_name.get(head)
        if not eq or t is None or not self.templates[t].valued:
            raise ValueError(f"feature {name!r} is not a feature of this template spec")
        n_values = sum(p.attribute is not None for p in self.templates[t].parts)
        values = tuple(rest.split("|")) if n_values > 1 else (rest,)
        if len(values) != n_values:
            raise ValueError(f"feature {name!r}: template {head!r} has {n_values} values")
        return t, values

    def to_meta(self) -> dict:
        """The spec as JSON-able data (what a model file stores)."""
        return {"attributes": list(self.attributes), "positions": list(self.positions),
                "templates": [[t.name, t.group, [[-1 if p.attribute is None else self._attr_index[p.attribute],
                                                  self._pos_index[p.position], p.fallback] for p in t.parts]]
                              for t in self.templates]}

    @classmethod
    def from_meta(cls, meta: dict) -> "FeatureSpec":
        """The spec of :meth:`to_meta` (checked by ``validation`` first when read from a file)."""
        attributes, positions = list(meta["attributes"]), list(meta["positions"])
        templates = [Template(name, tuple(Part(None if a == -1 else attributes[a], positions[p], fb) for a, p, fb in parts),
                              group) for name, group, parts in meta["templates"]]
        return cls(templates, attributes, positions)

    def core_templates(self) -> List[tuple]:
        """The templates as the C++ engine takes them: (name, [(attribute or -1, position, fallback)])."""
        return [(name, [tuple(p) for p in parts]) for name, _, parts in self.to_meta()["templates"]]


def _strings(values: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
    encoded = [v.encode("utf-8", "surrogatepass") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), offsets


class FeatureKeys:
    """Per feature id of a model: its template and its parts' codes.

    Parameters
    ----------
    spec : FeatureSpec
    vocabs : sequence of sequences of str
        Per attribute of ``spec``, its values (code k is value k).
    template_of : array of int32, shape (n,)
    codes : array of int32, shape (n, MAX_PARTS)
        -1 past a template's parts; a flag part's code is 0.
    """

    def __init__(self, spec: FeatureSpec, vocabs: Sequence[Sequence[str]], template_of, codes):
        self.spec = spec
        self._vocabs: Optional[List[List[str]]] = [list(v) for v in vocabs]
        self.template_of = np.ascontiguousarray(template_of, dtype=np.int32)
        self.codes = np.ascontiguousarray(codes, dtype=np.int32).reshape(-1, MAX_PARTS)
        if len(self._vocabs) != len(spec.attributes) or len(self.codes) != len(self.template_of):
            raise ValueError("feature keys: one vocabulary per attribute and one code row per feature are needed")
        self._tables = None

    @property
    def vocabs(self) -> List[List[str]]:
        """Per attribute, its values as strings (code k is value k). Keys read
        from a file decode them at the first use: the C++ tables read the bytes."""
        if self._vocabs is None:
            stored = self._stored
            blob = stored["values_blob"].tobytes()
            offsets = stored["values_offsets"].tolist()
            ptr = stored["vocab_ptr"].tolist()
            self._vocabs = [[blob[offsets[k]:offsets[k + 1]].decode("utf-8", "surrogatepass")
                             for k in range(ptr[a], ptr[a + 1])] for a in range(len(ptr) - 1)]
        return self._vocabs

    def __len__(self) -> int:
        return len(self.template_of)

    @classmethod
    def from_names(cls, spec: FeatureSpec, names: Sequence[str]) -> "FeatureKeys":
        """The keys of feature ``names`` (a model's feature index) under
        ``spec``; vocabularies hold the values in order of first use.
        ``ValueError`` naming the feature if the spec does not read one."""
        index = [dict() for _ in spec.attributes]
        attr_of = [[None if p.attribute is None else spec.attributes.index(p.attribute) for p in t.parts]
                   for t in spec.templates]
        template_of = np.empty(len(names), dtype=np.int32)
        codes = np.full((len(names), MAX_PARTS), -1, dtype=np.int32)
        for f, name in enumerate(names):
            t, values = spec.parse(name)
            template_of[f] = t
            it = iter(values)
            for p, a in enumerate(attr_of[t]):
                codes[f, p] = 0 if a is None else index[a].setdefault(next(it), len(index[a]))
        return cls(spec, [list(v) for v in index], template_of, codes)

    def name(self, f: int) -> str:
        """The readable name of feature id ``f``, from the spec."""
        t = int(self.template_of[f])
        parts = self.spec.templates[t].parts
        values = [self.vocabs[self.spec.attributes.index(p.attribute)][self.codes[f, k]]
                  for k, p in enumerate(parts) if p.attribute is not None]
        return self.spec.name(t, values)

    def names(self) -> List[str]:
        """Every feature's readable name, in id order."""
        return [self.name(f) for f in range(len(self))]

    def to_arrays(self) -> Tuple[dict, Dict[str, np.ndarray]]:
        """(meta, arrays) for the model file: the spec, every vocabulary in one
        blob (attribute a's values are ``values_offsets[vocab_ptr[a]:vocab_ptr[a + 1] + 1]``),
        each feature's template and codes."""
        stored = getattr(self, "_stored", None)
        if stored is not None:  # read from a file: its arrays, not encoded again
            return self.spec.to_meta(), dict(stored)
        flat = [v for vocab in self.vocabs for v in vocab]
        blob, offsets = _strings(flat)
        vocab_ptr = np.zeros(len(self.vocabs) + 1, dtype=np.int64)
        np.cumsum([len(v) for v in self.vocabs], out=vocab_ptr[1:])
        return self.spec.to_meta(), {"values_blob": blob, "values_offsets": offsets, "vocab_ptr": vocab_ptr,
                                     "template": self.template_of, "codes": self.codes}

    @classmethod
    def from_arrays(cls, meta: dict, arrays: Dict[str, np.ndarray]) -> "FeatureKeys":
        spec = FeatureSpec.from_meta(meta)
        blob = bytes(np.asarray(arrays["values_blob"], dtype=np.uint8))
        ptr = np.asarray(arrays["vocab_ptr"], dtype=np.int64)
        keys = cls(spec, [[]] * (len(ptr) - 1), arrays["template"], arrays["codes"])
        keys._vocabs = None  # decoded from _stored at the first use
        keys._stored = {"values_blob": np.frombuffer(blob, dtype=np.uint8),
                        "values_offsets": np.asarray(arrays["values_offsets"], dtype=np.int64),
                        "vocab_ptr": np.asarray(arrays["vocab_ptr"], dtype=np.int64),
                        "template": keys.template_of, "codes": keys.codes}
        return keys

    def tables(self):
        """The C++ engine's tables (built once, then shared)."""
        if self._tables is None:
            from .. import _core
            from .._errors import ModelFormatError

            _, arrays = self.to_arrays()
            try:
                self._tables = self._build(_core, arrays)
            except ValueError as e:  # the file's checks passed, the C++ tables' did not
                raise ModelFormatError(f"section features.keys: {e}") from None
        return self._tables

    def _build(self, _core, arrays):
        return _core.FeatureTables.build(
            attributes=list(self.spec.attributes), positions=list(self.spec.positions),
            templates=self.spec.core_templates(), values_blob=arrays["values_blob"],
            values_offsets=arrays["values_offsets"], vocab_ptr=arrays["vocab_ptr"],
            template_of=self.template_of, codes=self.codes)
