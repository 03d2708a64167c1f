"""Suspect golds with a competence-aware null: a Dawid–Skene review queue
(docs/MODEL_AUDITS.md, "Suspect golds").

The panel is every model's `image` run. Per item the truth T is unknown: the gold or one
of the answers the panel gave (an answer nobody gave is not a candidate: a panel that errs
unanimously is not identifiable). The likelihood of the votes given T (Dawid & Skene 1979,
with item difficulty and guessing as in a three-parameter IRT model):

- each model has an ability θ per capability; on an item of difficulty d it *knows* the
  answer with probability s = sigmoid(θ − d) and answers T. d is integrated over a grid
  (`DIFFICULTIES`) whose weights are estimated per task (shrunk towards a normal);
- a model that does not know answers the item's lure — one wrong answer the panel shares,
  unknown to the review, uniform over the K − 1 wrong answers — with probability ρ
  (correlated errors), and otherwise guesses: the truth with `luck` × (1 − ρ)/K, each other
  answer evenly (K = chance.answer_spaces; ρ and the luck per task, estimated). A hard
  item is near chance with its misses scattered; only agreement on one other answer beyond
  what the lure explains points at a wrong gold;
- yes/no: no lure; a model that does not know says "yes" with its own rate q (the
  yes-bias: with s, a 2×2 confusion per model and difficulty).

EM alternates the posterior over (T, d) per item and the parameters: θ (and q) by Fisher
scoring with a weak prior at the panel's agreement with the golds, measured against the
estimated truths, not the golds (a wrong gold must not lower the ability of the models
that see it is wrong); the difficulty weights; ρ and the luck by the benchmark's
likelihood over `RHOS` and `LUCKS`; and the share of wrong golds π (20 pseudo-items at
5%, so a small benchmark cannot talk it up). The final posterior takes each item's own
votes out of its models' competences (a one-step leave-one-out correction: competence on
the rest of the benchmark).

Per item: the likelihood ratio of "the panel's most popular other answer is right"
against "the gold is right", P(gold wrong | votes), and the local false-discovery rate
P(gold right | votes). The review queue ranks items by it; the queue's q-value at an item
is the mean local fdr of the items ranked at or above it (a Bayesian FDR); items with
q <= `label_fdr` and a local fdr <= `LOCAL_FDR_CEILING` are flagged.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench_kit.audit.results.gold_likelihood import (
    Misses,
    lure_loglik,
    sigmoid,
    smoothed_weights,
    vote_rates,
)
from bench_kit.text.normalize import normalize_for_audit

DIFFICULTIES = (-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0)   # logit grid for difficulty
RHOS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)              # lure shares tried
LUCKS = (0.25, 0.5, 0.75, 1.0)   # the truth's share of a guess, relative to a fair one
RHO_START = 0.3              # ρ assumed for a task with fewer than MISSES_MIN_ITEMS items
MISSES_MIN_ITEMS = 100
RHO_EVERY = 4                # EM iterations between two updates of ρ ...
RHO_STEPS = 12               # ... in the first iterations only
DIFFICULTY_PRIOR_SHARE = 0.25   # pseudo-items of the normal shrinkage prior
                                # (smoothed_weights), as a share of the task's items
DIFFICULTY_START_SD = 1.0    # EM's starting difficulty weights: N(0, 1) on the grid, where
                             # the abilities start (theta0); with few voters per item the
                             # spread is weakly identified and a flat start stays too wide
ABILITY_PRIOR_SD = 2.0       # weak normal prior on θ around logit(panel agreement)
GUESS_PRIOR_SD = 1.0         # normal prior on logit(q), the yes rate of a guess, around 0
ITERATIONS = 30
PRIOR_WRONG = 0.05           # starting share of wrong golds (estimated by EM after)
PRIOR_WRONG_RANGE = (0.002, 0.3)
PRIOR_WRONG_WEIGHT = 20.0    # pseudo-items behind it
YESNO = ("yes", "no")
LOCAL_FDR_CEILING = 0.2      # an item's own P(gold right) above which it is never flagged
                             # (Efron's "interesting" cut for local fdr, 2007)


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
        model gave is left out: a panel that errs unanimously is not identifiable); on
        yes/no only "yes" and "no" besides the gold."""
        given = {v for v in self.votes.values() if v != self.gold}
        if self.task == "yesno":
            given &= set(YESNO)
        return [self.gold] + sorted(given)


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


@dataclass
class _Cached:
    """An item's votes as arrays: parameter keys of its voters, the candidate labels,
    which voter hits which label, and the wrong-vote counts per label (for the lure)."""

    keys: Any               # np.ndarray of int, one per counted voter
    labels: list[str]
    hit: Any                # np.ndarray of bool, labels × voters
    wrong_counts: list[list[int]]


