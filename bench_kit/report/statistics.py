"""The report's statistics: bootstrap CIs of macro accuracy, pairwise tests, and the MDD.

Works on `ModelRun`s; every bootstrap is seeded from the report settings so the report is
byte-stable. Pure computation: the view (`report_view`) decides how to show it.
"""

from __future__ import annotations

from itertools import combinations
from statistics import median

from bench_kit.report.inputs import ModelRun, ReportSettings
from bench_kit.report.once import sees_image
from bench_kit.stats.intervals import bootstrap_accuracy
from bench_kit.stats.paired import (
    holm,
    mcnemar,
    min_detectable_difference,
    min_detectable_difference_unpaired,
    paired_bootstrap,
)
from bench_kit.types import MODES, Item

DIGITS = 6


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def _sig(value: float | None) -> float | None:
    """Six significant digits: p-values keep their magnitude (1.2e-20 stays non-zero)."""
    return None if value is None else float(f"{value:.6g}")


def cluster_of(item: Item) -> str:
    """The bootstrap cluster of an item: its `group` (shared image/scene), else itself."""
    return item.group if item.group else f"item:{item.id}"


def valid_hits(run: ModelRun, mode: str) -> dict[str, bool]:
    """id -> hit for the items scored without a request error in `mode`."""
    return {i: s.hit for i, s in run.scores.get(mode, {}).items() if s.error is None}


def macro_interval(run: ModelRun, mode: str, items: dict[str, Item],
                   settings: ReportSettings) -> dict:
    """Micro and macro (per-capability-equal) accuracy with clustered bootstrap CIs."""
    hits = valid_hits(run, mode)
    if not hits:
        return {"macro": None, "macro_low": None, "macro_high": None,
                "micro_boot_low": None, "micro_boot_high": None, "clusters": 0}
    ids = sorted(hits)
    outcome = [hits[i] for i in ids]
    clusters = [cluster_of(items[i]) for i in ids]
    resamples, seed = settings.bootstrap_resamples, settings.seed
    macro = bootstrap_accuracy(outcome, strata=[items[i].capability for i in ids],
                               clusters=clusters, n_resamples=resamples, seed=seed)
    micro = bootstrap_accuracy(outcome, clusters=clusters, n_resamples=resamples, seed=seed)
    return {"macro": _r(macro.value), "macro_low": _r(macro.low), "macro_high": _r(macro.high),
            "micro_boot_low": _r(micro.low), "micro_boot_high": _r(micro.high),
            "clusters": macro.clusters}


def compare_pair(a: ModelRun, b: ModelRun, mode: str, items: dict[str, Item],
                 settings: ReportSettings) -> dict | None:
    """A vs B in one mode on the items both answered without error (None if none)."""
    hits_a, hits_b = valid_hits(a, mode), valid_hits(b, mode)
    ids = sorted(set(hits_a) & set(hits_b))
    if not ids:
        return None
    xa, xb = [hits_a[i] for i in ids], [hits_b[i] for i in ids]
    only_a = sum(x and not y for x, y in zip(xa, xb))
    only_b = sum(y and not x for x, y in zip(xa, xb))
    test = mcnemar(only_a, only_b)
    diff = paired_bootstrap(xa, xb, clusters=[cluster_of(items[i]) for i in ids],
                            n_resamples=settings.bootstrap_resamples, seed=settings.seed)
    discordance = (only_a + only_b) / len(ids)
    return {"mode": mode, "model_a": a.model, "model_b": b.model, "n": len(ids),
            "accuracy_a": _r(sum(xa) / len(ids)), "accuracy_b": _r(sum(xb) / len(ids)),
            "difference": _r(diff.value), "diff_low": _r(diff.low), "diff_high": _r(diff.high),
            "only_a": only_a, "only_b": only_b, "discordance": _r(discordance),
            "test": test.method, "statistic": _r(test.statistic), "p_value": _sig(test.p_value),
            "mdd": _r(min_detectable_difference(len(ids), discordance, alpha=settings.alpha,
                                                power=settings.power))}


def pairwise(runs: list[ModelRun], items: dict[str, Item],
             settings: ReportSettings) -> list[dict]:
    """Every pair of models in every mode both ran, at least one of which looks at the image
    (once.sees_image: blind baseline vs blind baseline says nothing about vision),
    Holm-corrected across all of them.

    Rows are ordered by mode, then model names; `significant` needs the Holm p-value below
    alpha and the clustered paired-bootstrap CI of the difference to exclude 0.
    """
    rows = []
    for mode in MODES:
        ran = sorted((r for r in runs if mode in r.scores), key=lambda r: r.model)
        for a, b in combinations(ran, 2):
            if not (sees_image(a) or sees_image(b)):
                continue
            row = compare_pair(a, b, mode, items, settings)
            if row is not None:
                rows.append(row)
    for row, adjusted in zip(rows, holm([row["p_value"] for row in rows])):
        row["p_holm"] = _sig(adjusted)
        # McNemar treats items as independent; questions sharing an image are not, so a
        # difference counts only when the group-clustered bootstrap CI also excludes 0.
        low, high = row["diff_low"], row["diff_high"]
        clear = low is not None and high is not None and (low > 0 or high < 0)
        row["significant"] = adjusted < settings.alpha and clear
        # the words follow the corrected p shown beside them
        row["verdict"] = ("significant" if row["significant"] else
                          f"Holm p < {settings.alpha:g}, but the clustered CI includes 0"
                          if adjusted < settings.alpha else
                          f"not significant (Holm p ≥ {settings.alpha:g})")
    return rows


def power_note(runs: list[ModelRun], pairs: list[dict], settings: ReportSettings) -> list[dict]:
    """Per mode: n, the observed discordance across pairs, and the minimum detectable
    difference (paired, at the median discordance; unpaired at the mean accuracy)."""
    notes = []
    for mode in MODES:
        ran = [r for r in runs if mode in r.scores]
        if not ran:
            continue
        sizes = [len(valid_hits(r, mode)) for r in ran]
        n = min(sizes)
        accuracies = [sum(valid_hits(r, mode).values()) / s for r, s in zip(ran, sizes) if s]
        mode_pairs = [p for p in pairs if p["mode"] == mode]
        discord = [p["discordance"] for p in mode_pairs]
        mid = median(discord) if discord else None
        notes.append({
            "mode": mode, "n": n, "pairs": len(mode_pairs),
            "discordance_median": _r(mid),
            "discordance_min": _r(min(discord)) if discord else None,
            "discordance_max": _r(max(discord)) if discord else None,
            "mdd_paired": _r(min_detectable_difference(n, mid, alpha=settings.alpha,
                                                       power=settings.power))
            if mid is not None else None,
            "mdd_unpaired": _r(min_detectable_difference_unpaired(
                n, sum(accuracies) / len(accuracies), alpha=settings.alpha,
                power=settings.power)) if accuracies else None,
            "alpha": settings.alpha, "power": settings.power,
        })
    return notes
