"""Comparing a benchmark's scores between two revisions (`bench-kit compare`).

A change of a model's accuracy has two causes: the data changed (items added, removed or
edited, by content hash) or the model's answers to the same items changed. The second is
tested with McNemar on the items unchanged between the revisions; the first is the rest
of the change.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from bench_kit.history.revisions import Snapshot, item_hash, load_snapshot
from bench_kit.stats.paired import holm, mcnemar
from bench_kit.types import MODES, Item, Score

DIGITS = 6
EXAMPLES = 5


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def _rate(hits: list[bool]) -> float | None:
    return _r(sum(hits) / len(hits)) if hits else None


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else _r(b - a)


def data_changes(a: dict[str, Item], b: dict[str, Item]) -> dict:
    """Items added, removed, edited (same id, other content) and unchanged from a to b."""
    added = sorted(set(b) - set(a))
    removed = sorted(set(a) - set(b))
    common = sorted(set(a) & set(b))
    edited = [i for i in common if item_hash(a[i]) != item_hash(b[i])]
    unchanged = sorted(set(common) - set(edited))
    return {"items_a": len(a), "items_b": len(b), "added": added, "removed": removed,
            "edited": edited, "unchanged": unchanged}


def _valid(scores: dict[str, Score], ids) -> dict[str, bool]:
    return {i: scores[i].hit for i in ids if i in scores and scores[i].error is None}


def paired_change(a: dict[str, bool], b: dict[str, bool]) -> dict:
    """Accuracy at a and b on the items both scored, and McNemar on the flips."""
    ids = sorted(set(a) & set(b))
    lost = sum(a[i] and not b[i] for i in ids)
    gained = sum(b[i] and not a[i] for i in ids)
    test = mcnemar(lost, gained)
    acc_a, acc_b = _rate([a[i] for i in ids]), _rate([b[i] for i in ids])
    return {"n": len(ids), "accuracy_a": acc_a, "accuracy_b": acc_b,
            "delta": _delta(acc_a, acc_b), "lost": lost, "gained": gained,
            "test": test.method, "p_value": float(f"{test.p_value:.6g}")}


def _capability_rows(sa: dict[str, Score], sb: dict[str, Score], snap_a: Snapshot,
                     snap_b: Snapshot, changes: dict) -> list[dict]:
    by_cap: dict[str, list[str]] = defaultdict(list)
    for i in changes["unchanged"]:
        by_cap[snap_b.items[i].capability].append(i)
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"added": 0, "removed": 0,
                                                            "edited": 0})
    for kind, source in (("added", snap_b.items), ("removed", snap_a.items),
                         ("edited", snap_b.items)):
        for i in changes[kind]:
            counts[source[i].capability][kind] += 1
    rows = []
    for capability in sorted(set(by_cap) | set(counts)):
        ids = by_cap.get(capability, [])
        all_a = list(_valid(sa, [i for i, it in snap_a.items.items()
                                 if it.capability == capability]).values())
        all_b = list(_valid(sb, [i for i, it in snap_b.items.items()
                                 if it.capability == capability]).values())
        rows.append({"capability": capability, "accuracy_a": _rate(all_a),
                     "accuracy_b": _rate(all_b), "delta": _delta(_rate(all_a), _rate(all_b)),
                     "same_items": paired_change(_valid(sa, ids), _valid(sb, ids)),
                     **counts[capability]})
    return rows


def compare_snapshots(snap_a: Snapshot, snap_b: Snapshot, *, alpha: float = 0.05) -> dict:
    """Per model and mode present at both revisions: total accuracy change, the change on
    unchanged items (McNemar, Holm across models and modes; per capability Holm across
    all capability tests) and the part of the change due to the data."""
    changes = data_changes(snap_a.items, snap_b.items)
    models: list[dict[str, Any]] = []
    for model in sorted(set(snap_a.scores) | set(snap_b.scores)):
        for mode in MODES:
            sa = snap_a.scores.get(model, {}).get(mode)
            sb = snap_b.scores.get(model, {}).get(mode)
            if sa is None or sb is None:
                if sa is not None or sb is not None:
                    models.append({"model": model, "mode": mode,
                                   "status": "only_a" if sa is not None else "only_b"})
                continue
            acc_a = _rate(list(_valid(sa, snap_a.items).values()))
            acc_b = _rate(list(_valid(sb, snap_b.items).values()))
            same = paired_change(_valid(sa, changes["unchanged"]),
                                 _valid(sb, changes["unchanged"]))
            total = _delta(acc_a, acc_b)
            models.append({
                "model": model, "mode": mode, "status": "both",
                "accuracy_a": acc_a, "accuracy_b": acc_b, "delta": total,
                "same_items": same,
                "data_effect": None if total is None or same["delta"] is None
                else _r(total - same["delta"]),
                "by_capability": _capability_rows(sa, sb, snap_a, snap_b, changes)})
    both = [m for m in models if m["status"] == "both"]
    _holm([m["same_items"] for m in both], alpha)
    _holm([c["same_items"] for m in both for c in m["by_capability"]], alpha)
    summary = {k: len(v) if isinstance(v, list) else v for k, v in changes.items()}
    summary["examples"] = {k: changes[k][:EXAMPLES] for k in ("added", "removed", "edited")}
    return {"rev_a": snap_a.rev, "rev_b": snap_b.rev, "commit_a": snap_a.commit,
            "commit_b": snap_b.commit, "alpha": alpha, "data": summary, "models": models}


def _holm(tests: list[dict], alpha: float) -> None:
    for test, adjusted in zip(tests, holm([t["p_value"] for t in tests])):
        test["p_holm"] = float(f"{adjusted:.6g}")
        test["significant"] = adjusted < alpha


def compare_revisions(repo: str | Path, rev_a: str, rev_b: str, *, bench: str = "demo",
                      items_path: str | None = None, scores_dir: str | None = None,
                      alpha: float = 0.05) -> dict:
    """Compare the per-item scores of `bench` between two git revisions of `repo`.

    Args:
        repo: the project (git + DVC) root.
        rev_a, rev_b: git revisions (older first, by convention).
        bench: benchmark name; the defaults below derive from it.
        items_path: items the scores are on [datasets/<bench>/splits/test.jsonl].
        scores_dir: one `<model>/<mode>.jsonl` folder per model [scores/<bench>].
    """
    items_path = items_path or f"datasets/{bench}/splits/test.jsonl"
    scores_dir = scores_dir or f"scores/{bench}"
    snap_a = load_snapshot(repo, rev_a, items_path, scores_dir)
    snap_b = load_snapshot(repo, rev_b, items_path, scores_dir)
    result = compare_snapshots(snap_a, snap_b, alpha=alpha)
    result["bench"] = bench
    return result


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _pts(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:+.1f}"


def _verdict(test: dict) -> str:
    mark = "significant" if test["significant"] else "not significant"
    return (f"{test['lost']} lost / {test['gained']} gained, McNemar {test['test']} "
            f"p={test['p_value']:.2g} (Holm {test['p_holm']:.2g}): {mark}")


def format_comparison(result: dict, *, capabilities: bool = True) -> str:
    """The comparison as text: data changes first, then one block per model and mode."""
    d = result["data"]
    lines = [(f"{result['bench']}: {result['rev_a']} ({result['commit_a'][:8]}) -> "
              f"{result['rev_b']} ({result['commit_b'][:8]})"),
             (f"data: {d['items_a']} -> {d['items_b']} items; {d['added']} added, "
              f"{d['removed']} removed, {d['edited']} edited, {d['unchanged']} unchanged")]
    for model in result["models"]:
        head = f"{model['model']} [{model['mode']}]"
        if model["status"] != "both":
            lines.append(f"{head}: only at {'A' if model['status'] == 'only_a' else 'B'}")
            continue
        same = model["same_items"]
        lines.append(f"{head}: {_pct(model['accuracy_a'])} -> {_pct(model['accuracy_b'])} "
                     f"({_pts(model['delta'])} pts) = same items {_pts(same['delta'])} "
                     f"+ data {_pts(model['data_effect'])}")
        lines.append(f"  same {same['n']} items: {_verdict(same)}")
        if not capabilities:
            continue
        for cap in model["by_capability"]:
            s = cap["same_items"]
            if cap["delta"] in (None, 0.0) and not s["lost"] and not s["gained"] \
                    and not (cap["added"] or cap["removed"] or cap["edited"]):
                continue
            data = ", ".join(f"{cap[k]} {k}" for k in ("added", "removed", "edited") if cap[k])
            lines.append(f"  {cap['capability']}: {_pts(cap['delta'])} pts; same items "
                         f"{_pts(s['delta'])} ({s['lost']}-/{s['gained']}+, Holm p="
                         f"{s['p_holm']:.2g}{', significant' if s['significant'] else ''})"
                         + (f"; data: {data}" if data else ""))
    return "\n".join(lines)
