"""Rasch fit (`fit_rasch`) timing and recovery on simulated model × item hit matrices.

Abilities and difficulties are drawn from N(0, 1); each hit is Bernoulli(sigmoid(ability −
difficulty)); a share of cells is left missing (a model that skipped items). Per size:
fit wall time, Pearson correlation of the fitted difficulties with the true ones, and the
same correlation for the plain baseline 1 − accuracy (computed on the observed cells).
Baseline timing in the same run: computing 1 − accuracy.

    .venv/bin/python benchmarks/rasch_timing.py [--sizes 5x500,20x5000] [--seed 0] [--missing 0.05]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.optimize  # noqa: F401  (imported here so its load is not timed as the fit)

from bench_kit.audit.results.difficulty import fit_rasch


def simulate(n_models: int, n_items: int, missing: float, rng: np.random.Generator):
    """(matrix with NaN for missing cells, true difficulties)."""
    ability = rng.normal(0.0, 1.0, n_models)
    difficulty = rng.normal(0.0, 1.0, n_items)
    prob = 1.0 / (1.0 + np.exp(-(ability[:, None] - difficulty[None, :])))
    matrix = (rng.random(prob.shape) < prob).astype(float)
    matrix[rng.random(prob.shape) < missing] = np.nan
    return matrix, difficulty


def measure(n_models: int, n_items: int, missing: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    matrix, truth = simulate(n_models, n_items, missing, rng)
    start = time.perf_counter()
    baseline = 1.0 - np.nanmean(matrix, axis=0)
    baseline_s = time.perf_counter() - start
    start = time.perf_counter()
    _, fitted = fit_rasch(matrix)
    fit_s = time.perf_counter() - start
    usable = ~np.isnan(baseline)
    return {"size": f"{n_models} × {n_items:,}", "fit_s": fit_s, "baseline_s": baseline_s,
            "r_rasch": float(np.corrcoef(fitted, truth)[0, 1]),
            "r_accuracy": float(np.corrcoef(baseline[usable], truth[usable])[0, 1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5x500,20x5000",
                        help="comma-separated MODELSxITEMS")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--missing", type=float, default=0.05,
                        help="share of cells left missing")
    args = parser.parse_args()
    print("| models × items | Rasch fit s | 1 − accuracy s | r(Rasch, true) | "
          "r(1 − accuracy, true) |")
    print("|---|---:|---:|---:|---:|")
    for size in args.sizes.split(","):
        n_models, n_items = (int(v) for v in size.lower().split("x"))
        row = measure(n_models, n_items, args.missing, args.seed)
        print(f"| {row['size']} | {row['fit_s']:.2f} | {row['baseline_s']:.4f} | "
              f"{row['r_rasch']:.2f} | {row['r_accuracy']:.2f} |")


if __name__ == "__main__":
    main()
