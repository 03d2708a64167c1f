"""Suspect golds with a competence-aware null: a Dawid–Skene review queue
(docs/MODEL_AUDITS.md, "Suspect golds").

The panel is every model's `image` run. Per item the truth T is unknown: the gold or one
of the answers the panel gave (an answer nobody gave is not a candidate: a panel that errs
unanimously is not identifiable). The likelihood of the votes given T (Dawid & Skene 1979,
with item difficulty as in a Rasch model):

- each model has an ability θ per capability; on an item of difficulty d it answers right
  with probability sigmoid(θ − d). d is integrated over a grid (`DIFFICULTIES`) whose
  weights are estimated — so a hard item with a right gold, where most models miss, is
  told apart from a wrong gold, where most models agree on another answer;
- yes/no: a bias β per model too: P(yes | T = yes) = sigmoid(θ − d + β),
  P(no | T = no) = sigmoid(θ − d − β), so a model that says "yes" too often is read so;
- mc, numeric, open: a wrong vote goes to the item's shared attractor with probability ρ
  (per task, estimated: models share their mistakes) and otherwise to any wrong answer,
  the attractor unknown (uniform over the K − 1 wrong answers, K = chance.answer_spaces).

EM alternates the posterior over (T, d) per item and the parameters: θ (and β) by Newton
steps with a weak prior at the panel's agreement with the golds, measured against the
estimated truths, not the golds (a wrong gold must not lower the ability of the models
that see it is wrong), and per item *left out* (a one-step leave-one-out correction: each
model's competence on the rest of the benchmark); the difficulty weights, ρ, and the share
of wrong golds π (20 pseudo-items at 5%, so a small benchmark cannot talk it up).

Per item: the likelihood ratio of "the panel's most popular other answer is right"
against "the gold is right", P(gold wrong | votes), and the local false-discovery rate
P(gold right | votes). The review queue ranks items by it; the queue's q-value at an item
is the mean local fdr of the items ranked at or above it (a Bayesian FDR); items with
q <= `label_fdr` are flagged.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Sequence

from bench_kit.text.normalize import normalize_for_audit

DIFFICULTIES = (-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0)   # logit grid for item difficulty
RHOS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)         # attractor shares tried
RHO_SURE = 0.9               # items whose truth is this clear teach ρ ...
RHO_MIN_ITEMS = 20           # ... and at least this many of them are needed
ABILITY_PRIOR_SD = 2.0       # weak normal prior on θ around logit(panel agreement)
BIAS_PRIOR_SD = 1.0
ITERATIONS = 25
PRIOR_WRONG = 0.05           # starting share of wrong golds (estimated by EM after)
PRIOR_WRONG_RANGE = (0.002, 0.3)
PRIOR_WRONG_WEIGHT = 20.0    # pseudo-items behind it


@dataclass
class PanelItem:
    """One item's panel: gold label, answer space, the model votes (model -> label)."""

    id: str
    task: str
    unit: str               # competence unit (the capability)
    gold: str
    space: int
    votes: dict[str, str]

    def labels(self) -> list[str]:
        """The candidate truths: the gold and every answer the panel gave (an answer no
        model gave is left out: a panel that errs unanimously is not identifiable)."""
        return [self.gold] + sorted({v for v in self.votes.values() if v != self.gold})


@dataclass
class GoldReview:
    """An item's review: posterior that the gold is wrong, its likelihood ratio against the
    most popular other answer, local fdr, queue q-value and rank, and whether flagged."""

    id: str
    popular: str | None
    popular_votes: int
    gold_votes: int
    panel: int
    likelihood_ratio: float | None
    posterior_wrong: float
    local_fdr: float
    q_value: float = 1.0
    rank: int = 0
    flagged: bool = False


def vote_label(extracted: str | None, hit: bool, gold: str) -> str | None:
    """A model's vote as a label: the gold when scored right, else its normalised answer."""
    if hit:
        return gold
    if extracted is None:
        return None
    return normalize_for_audit(extracted) or None


def _sigmoid(x):
    import numpy as np

    return 1.0 / (1.0 + np.exp(-x))