class GoldModel:
    """Dawid–Skene EM with item difficulty over a benchmark's panel (module docstring)."""

    def __init__(self, items: Sequence[PanelItem]) -> None:
        import numpy as np

        self.items = [i for i in items if i.votes]
        self.grid = np.array(DIFFICULTIES)
        start = np.exp(-0.5 * (self.grid / DIFFICULTY_START_SD) ** 2) \
            if DIFFICULTY_START_SD else np.ones(len(DIFFICULTIES))
        self.weights = {t: start / start.sum() for t in {i.task for i in self.items}}
        self.misses = {t: Misses(0.0 if t == "yesno" else RHO_START) for t in self.weights}
        self.prior_wrong = PRIOR_WRONG
        votes = [v == i.gold for i in self.items for v in i.votes.values()]
        agreement = (sum(votes) + 1.0) / (len(votes) + 2.0)
        self.theta0 = math.log(agreement / (1 - agreement)) + 0.5
        self.keys: list[tuple[str, str]] = sorted({(m, i.unit) for i in self.items
                                                   for m in i.votes})
        index = {k: n for n, k in enumerate(self.keys)}
        self.theta = np.full(len(self.keys), self.theta0)
        self.beta = np.zeros(len(self.keys))
        self.leave_one_out = True
        self.cache = [self._cache(item, index) for item in self.items]
        # start from the vote shares (Dawid & Skene's majority-vote start), not the golds
        self.posteriors: list[dict[str, Any]] = []
        for item, c in zip(self.items, self.cache):
            share = c.hit.sum(axis=1) + np.array([0.5] + [0.0] * (len(c.labels) - 1))
            joint = (share / share.sum())[:, None] * self.weights[item.task][None, :]
            self.posteriors.append({"labels": c.labels, "joint": joint})

    @property
    def params(self) -> dict[tuple[str, str], tuple[float, float]]:
        """(model, unit) -> (θ, logit of the yes rate of a guess; 0 off yes/no)."""
        return {k: (float(t), float(b)) for k, t, b in zip(self.keys, self.theta, self.beta)}

    @staticmethod
    def _cache(item: PanelItem, index: dict) -> _Cached:
        import numpy as np

        voters = [m for m, v in item.votes.items() if item.task != "yesno" or v in YESNO]
        labels = item.labels()
        votes = [item.votes[m] for m in voters]
        hit = np.array([[v == t for v in votes] for t in labels], dtype=bool)
        hit = hit.reshape(len(labels), len(voters))
        wrong = [list(Counter(v for v in votes if v != t).values()) for t in labels]
        return _Cached(np.array([index[(m, item.unit)] for m in voters], dtype=int),
                       labels, hit, wrong)

    # -- likelihood ---------------------------------------------------------------------
    def log_likelihoods(self, n: int, theta=None, beta=None, misses: Misses | None = None):
        """Item n's log P(votes | T = label, d): labels × difficulty grid."""
        import numpy as np

        item, c = self.items[n], self.cache[n]
        theta = self.theta[c.keys] if theta is None else theta
        beta = self.beta[c.keys] if beta is None else beta
        misses = self.misses[item.task] if misses is None else misses
        s = sigmoid(theta[:, None] - self.grid[None, :])
        shares = misses.shares(item.space)
        q = sigmoid(beta)[:, None]
        yes_task = item.task == "yesno"
        out = np.zeros((len(c.labels), len(self.grid)))
        for k, truth in enumerate(c.labels):
            if k == 0 or yes_task:
                right, wrong = vote_rates(s, yes_task, truth, shares, q, misses.luck)
                right = np.log(np.clip(right, 1e-12, 1.0))
                wrong = np.log(np.clip(wrong, 1e-12, 1.0))
            out[k] = c.hit[k] @ right + (~c.hit[k]) @ wrong
            if not yes_task:
                out[k] += lure_loglik(c.wrong_counts[k], misses, item.space)
        return out

    def _posterior(self, n: int, theta=None, beta=None,
                   misses: Misses | None = None,
                   evidence_only: bool = False) -> dict[str, Any]:
        import numpy as np

        item, c = self.items[n], self.cache[n]
        logs = self.log_likelihoods(n, theta, beta, misses)
        others = max(1, item.space - 1)
        prior = np.log([1 - self.prior_wrong] +
                       [self.prior_wrong / others] * (len(c.labels) - 1))
        weights = np.log(self.weights[item.task])[None, :]
        table = logs + prior[:, None] + weights
        top = float(table.max())
        table = np.exp(table - top)
        total = float(table.sum())
        if evidence_only:
            return {"evidence": top + math.log(total)}
        marginal = {k: float(np.logaddexp.reduce(logs[j] + weights[0]))
                    for j, k in enumerate(c.labels)}
        return {"labels": c.labels, "joint": table / total, "marginal_loglik": marginal,
                "evidence": top + math.log(total)}

    # -- M step -------------------------------------------------------------------------
    def _cells(self, n: int):
        """Item n's expected counts per voter: (truth slot 0 = yes or any, 1 = no;
        hits per d; n per d) — arrays voters × slots × d."""
        import numpy as np

        item, c, joint = self.items[n], self.cache[n], self.posteriors[n]["joint"]
        voters, size = len(c.keys), len(self.grid)
        hits, total = np.zeros((voters, 2, size)), np.zeros((voters, 2, size))
        if item.task == "yesno":
            for slot, truth in enumerate(YESNO):
                if truth in c.labels:
                    k = c.labels.index(truth)
                    total[:, slot] = joint[k]
                    hits[:, slot] = c.hit[k][:, None] * joint[k][None, :]
        else:
            total[:, 0] = joint.sum(axis=0)
            hits[:, 0] = c.hit.T.astype(float) @ joint
        return hits, total

    def _score(self, key: int, hits, total, space: int, yes_task: bool, misses: Misses,
               theta: float | None = None, beta: float | None = None):
        """Gradient and Fisher information of one key's expected log-likelihood at (θ, β)
        (hits, total: slots × d)."""
        import numpy as np

        theta = float(self.theta[key]) if theta is None else theta
        beta = float(self.beta[key]) if beta is None else beta
        s = sigmoid(theta - self.grid)
        q = float(sigmoid(beta))
        shares = misses.shares(space)
        grad, info = np.zeros(2), np.zeros((2, 2))
        for slot, truth in enumerate(YESNO if yes_task else ("",)):
            p, _ = vote_rates(s, yes_task, truth, shares, q, misses.luck)
            if yes_task:
                guess = misses.luck * (q if truth == "yes" else 1.0 - q)
                sign = misses.luck if truth == "yes" else -misses.luck
                dp = np.stack([s * (1 - s) * (1 - guess), sign * (1 - s) * q * (1 - q)])
            else:
                dp = np.stack([s * (1 - s) * (1 - shares[0]), np.zeros_like(s)])
            p = np.clip(p, 1e-9, 1 - 1e-9)
            w = 1.0 / (p * (1 - p))
            grad += dp @ ((hits[slot] - total[slot] * p) * w)
            info += (dp * (total[slot] * w)) @ dp.T
        return grad, info

    def _key_stats(self):
        """Per key: summed expected counts, its task's space and yes/no-ness, and each
        item's own counts (for leave-one-out)."""
        import numpy as np

        size = len(self.grid)
        hits, total = np.zeros((len(self.keys), 2, size)), np.zeros((len(self.keys), 2, size))
        own = []
        self.key_task: dict[int, tuple[str, int]] = {}
        for n, (item, c) in enumerate(zip(self.items, self.cache)):
            h, t = self._cells(n)
            np.add.at(hits, c.keys, h)
            np.add.at(total, c.keys, t)
            own.append((h, t))
            for key in c.keys:
                self.key_task[int(key)] = (item.task, item.space)
        return hits, total, own

    def _fit_abilities(self):
        """Fisher scoring per (model, unit); returns each key's information matrix and
        each item's own counts (for leave-one-out)."""
        import numpy as np

        hits, total, own = self._key_stats()
        prior = np.diag([1 / ABILITY_PRIOR_SD ** 2, 1 / GUESS_PRIOR_SD ** 2])
        infos = {}
        for key in range(len(self.keys)):
            task, space = self.key_task[key]
            yes_task = task == "yesno"
            for _ in range(6):
                grad, info = self._score(key, hits[key], total[key], space, yes_task,
                                         self.misses[task])
                grad -= prior @ np.array([self.theta[key] - self.theta0, self.beta[key]])
                info = info + prior
                if not yes_task:
                    info[0, 1] = info[1, 0] = 0.0
                    grad[1] = 0.0
                step = np.linalg.solve(info, grad)
                self.theta[key] = float(np.clip(self.theta[key] + step[0], -12, 12))
                self.beta[key] = float(np.clip(self.beta[key] + step[1], -6, 6))
            infos[key] = info
        return infos, own

    def _loo(self, n: int, infos, own) -> tuple:
        """Item n's voters' (θ, β) with the item's own share taken out (one Newton step)."""
        import numpy as np

        c, (h, t) = self.cache[n], own[n]
        theta, beta = self.theta[c.keys].copy(), self.beta[c.keys].copy()
        for j, key in enumerate(c.keys):
            task, space = self.key_task[int(key)]
            grad, _ = self._score(int(key), h[j], t[j], space, task == "yesno",
                                  self.misses[task])
            if task != "yesno":
                grad[1] = 0.0
            step = np.linalg.solve(infos[int(key)], grad)
            theta[j] -= step[0]
            beta[j] -= step[1]
        return theta, beta

    def _evidence(self, items: list[int], misses: Misses) -> float:
        """log P(the votes of `items`) under `misses` and the current other parameters."""
        return sum(self._posterior(n, misses=misses, evidence_only=True)["evidence"]
                   for n in items)

    def _fit_misses(self) -> None:
        """ρ, then the luck, per task: the values of `RHOS` and `LUCKS` under which the
        task's votes are most likely (yes/no: the luck only); kept at the start (ρ 0.3,
        fair guesses) for a task with fewer than `MISSES_MIN_ITEMS` items."""
        for task, now in self.misses.items():
            mine = [n for n, i in enumerate(self.items) if i.task == task]
            if len(mine) < MISSES_MIN_ITEMS:
                continue  # a handful of items would fit any lure share (keep the start)
            lure = 0.0 if task == "yesno" else max(
                RHOS, key=lambda r: self._evidence(mine, Misses(r, now.luck)))
            luck = max(LUCKS, key=lambda c: self._evidence(mine, Misses(lure, c)))
            self.misses[task] = Misses(lure, luck)

    def fit(self, iterations: int = ITERATIONS) -> GoldModel:
        """Run EM; each item's posterior holds P(T = label, d | votes). The last
        posterior uses each model's competence on the rest of the benchmark."""
        import numpy as np

        for step in range(iterations):
            infos, own = self._fit_abilities()
            if step % RHO_EVERY == 1 and step < RHO_STEPS:
                self._fit_misses()
            new = [self._posterior(n) for n in range(len(self.items))]
            change = max(float(np.abs(a["joint"] - b["joint"]).max())
                         for a, b in zip(new, self.posteriors)) if new else 0.0
            self.posteriors = new
            self._fit_shares()
            if change < 1e-4 and step >= RHO_STEPS:
                break
        if self.leave_one_out and self.items:
            infos, own = self._fit_abilities()
            self.posteriors = [self._posterior(n, *self._loo(n, infos, own))
                               for n in range(len(self.items))]
        return self

    def _fit_shares(self) -> None:
        """The difficulty weights per task and the share of wrong golds π."""
        import numpy as np

        by_task: dict[str, list] = defaultdict(list)
        wrong = 0.0
        for item, post in zip(self.items, self.posteriors):
            by_task[item.task].append(post["joint"].sum(axis=0))
            wrong += 1.0 - float(post["joint"][0].sum())
        for task, rows in by_task.items():
            counts = np.sum(rows, axis=0)
            self.weights[task] = smoothed_weights(self.grid, counts,
                                           DIFFICULTY_PRIOR_SHARE * len(rows))
        low, high = PRIOR_WRONG_RANGE
        self.prior_wrong = min(high, max(low, (wrong + PRIOR_WRONG * PRIOR_WRONG_WEIGHT)
                                          / (len(self.items) + PRIOR_WRONG_WEIGHT)))


