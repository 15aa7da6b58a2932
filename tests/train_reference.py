"""Brute-force reference trainers, independent of the C++ core.

They follow the documented learning rules literally (kernel sums over every
support vector, exact sums with math.fsum) so the fast trainers can be checked
step by step against them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

import numpy as np

LOSS_TOLERANCE = 1e-9  # conjunct's kLossTolerance


@dataclass
class PaRun:
    svs: List[Tuple[int, ...]] = field(default_factory=list)
    alpha: List[np.ndarray] = field(default_factory=list)
    beta: List[np.ndarray] = field(default_factory=list)
    bias: np.ndarray = None
    bias_beta: np.ndarray = None
    rounds: int = 0
    margins: List[np.ndarray] = field(default_factory=list)   # per round, with bias
    scales: List[float] = field(default_factory=list)          # per round: sum |update| of b + sum mass * |k|
    mass: List[float] = field(default_factory=list)            # per SV: sum of |update| (>= |alpha|, even after
    bias_mass: float = 0.0                                     # updates cancel: rounding scales with it)
    values: List[float] = field(default_factory=list)          # decision value per round
    updated: List[bool] = field(default_factory=list)
    taus: List[float] = field(default_factory=list)
    rivals: List[int] = field(default_factory=list)
    near_tie: bool = False                                     # a decision sat within rounding of its boundary

    def alpha_matrix(self, K: int) -> np.ndarray:
        return np.array(self.alpha).reshape(-1, K) if self.alpha else np.zeros((0, K))

    def averaged(self, K: int) -> Tuple[np.ndarray, np.ndarray]:
        A = self.alpha_matrix(K)
        B = np.array(self.beta).reshape(-1, K) if self.beta else np.zeros((0, K))
        if self.rounds == 0:
            return A, self.bias.copy()
        return A - B / self.rounds, self.bias - self.bias_beta / self.rounds


def reference_pa(rows: Sequence[Sequence[int]], labels: Sequence[int], order: Sequence[int], *, K: int, degree: int,
                 gamma: float = 1.0, coef0: float = 1.0, learner: str = "pa1", C: float = 1.0,
                 fit_intercept: bool = False, tie_margin: float = 1e-12, weights=None, step: str = "kernel") -> PaRun:
    """PA-family training by brute-force kernel sums (conjunct's documented rules).

    ``near_tie`` is set when a decision (update or not, which rival) hinged on
    a difference within ``tie_margin * (1 + scale)`` of zero: there, the order
    of summation could flip it. Exact ties are safe only when every mode
    computes both sides exactly: outputs nothing was learnt for (all terms
    zero), or the perceptron (steps of 1 and dyadic kernel values: every sum
    is exact). ``weights`` (one per row): the weight scales C (PA-I, PA-II) or
    the step (PA, perceptron); 0 means no update. ``step="opal"``: q = |x|
    (opal's rule) instead of k(x, x).
    """
    run = PaRun(bias=np.zeros(K), bias_beta=np.zeros(K))
    index: Dict[Tuple[int, ...], int] = {}
    perceptron = learner == "perceptron"
    threshold = 0.0 if perceptron else 1.0 - LOSS_TOLERANCE
    for i in order:
        x = tuple(sorted(set(int(f) for f in rows[i])))
        xs = set(x)
        y = int(labels[i])
        run.rounds += 1
        t = run.rounds
        terms = [[run.bias[o]] for o in range(K)]
        scale = run.bias_mass
        for s, a, mass in zip(run.svs, run.alpha, run.mass):
            k = (gamma * len(xs.intersection(s)) + coef0) ** degree
            for o in range(K):
                terms[o].append(a[o] * k)
            scale += mass * abs(k)
        m = np.array([math.fsum(tt) for tt in terms])
        touched = [any(v != 0 for v in tt) for tt in terms]
        run.margins.append(m)
        run.scales.append(scale)
        band = tie_margin * (1 + scale)

        def hinges(diff: float, outputs) -> bool:
            if diff != 0:
                return abs(diff) <= band
            return not perceptron and any(touched[o] for o in outputs)

        rival = -1
        if K == 1:
            value = y * m[0]
            involved = [0]
        else:
            others = [(m[o], o) for o in range(K) if o != y]
            best = max(v for v, _ in others)
            rival = min(o for v, o in others if v == best)
            value = m[y] - best
            for v, o in others:
                if o != rival and hinges(best - v, [rival, o]):
                    run.near_tie = True
            involved = [y, rival]
        if hinges(value - threshold, involved):
            run.near_tie = True
        run.values.append(value)
        if perceptron:
            update, loss = value <= 0.0, 0.0
        else:
            loss = 1.0 - value
            update = loss > LOSS_TOLERANCE
        tau = 0.0
        w = 1.0 if weights is None else float(weights[i])
        update = update and w > 0
        if update:
            opal = step == "opal"
            q = (len(x) if opal else (gamma * len(x) + coef0) ** degree) + (1.0 if fit_intercept else 0.0)
            if K > 1:
                q *= 2.0
            ratio = loss / q if q > 0 else math.inf
            tau = {"perceptron": lambda: w, "pa": lambda: w * ratio, "pa1": lambda: min(w * C, ratio),
                   "pa2": lambda: loss / (q + 0.5 / (w * C))}[learner]()
            # opal's q = 0 (no features) still moves the kernel's constant term coef0^d.
            moves = q > 0 or (opal and coef0 ** degree > 0)
            update = moves and math.isfinite(tau) and tau > 0
        if update:
            delta = np.zeros(K)
            if K == 1:
                delta[0] = tau if y > 0 else -tau
            else:
                delta[y] += tau
                delta[rival] -= tau
            j = index.get(x)
            if j is None:
                j = index[x] = len(run.svs)
                run.svs.append(x)
                run.alpha.append(np.zeros(K))
                run.beta.append(np.zeros(K))
                run.mass.append(0.0)
            run.alpha[j] = run.alpha[j] + delta
            run.mass[j] += float(np.abs(delta).sum())
            run.beta[j] = run.beta[j] + (t - 1) * delta
            if fit_intercept:
                run.bias = run.bias + delta
                run.bias_mass += float(np.abs(delta).sum())
                run.bias_beta = run.bias_beta + (t - 1) * delta
        run.updated.append(bool(update))
        run.taus.append(tau if update else 0.0)
        run.rivals.append(rival if update else -1)
    return run


def reference_l1(rows: Sequence[Sequence[int]], labels: Sequence[int], order: Sequence[int], *, K: int, degree: int,
                 C: float, eta0: float, decay: float, n_examples: int):
    """SGD with cumulative l1 penalty (Tsuruoka et al. 2009) over all conjunctions of size <= degree."""
    from itertools import combinations

    w: Dict[Tuple[int, ...], np.ndarray] = {}
    q: Dict[Tuple[int, ...], np.ndarray] = {}
    bias = np.zeros(K)
    u = 0.0
    for k, i in enumerate(order):
        eta = eta0 * decay ** (k / n_examples)
        u += eta * C / n_examples
        x = sorted(set(int(f) for f in rows[i]))
        conj = [t for r in range(1, degree + 1) for t in combinations(x, r)]
        for t in conj:
            w.setdefault(t, np.zeros(K))
            q.setdefault(t, np.zeros(K))
        score = bias + sum((w[t] for t in conj), np.zeros(K))
        y = int(labels[i])
        if K == 1:
            p = 1.0 / (1.0 + math.exp(-score[0]))
            g = np.array([(1.0 if y > 0 else 0.0) - p])
        else:
            e = np.exp(score - score.max())
            g = -e / e.sum()
            g[y] += 1.0
        bias = bias + eta * g
        for t in conj:
            for o in range(K):
                z = v = w[t][o] + eta * g[o]
                if v > 0:
                    v = max(0.0, v - (u + q[t][o]))
                elif v < 0:
                    v = min(0.0, v + (u - q[t][o]))
                q[t][o] += v - z
                w[t][o] = v
    return w, bias