def error_loglik(counts: Sequence[int], rho: float, wrong_answers: int) -> float:
    """log P(the wrong votes, in order) when each goes to the item's attractor with
    probability ρ, else to any of the `wrong_answers` uniformly; the attractor unknown.

    >>> round(error_loglik([2], 0.0, 3), 4) == round(2 * math.log(1 / 3), 4)
    True
    """
    total = sum(counts)
    if not total or wrong_answers <= 1:
        return 0.0
    k = max(wrong_answers, len(counts))
    u = (1.0 - rho) / k
    terms = [c * math.log(rho + u) + (total - c) * math.log(u) for c in counts]
    terms += [total * math.log(u)] * (k - len(counts))
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms) / k)


class GoldModel:
    """Dawid–Skene EM with item difficulty over a benchmark's panel (module docstring)."""

    def __init__(self, items: Sequence[PanelItem]) -> None:
        import numpy as np

        self.items = [i for i in items if i.votes]
        self.grid = np.array(DIFFICULTIES)
        self.weights = {t: np.full(len(DIFFICULTIES), 1.0 / len(DIFFICULTIES))
                        for t in {i.task for i in self.items}}
        self.rho = {t: 0.0 for t in self.weights}
        self.prior_wrong = PRIOR_WRONG
        votes = [v == i.gold for i in self.items for v in i.votes.values()]
        agreement = (sum(votes) + 1.0) / (len(votes) + 2.0)
        self.theta0 = math.log(agreement / (1 - agreement)) + 0.5
        self.params: dict[tuple[str, str], tuple[float, float]] = {}
        self.leave_one_out = True
        # start from the vote shares (Dawid & Skene's majority-vote start), not the golds
        self.posteriors: list[dict[str, Any]] = []
        for item in self.items:
            counts = Counter(item.votes.values())
            labels = item.labels()
            share = np.array([counts.get(k, 0) + (0.5 if k == item.gold else 0.0)
                              for k in labels])
            share = share / share.sum()
            joint = share[:, None] * self.weights[item.task][None, :]
            self.posteriors.append({"labels": labels, "joint": joint})

    @classmethod
    def with_parameters(cls, items: Sequence[PanelItem],
                        params: dict[tuple[str, str], tuple[float, float]],
                        weights: dict, rho: dict, prior_wrong: float) -> "GoldModel":
        """A model with given abilities/biases ((model, unit) -> (θ, β)), difficulty
        weights, ρ and π, not estimated (e.g. to score with known parameters)."""
        import numpy as np

        model = cls(items)
        model.params = dict(params)
        model.weights = {t: np.asarray(w, dtype=float) for t, w in weights.items()}
        model.rho, model.prior_wrong, model.leave_one_out = dict(rho), prior_wrong, False
        model.posteriors = [model._posterior(i, None) for i in model.items]
        return model

    # -- M step -------------------------------------------------------------------------
    def _stats(self):
        """Per (model, unit): per-difficulty expected right/total counts (yes/no: split by
        the true answer), and the per-item contributions for leave-one-out."""
        import numpy as np

        size = len(DIFFICULTIES)
        stats: dict[tuple[str, str], np.ndarray] = defaultdict(lambda: np.zeros((4, size)))
        own: list[dict[str, np.ndarray]] = []
        for item, post in zip(self.items, self.posteriors):
            labels, joint = post["labels"], post["joint"]
            mine = {}
            for model, vote in item.votes.items():
                row = np.zeros((4, size))
                if item.task == "yesno":
                    for truth, base in (("yes", 0), ("no", 2)):
                        if truth in labels:
                            p = joint[labels.index(truth)]
                            row[base] += p * (vote == truth)
                            row[base + 1] += p
                else:
                    row[0] = joint[labels.index(vote)] if vote in labels else 0.0
                    row[1] = joint.sum(axis=0)
                stats[(model, item.unit)] += row
                mine[model] = row
            own.append(mine)
        return stats, own

    def _newton(self, row, yesno: bool, start: tuple[float, float]):
        """(θ, β) maximising the expected log-likelihood of one stats row plus the prior;
        returns the estimate and the negative Hessian (for leave-one-out)."""
        import numpy as np

        theta, beta = start
        grid = self.grid
        for _ in range(8):
            if yesno:
                py, pn = _sigmoid(theta - grid + beta), _sigmoid(theta - grid - beta)
                gy, gn = row[0] - row[1] * py, row[2] - row[3] * pn
                wy, wn = (row[1] * py * (1 - py)).sum(), (row[3] * pn * (1 - pn)).sum()
                g = np.array([gy.sum() + gn.sum() - (theta - self.theta0) / ABILITY_PRIOR_SD ** 2,
                              gy.sum() - gn.sum() - beta / BIAS_PRIOR_SD ** 2])
                h = np.array([[wy + wn + 1 / ABILITY_PRIOR_SD ** 2, wy - wn],
                              [wy - wn, wy + wn + 1 / BIAS_PRIOR_SD ** 2]])
                step = np.linalg.solve(h, g)
                theta, beta = theta + float(step[0]), beta + float(step[1])
            else:
                p = _sigmoid(theta - grid)
                g = (row[0] - row[1] * p).sum() - (theta - self.theta0) / ABILITY_PRIOR_SD ** 2
                h = (row[1] * p * (1 - p)).sum() + 1 / ABILITY_PRIOR_SD ** 2
                theta += float(g / h)
                h = np.array([[h, 0.0], [0.0, 1.0]])
            if abs(theta) > 12:
                theta = math.copysign(12, theta)
        return (theta, beta), h

    def _fit_abilities(self):
        stats, own = self._stats()
        fits = {}
        for key, row in stats.items():
            yesno = row[2:].any()
            fits[key] = self._newton(row, bool(yesno), self.params.get(key, (self.theta0, 0.0)))
        self.params = {key: fit[0] for key, fit in fits.items()}
        return fits, own

    def _loo(self, fits, own_rows, model: str, item: PanelItem) -> tuple[float, float]:
        """(θ, β) of `model` on `item`'s unit with the item's own share taken out."""
        import numpy as np

        (theta, beta), h = fits[(model, item.unit)]
        row = own_rows[model]
        grid = self.grid
        if item.task == "yesno":
            py, pn = _sigmoid(theta - grid + beta), _sigmoid(theta - grid - beta)
            gy, gn = (row[0] - row[1] * py).sum(), (row[2] - row[3] * pn).sum()
            step = np.linalg.solve(h, np.array([gy + gn, gy - gn]))
            return theta - float(step[0]), beta - float(step[1])
        g = (row[0] - row[1] * _sigmoid(theta - grid)).sum()
        return theta - float(g / h[0, 0]), beta

    def _fit_rho(self) -> None:
        by_task: dict[str, list[tuple[list[int], int]]] = defaultdict(list)
        for item, post in zip(self.items, self.posteriors):
            marginal = post["joint"].sum(axis=1)
            best = int(marginal.argmax())
            truth = post["labels"][best]
            counts = [n for v, n in Counter(item.votes.values()).items() if v != truth]
            if item.task != "yesno" and marginal[best] >= RHO_SURE and sum(counts) >= 2:
                by_task[item.task].append((counts, max(1, item.space - 1)))
        for task in self.rho:
            rows = by_task.get(task, [])
            self.rho[task] = 0.0 if len(rows) < RHO_MIN_ITEMS else max(
                RHOS, key=lambda r: sum(error_loglik(c, r, k) for c, k in rows))

    # -- E step -------------------------------------------------------------------------
    def log_likelihoods(self, item: PanelItem, abilities) -> dict[str, Any]:
        """Candidate labels -> log P(votes | T = label, d) over the difficulty grid."""
        import numpy as np

        grid = self.grid
        out = {}
        for truth in item.labels():
            counts = Counter(v for v in item.votes.values() if v != truth)
            total = np.full(len(grid), error_loglik(list(counts.values()),
                                                    self.rho.get(item.task, 0.0),
                                                    max(1, item.space - 1)))
            for model, vote in item.votes.items():
                theta, beta = abilities(model)
                if item.task == "yesno":
                    if vote not in ("yes", "no") or truth not in ("yes", "no"):
                        continue
                    shift = beta if truth == "yes" else -beta
                    p = _sigmoid(theta - grid + shift)
                else:
                    p = _sigmoid(theta - grid)
                p = np.clip(p, 1e-9, 1 - 1e-9)
                total += np.log(p) if vote == truth else np.log(1 - p)
            out[truth] = total
        return out

    def _posterior(self, item: PanelItem, fits=None, own=None) -> dict[str, Any]:
        import numpy as np

        def abilities(model: str) -> tuple[float, float]:
            if fits is not None and own is not None and self.leave_one_out:
                return self._loo(fits, own, model, item)
            return self.params.get((model, item.unit), (self.theta0, 0.0))

        logs = self.log_likelihoods(item, abilities)
        labels = item.labels()
        others = max(1, item.space - 1)
        prior = np.array([1 - self.prior_wrong if k == item.gold else self.prior_wrong / others
                          for k in labels])
        table = np.array([logs[k] for k in labels]) + np.log(prior)[:, None] + \
            np.log(self.weights[item.task])[None, :]
        table = np.exp(table - table.max())
        joint = table / table.sum()
        top = max(float(logs[k].max()) for k in labels)
        marginal = {k: float(np.log(np.exp(logs[k] - top) @ self.weights[item.task])) + top
                    for k in labels}
        return {"labels": labels, "joint": joint, "marginal_loglik": marginal}

    def fit(self, iterations: int = ITERATIONS) -> "GoldModel":
        """Run EM; each item's posterior holds P(T = label, d | votes)."""
        import numpy as np

        for _ in range(iterations):
            fits, own = self._fit_abilities()
            self._fit_rho()
            new = [self._posterior(item, fits, own[n]) for n, item in enumerate(self.items)]
            change = max(float(np.abs(a["joint"] - b["joint"]).max())
                         for a, b in zip(new, self.posteriors)) if new else 0.0
            self.posteriors = new
            by_task: dict[str, list] = defaultdict(list)
            wrong = 0.0
            for item, post in zip(self.items, new):
                by_task[item.task].append(post["joint"].sum(axis=0))
                wrong += 1.0 - float(post["joint"][0].sum())
            for task, rows in by_task.items():
                counts = np.sum(rows, axis=0) + 1.0
                self.weights[task] = counts / counts.sum()
            low, high = PRIOR_WRONG_RANGE
            self.prior_wrong = min(high, max(low, (wrong + PRIOR_WRONG * PRIOR_WRONG_WEIGHT)
                                              / (len(new) + PRIOR_WRONG_WEIGHT)))
            if change < 1e-4:
                break
        return self