def review_queue(model: GoldModel, level: float,
                 ceiling: float = LOCAL_FDR_CEILING) -> dict[str, GoldReview]:
    """Item id -> its review, ranked by local fdr; flagged while the queue's mean local
    fdr stays <= `level` and the item's own local fdr <= `ceiling` (many sure finds must
    not carry an item more likely right than wrong into the queue; the ceiling is never
    below `level`)."""
    reviews: list[GoldReview] = []
    for item, post in zip(model.items, model.posteriors):
        labels, joint = post["labels"], post["joint"]
        marginal = post.get("marginal_loglik") or {}
        counts = Counter(item.votes.values())
        others = sorted(((n, k) for k, n in counts.items() if k != item.gold),
                        key=lambda nk: (-nk[0], nk[1]))
        popular, votes = (others[0][1], others[0][0]) if others else (None, 0)
        ratio = math.exp(min(700.0, marginal[popular] - marginal[item.gold])) \
            if popular in marginal else None
        fdr = float(joint[labels.index(item.gold)].sum())
        reviews.append(GoldReview(item.id, popular, votes, counts.get(item.gold, 0),
                                  len(item.votes), ratio, 1.0 - fdr, fdr))
    ceiling = max(ceiling, level)
    reviews.sort(key=lambda r: (r.local_fdr, r.id))
    running = 0.0
    for rank, review in enumerate(reviews, start=1):
        running += review.local_fdr
        review.rank = rank
        review.q_value = running / rank
        review.flagged = review.q_value <= level and review.local_fdr <= ceiling \
            and review.popular is not None
    return {r.id: r for r in reviews}
