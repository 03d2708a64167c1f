"""The data audit as a gate on what the kit generates: `author generate` and `author
variants` run the audit's ambiguity and label checks on their own items; an item flagged
warn or worse goes to the rejects file with the findings instead of the items file (unless
`--keep-flagged`). See docs/AUTHORING.md ("The audit gate").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from bench_kit.authoring.rejects import RejectRow
from bench_kit.types import Finding, Item

if TYPE_CHECKING:
    from bench_kit.authoring.scenes import SceneAnn
    from bench_kit.authoring.templates import TemplateSpec

GATE_FAMILIES = ("ambiguity", "label")
GATE_SEVERITIES = ("warn", "error")


def audit_flags(items: Sequence[Item], params: dict[str, Any], root: str | Path,
                source: str = "params.yaml") -> dict[str, list[Finding]]:
    """Item id -> the warn/error findings of the enabled ambiguity and label checks (the
    `audit:` section of params configures them as for `bench-kit audit data`)."""
    from bench_kit.audit.registry import AuditContext, CheckSkipped
    from bench_kit.audit.stage import list_checks, load_audit_settings

    settings = load_audit_settings(params, source=source)
    ctx = AuditContext(items=list(items), root=Path(root), params=params, params_source=source)
    flags: dict[str, list[Finding]] = {}
    for spec in list_checks():
        if spec.family not in GATE_FAMILIES or spec.name in settings.disabled or spec.requires:
            continue
        try:
            findings = list(spec.run(ctx, settings.params[spec.name]))
        except CheckSkipped:
            continue
        for finding in findings:
            if finding.severity in GATE_SEVERITIES:
                flags.setdefault(finding.id, []).append(finding)
    return flags


def reject_row(item: Item, findings: list[Finding],
               original: Item | None = None) -> dict[str, Any]:
    """The rejects-file row of an item the audit flagged: for a variant, the original
    question and options beside its own, with the gate's similarity and edit ratio."""
    scores = (item.meta or {}).get("variant") or {}
    return RejectRow(
        id=item.id, variant_of=item.variant_of, variant_kind=item.variant_kind, stage="audit",
        reason="; ".join(f"{f.check} ({f.severity}): {f.message}" for f in findings),
        original=original.question if original else None,
        original_choices=original.choices if original else None,
        question=item.question, choices=item.choices,
        similarity=scores.get("similarity"), edit_ratio=scores.get("edit_ratio"),
        findings=[f.model_dump(mode="json") for f in findings]).as_row()


@dataclass
class GateOutcome:
    """Items kept, reject rows, and the answerability acceptance per template and kind."""

    items: list[Item]
    rejects: list[dict[str, Any]] = field(default_factory=list)
    rates: list[dict[str, Any]] = field(default_factory=list)


def gate_generated(items: list[Item], specs: Sequence[TemplateSpec],
                   scenes: Sequence[SceneAnn], params: dict[str, Any], root: str | Path,
                   source: str = "params.yaml", keep_flagged: bool = False) -> GateOutcome:
    """The generate stage's gate: the round-trip answerability oracle, then the audit."""
    from bench_kit.authoring.answerability import AnswerabilityOracle

    oracle = AnswerabilityOracle({s.id: s for s in specs}, {s.scene: s for s in scenes})
    kept: list[Item] = []
    rejects: list[dict[str, Any]] = []
    for item in items:
        verdict = oracle.judge(item)
        if verdict is not None and not verdict.ok:
            rejects.append(RejectRow(id=item.id, variant_of=None,
                                     variant_kind=item.variant_kind, stage="answerability",
                                     reason=verdict.reason or "",
                                     question=item.question).as_row())
        else:
            kept.append(item)
    flags = {} if keep_flagged else audit_flags(kept, params, root, source)
    rejects += [reject_row(item, flags[item.id]) for item in kept if item.id in flags]
    return GateOutcome([item for item in kept if item.id not in flags], rejects, oracle.rates())