def review_queue(model: GoldModel, level: float) -> dict[str, GoldReview]:
    """Item id -> its review, ranked by local fdr; flagged while the queue's mean local
    fdr stays <= `level`."""
    reviews: list[GoldReview] = []
    for item, post in zip(model.items, model.posteriors):
        labels, joint = post["labels"], post["joint"]
        marginal = post.get("marginal_loglik") or {}
        counts = Counter(item.votes.values())
        others = sorted(((n, k) for k, n in counts.items() if k != item.gold),
                        key=lambda nk: (-nk[0], nk[1]))
        popular, votes = (others[0][1], others[0][0]) if others else (None, 0)
        ratio = math.exp(min(700.0, marginal[popular] - marginal[item.gold])) \
            if popular is not None and marginal else None
        fdr = float(joint[labels.index(item.gold)].sum())
        reviews.append(GoldReview(item.id, popular, votes, counts.get(item.gold, 0),
                                  len(item.votes), ratio, 1.0 - fdr, fdr))
    reviews.sort(key=lambda r: (r.local_fdr, r.id))
    running = 0.0
    for rank, review in enumerate(reviews, start=1):
        running += review.local_fdr
        review.rank = rank
        review.q_value = running / rank
        review.flagged = review.q_value <= level and review.popular is not None
    return {r.id: r for r in reviews}
