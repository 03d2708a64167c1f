"""Observed difficulty: per-item accuracy over the models, a Rasch (1PL IRT) fit, and items
whose authored difficulty the models contradict."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Sequence

from bench_kit.audit.results.inputs import (
    ResultsAuditParams,
    ScoreTable,
    model_check,
    share,
)
from bench_kit.types import DIFFICULTIES, Finding

DIFFICULTY_MISMATCH = model_check(
    "label.difficulty_mismatch", "info",
    "an item authored hard is solved by nearly every model, or one authored easy by almost none")

# L2 penalty of the joint maximum likelihood fit: keeps all-right / all-wrong items and
# models finite (plain JML sends them to ±infinity).
RASCH_PENALTY = 0.05


def response_matrix(table: ScoreTable, mode: str = "image"):
    """(models, item ids, matrix) with 1/0 hits and NaN where a model has no score."""
    import numpy as np

    models = [m for m in table.models if (m, mode) in table.runs]
    ids = [item.id for item in table.items]
    matrix = np.full((len(models), len(ids)), np.nan)
    for row, model in enumerate(models):
        run = table.run(model, mode)
        for col, item_id in enumerate(ids):
            if item_id in run:
                matrix[row, col] = float(run[item_id].hit)
    return models, ids, matrix


def fit_rasch(matrix, penalty: float = RASCH_PENALTY):
    """Fit P(hit) = sigmoid(ability_model − difficulty_item) by penalised joint maximum
    likelihood; NaN cells are missing.

    Args:
        matrix: models × items array of 1/0/NaN.
        penalty: L2 weight on abilities and difficulties.

    Returns:
        (abilities, difficulties) as numpy arrays; difficulties are centred on 0.
    """
    import numpy as np
    from scipy.optimize import minimize

    x = np.asarray(matrix, dtype=float)
    observed = ~np.isnan(x)
    y = np.where(observed, x, 0.0)
    n_models, n_items = x.shape

    def objective(params):
        theta, b = params[:n_models], params[n_models:]
        logits = theta[:, None] - b[None, :]
        prob = 1.0 / (1.0 + np.exp(-logits))
        # log(1 + e^z) computed stably
        loglik = np.where(observed, y * logits - np.logaddexp(0.0, logits), 0.0).sum()
        resid = np.where(observed, y - prob, 0.0)
        grad_theta = -resid.sum(axis=1) + penalty * theta
        grad_b = resid.sum(axis=0) + penalty * b
        value = -loglik + 0.5 * penalty * (theta @ theta + b @ b)
        return value, np.concatenate([grad_theta, grad_b])

    start = np.zeros(n_models + n_items)
    result = minimize(objective, start, jac=True, method="L-BFGS-B",
                      options={"maxiter": 500, "gtol": 1e-6})
    theta, b = result.x[:n_models], result.x[n_models:]
    shift = b.mean() if n_items else 0.0
    return theta - shift, b - shift


def observed_difficulty(table: ScoreTable, params: ResultsAuditParams) -> dict:
    """Per item: accuracy over the models' image runs (and Rasch difficulty when at least
    `rasch_min_models` models ran); per model: Rasch ability."""
    import numpy as np

    models, ids, matrix = response_matrix(table)
    per_item: dict[str, dict] = {}
    for col, item_id in enumerate(ids):
        column = matrix[:, col]
        n = int((~np.isnan(column)).sum())
        per_item[item_id] = {"n_models": n, "hits": int(np.nansum(column)),
                             "accuracy": share(float(np.nansum(column)), n)}
    abilities: dict[str, float] = {}
    fitted = len(models) >= params.rasch_min_models and len(ids) > 0
    if fitted:
        theta, b = fit_rasch(matrix)
        abilities = {model: round(float(v), 4) for model, v in zip(models, theta)}
        for item_id, value in zip(ids, b):
            per_item[item_id]["rasch_difficulty"] = round(float(value), 4)
    return {"models": models, "rasch_fitted": fitted, "abilities": abilities,
            "items": per_item}


def mismatch_findings(table: ScoreTable, observed: dict,
                      params: ResultsAuditParams) -> Iterable[Finding]:
    """`label.difficulty_mismatch`: hard items nearly all models solve, easy ones almost none do."""
    for item in table.items:
        stats = observed["items"][item.id]
        accuracy = stats["accuracy"]
        if stats["n_models"] < params.min_panel or accuracy is None:
            continue
        if item.difficulty == "hard" and accuracy >= params.mismatch_high:
            looks = "easy"
        elif item.difficulty == "easy" and accuracy <= params.mismatch_low:
            looks = "hard"
        else:
            continue
        yield DIFFICULTY_MISMATCH.finding(
            item.id, f"authored {item.difficulty}, but {stats['hits']}/{stats['n_models']} "
                     f"models solve it (looks {looks})",
            {"authored": item.difficulty, "observed_accuracy": accuracy,
             "n_models": stats["n_models"], "rasch_difficulty": stats.get("rasch_difficulty")})


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def difficulty_table(table: ScoreTable, observed: dict) -> dict:
    """Authored vs observed difficulty per capability: items, mean accuracy and mean Rasch
    difficulty per authored level."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for item in table.items:
        groups[(item.capability, item.difficulty)].append(observed["items"][item.id])
    out: dict[str, dict] = {}
    for capability in sorted({cap for cap, _ in groups}):
        out[capability] = {}
        for level in DIFFICULTIES:
            rows = groups.get((capability, level), [])
            if not rows:
                continue
            accs = [r["accuracy"] for r in rows if r["accuracy"] is not None]
            rasch = [r["rasch_difficulty"] for r in rows if "rasch_difficulty" in r]
            out[capability][level] = {"items": len(rows), "observed_accuracy": _mean(accs),
                                      "rasch_difficulty": _mean(rasch)}
    return out
