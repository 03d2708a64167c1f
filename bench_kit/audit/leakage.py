"""Leakage across splits (docs/AUDIT_METHODS.md): the same content in two split files.

Items are matched to splits by id (`--splits DIR`: every `*.jsonl` there is one split,
named by its file stem); split rows whose id is not among the audited items are ignored.
Three kinds, one finding per item (the most severe kind sets the severity):

- `same_id`: one item id in two split files (error);
- `image`: an image whose pixels, or a pHash near duplicate (≤ `phash_duplicate`, flip
  included, confirmed by the colour channels), are used by items of another split (error) —
  this includes one image file shared across splits, i.e. a group cut by the split;
- `question`: a text-only item whose content — normalised hint + question with its option
  set (audit/content.py) — is also a text-only item of another split (warn). Items that
  share a question stem but differ in passage, options or image are template siblings, not
  leakage: nothing is reported for them (an image shared across splits is the `image` kind).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterator

from bench_kit.audit.content import item_content_keys
from bench_kit.audit.image_checks import (
    MAX_LISTED,
    PhashParams,
    clusters,
    copies,
    is_duplicate,
    phash_pairs,
)
from bench_kit.audit.registry import AuditContext, CheckSpec, check
from bench_kit.types import SEVERITY_RANK, Finding, Severity


def _membership(ctx: AuditContext) -> dict[str, list[str]]:
    """Audited item id -> the sorted names of the splits that list it."""
    member: dict[str, set[str]] = defaultdict(set)
    for name, ids in (ctx.splits or {}).items():
        for ident in ids:
            if ident in ctx.by_id:
                member[ident].add(name)
    return {ident: sorted(names) for ident, names in member.items()}


def _others(ident: str, peers: list[str], member: dict[str, list[str]]) -> list[str]:
    """Peers that sit in a split `ident` is not in."""
    mine = set(member[ident])
    return sorted(p for p in peers if p != ident and set(member[p]) - mine)


def _image_leaks(ctx: AuditContext, params: PhashParams,
                 member: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    index = ctx.images
    reps = [paths[0] for paths in index.by_sha.values()]
    position = {rep: k for k, rep in enumerate(reps)}
    edges = [(position[p.a], position[p.b]) for p in phash_pairs(ctx, params.phash_review)
             if is_duplicate(ctx, p, params)[0]]
    leaks: dict[str, dict[str, Any]] = {}
    for group in clusters(len(reps), edges):
        paths = [index.paths[i] for k in group for i in copies(index, reps[k])]
        users = sorted({u for path in paths for u in index.users[path] if u in member})
        if len({name for u in users for name in member[u]}) < 2:
            continue
        for ident in users:
            others = _others(ident, users, member)
            if not others:
                continue
            mine = sorted(set(ctx.images.item_paths[ident]) & set(paths))
            leaks[ident] = {"image": mine[0], "other_splits": _splits_of(others, member),
                            "other_items": others[:MAX_LISTED], "other_item_count": len(others)}
    return leaks


def _question_leaks(ctx: AuditContext,
                    member: dict[str, list[str]]) -> dict[str, tuple[Severity, dict[str, Any]]]:
    by_content: dict[str, list[str]] = defaultdict(list)
    for ident in sorted(member):
        item = ctx.by_id[ident]
        if not item.images:  # with an image, the image decides (the `image` kind)
            by_content[item_content_keys(item)[0]].append(ident)
    leaks: dict[str, tuple[Severity, dict[str, Any]]] = {}
    for idents in by_content.values():
        for ident in idents:
            others = _others(ident, idents, member)
            if not others:
                continue
            leaks[ident] = ("warn", {"span": ctx.questions[ident], "text_only": True,
                                     "other_splits": _splits_of(others, member),
                                     "other_items": others[:MAX_LISTED],
                                     "other_item_count": len(others)})
    return leaks


def _splits_of(idents: list[str], member: dict[str, list[str]]) -> list[str]:
    return sorted({name for ident in idents for name in member[ident]})


@check("leakage.cross_split", severity="error", params=PhashParams, requires=("splits",))
def cross_split(ctx: AuditContext, params: PhashParams, spec: CheckSpec) -> Iterator[Finding]:
    """The same id, image (or near duplicate), or text-only content in two split files."""
    member = _membership(ctx)
    needs_images = any(ctx.by_id[ident].images for ident in member)
    image_leaks = _image_leaks(ctx, params, member) if needs_images else {}
    question_leaks = _question_leaks(ctx, member)
    for ident in sorted(member):
        kinds: dict[str, tuple[Severity, dict[str, Any]]] = {}
        if len(member[ident]) > 1:
            kinds["same_id"] = ("error", {"splits": member[ident]})
        if ident in image_leaks:
            kinds["image"] = ("error", image_leaks[ident])
        if ident in question_leaks:
            kinds["question"] = question_leaks[ident]
        if not kinds:
            continue
        top = max(kinds, key=lambda k: SEVERITY_RANK[kinds[k][0]])
        severity, detail = kinds[top]
        where = ", ".join(detail.get("other_splits", member[ident]))
        message = {"same_id": f"item is listed in several splits ({where})",
                   "image": f"its image '{detail.get('image')}' (or a duplicate) is also "
                            f"used in {where}",
                   "question": f"the same question is also asked in {where}"}[top]
        evidence = {"splits": member[ident], "kinds": sorted(kinds),
                    **{kind: detail for kind, (_, detail) in sorted(kinds.items())}}
        yield spec.finding(ident, message, evidence, severity=severity)
