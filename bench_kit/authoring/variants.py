"""`bench-kit author variants`: parallel variant families of every v0 item (docs/AUTHORING.md#2-variant-families).

Kinds (fixed variant numbers, so ids stay stable when a kind is switched off): v1 synonym,
v2 negation, v3 hypothetical, v4 deixis (reference erasure, marked intentionally harder),
v5 register (colloquial or formal), v6 paraphrase (an LLM through a model adapter), v7
irrelevant premise (a condition that cannot change the gold). Every
variant passes the gate (bench_kit.authoring.gate) or goes to the rejects file with the
reason and both scores; a kind that does not apply is recorded there as a skip.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bench_kit.authoring import counterfactual as cf
from bench_kit.authoring.answerability import AnswerabilityOracle, format_rates
from bench_kit.authoring.audit_gate import audit_flags, reject_row
from bench_kit.authoring.deixis import DeixisSettings, deixis_variant
from bench_kit.authoring.gate import (
    GateResult,
    GateThresholds,
    ZhGate,
    judge,
    needs_zh_gate,
    score_pairs,
    zh_similarity,
)
from bench_kit.authoring.lexicon import (
    register_rewrite,
    synonym_rewrite,
)
from bench_kit.authoring.rejects import RejectRow, RejectStage
from bench_kit.authoring.scenes import SceneAnn, read_annotations
from bench_kit.authoring.templates import (
    GenerateParams,
    TemplateSpec,
    load_taxonomy,
    load_templates,
)
from bench_kit.authoring.visual_prompt import MarkStyle
from bench_kit.errors import InputError
from bench_kit.io import write_jsonl
from bench_kit.items import read_items
from bench_kit.params import load_params, section
from bench_kit.registry import Registry
from bench_kit.types import Item

KIND_NUMBERS = {"synonym": 1, "negation": 2, "hypothetical": 3, "deixis": 4, "register": 5,
                "paraphrase": 6, "irrelevant_premise": 7}
# The part of the question each kind rewrites (recorded as `meta.variant.rewrites`); the gold
# of every template variant is re-derived for the rewritten question by the answerability
# oracle (bench_kit.authoring.answerability), or the variant is rejected.
KIND_REWRITES = {
    "synonym": "wording: vocabulary-preserving synonyms; the query is unchanged",
    "negation": "the asked relation: negated (gold recomputed: yes/no flipped, mc complement)",
    "hypothetical": "the scene: a stated change that moves the gold, in the conditional mood "
                    "(gold recomputed on the changed annotations)",
    "irrelevant_premise": "a stated change that cannot matter, in the conditional mood "
                          "(gold recomputed: unchanged)",
    "deixis": "one reference: replaced by a demonstrative, its referent marked on the image",
    "register": "tone and framing: colloquial or formal; the query is unchanged",
    "paraphrase": "wording, by an LLM asked to keep the gold (not re-derived: free wording)",
}


class VariantParams(BaseModel):
    """The `variants:` section of params.yaml."""

    model_config = ConfigDict(extra="forbid")

    seed: int = 5
    kinds: list[str] = Field(default_factory=lambda: ["synonym", "negation", "hypothetical",
                                                      "deixis", "register",
                                                      "irrelevant_premise"])
    paraphraser: str | None = None   # a model name under `models:`, or null
    min_kinds: int = Field(4, ge=0)  # accepted kinds each v0 item should get (reported)
    gate: GateThresholds = Field(default_factory=GateThresholds)
    gate_by_kind: dict[str, GateThresholds] = Field(default_factory=dict)
    gate_zh: ZhGate = Field(default_factory=ZhGate)   # originals that contain CJK
    visual_prompt: MarkStyle = Field(default_factory=MarkStyle)   # deixis marks

    @field_validator("kinds")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        unknown = [k for k in value if k not in KIND_NUMBERS or k == "paraphrase"]
        if unknown:
            raise ValueError(f"unknown kind(s) {unknown}; known: "
                             f"{', '.join(k for k in KIND_NUMBERS if k != 'paraphrase')} "
                             "(the paraphrase kind is switched on by `paraphraser`)")
        return value

    def limits(self, kind: str) -> GateThresholds:
        """The gate thresholds of one kind."""
        return self.gate_by_kind.get(kind, self.gate)

    def judge(self, kind: str, original: str, variant: str, cosine: float,
              ratio: float) -> GateResult:
        """The gate's verdict on one variant: the CJK gate when the original has CJK."""
        if not needs_zh_gate(original):
            return judge(cosine, ratio, self.limits(kind))
        zh = self.gate_zh
        similarity, differ = zh_similarity(cosine, original, variant, zh,
                                           kind in zh.keep_meaning)
        result = judge(similarity, ratio, zh.limits(kind))
        if differ and result.reason is not None:
            result = replace(result, reason=f"{result.reason} (differs in {', '.join(differ)})")
        return result


@dataclass
class Context:
    """What the rule-based kinds need besides the item."""

    specs: dict[str, TemplateSpec]
    scenes: dict[str, SceneAnn]
    seed: int
    sources: dict[str, cf.TemplateSource | cf.Skip] = field(default_factory=dict)
    root: Path | None = None          # the items' folder (marked images are written there)
    style: MarkStyle = field(default_factory=MarkStyle)

    def source(self, item: Item) -> cf.TemplateSource | cf.Skip:
        """The item's template source (computed once per item)."""
        if item.id not in self.sources:
            self.sources[item.id] = cf.find_source(item, self.specs, self.scenes)
        return self.sources[item.id]

    def pick(self, item: Item, salt: str) -> int:
        """A stable per-item number (for choices such as the register style)."""
        digest = hashlib.sha256(f"{self.seed}:{salt}:{item.id}".encode()).digest()
        return int.from_bytes(digest[:4], "big")


VariantRule = Callable[[Item, Context], "cf.Draft | cf.Skip"]
VARIANT_KINDS: Registry[VariantRule] = Registry("variant kind")


def _text_rule(rewrite: Callable[[str], str], why: str, **meta: Any) -> VariantRule:
    def rule(item: Item, ctx: Context) -> cf.Draft | cf.Skip:
        question = rewrite(item.question)
        if question == item.question:
            return cf.Skip(why)
        return cf.Draft(question, list(item.answers), item.choices, meta=dict(meta))
    return rule


VARIANT_KINDS.register("synonym")(_text_rule(synonym_rewrite, "no lexicon entry matches"))


@VARIANT_KINDS.register("deixis")
def _deixis(item: Item, ctx: Context) -> cf.Draft | cf.Skip:
    source = ctx.source(item)
    scene = ctx.scenes.get(item.group or "")
    solver = source.spec.gold.solver if isinstance(source, cf.TemplateSource) else None
    return deixis_variant(item, scene, solver, DeixisSettings(ctx.root, ctx.style))


@VARIANT_KINDS.register("register")
def _register(item: Item, ctx: Context) -> cf.Draft | cf.Skip:
    style = ("colloquial", "formal")[ctx.pick(item, "register") % 2]
    question = register_rewrite(item.question, style, ctx.pick(item, "prefix"))
    return cf.Draft(question, list(item.answers), item.choices, meta={"register": style})


@VARIANT_KINDS.register("negation")
def _negation(item: Item, ctx: Context) -> cf.Draft | cf.Skip:
    return cf.negation(item, ctx.source(item), ctx.seed)


@VARIANT_KINDS.register("hypothetical")
def _hypothetical(item: Item, ctx: Context) -> cf.Draft | cf.Skip:
    return cf.hypothetical(item, ctx.source(item), ctx.seed)


@VARIANT_KINDS.register("irrelevant_premise")
def _irrelevant_premise(item: Item, ctx: Context) -> cf.Draft | cf.Skip:
    return cf.irrelevant_premise(item, ctx.source(item), ctx.seed)


@dataclass
class VariantSummary:
    """What `run_variants` wrote, with per-kind tallies for the acceptance report."""

    out_path: Path
    rejects_path: Path
    n_base: int = 0
    n_items: int = 0
    proposed: Counter = field(default_factory=Counter)
    accepted: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)
    flagged: Counter = field(default_factory=Counter)
    answerability: list[dict[str, Any]] = field(default_factory=list)
    kinds_per_item: Counter = field(default_factory=Counter)
    min_kinds: int = 4

    @property
    def short_items(self) -> int:
        """v0 items with fewer than `min_kinds` accepted variant kinds."""
        return sum(n for kinds, n in self.kinds_per_item.items() if kinds < self.min_kinds)

    def rates(self) -> dict[str, dict[str, Any]]:
        """Per kind: proposed, accepted, skipped and the gate's acceptance rate."""
        return {kind: {"proposed": self.proposed[kind], "accepted": self.accepted[kind],
                       "skipped": self.skipped[kind],
                       "acceptance": round(self.accepted[kind] / self.proposed[kind], 4)
                       if self.proposed[kind] else None}
                for kind in KIND_NUMBERS if self.proposed[kind] or self.skipped[kind]}


def _variant_item(item: Item, kind: str, draft: cf.Draft, result: GateResult) -> Item:
    meta = {**item.meta, "variant": {"rule": kind, "rewrites": KIND_REWRITES[kind],
                                     **draft.meta, "similarity": result.similarity,
                                     "edit_ratio": result.edit_ratio}}
    if draft.meta.get("visual_prompt"):
        meta["visual_prompt"] = draft.meta["visual_prompt"]
    number = KIND_NUMBERS[kind]
    row = {**item.model_dump(), "id": f"{item.id}.v{number}", "question": draft.question,
           "image": draft.image or item.image,
           "answers": draft.answers, "choices": draft.choices, "variant": f"v{number}",
           "variant_of": item.id, "variant_kind": kind, "meta": meta}
    return Item.model_validate(row)


def _reject(item: Item, kind: str, stage: RejectStage, reason: str,
            draft: cf.Draft | None = None, result: GateResult | None = None) -> dict[str, Any]:
    """A rejects-file row: the original question and options beside the variant's (None
    for a skip), with the gate's similarity and edit ratio when it was scored."""
    return RejectRow(id=f"{item.id}.v{KIND_NUMBERS[kind]}", variant_of=item.id,
                     variant_kind=kind, stage=stage, reason=reason,
                     original=item.question, original_choices=item.choices,
                     question=draft.question if draft else None,
                     choices=draft.choices if draft else None,
                     similarity=result.similarity if result else None,
                     edit_ratio=result.edit_ratio if result else None).as_row()


def build_variants(items: list[Item], ctx: Context, params: VariantParams,
                   paraphrase: Callable[[list[Item]], dict[str, str | cf.Skip]] | None = None,
                   oracle: AnswerabilityOracle | None = None,
                   audit: Callable[[list[Item]], dict[str, list[Any]]] | None = None,
                   encode: Callable[[list[str]], Any] | None = None,
                   ) -> tuple[list[Item], list[dict[str, Any]], VariantSummary]:
    """Variants of every v0 item, gated; returns (items in family order, reject rows, tally).

    `paraphrase`, when given, maps v0 items to {id: LLM rewrite of the question, or Skip}.
    `oracle`, when given, rejects a variant the round-trip answerability check cannot
    answer with its stored gold (stage "answerability"); `audit` maps variants to the data
    audit's warn/error findings, and a flagged variant is rejected (stage "audit").
    `encode` embeds texts for the meaning gate (default: the bundled local model).
    """
    bases = [item for item in items if item.variant == "v0"]
    rejects: list[dict[str, Any]] = []
    summary = VariantSummary(Path(), Path(), n_base=len(bases), min_kinds=params.min_kinds)
    proposals = _propose(bases, ctx, params, paraphrase, summary, rejects)
    scores = score_pairs([(item.question, draft.question) for item, _, draft in proposals],
                         encode)
    families: dict[str, list[Item]] = {item.id: [] for item in bases}
    for (item, kind, draft), (similarity, ratio) in zip(proposals, scores, strict=True):
        variant = _gated(item, kind, draft, (similarity, ratio), params, oracle, summary,
                         rejects)
        if variant is not None:
            families[item.id].append(variant)
    if audit:
        _drop_flagged(families, audit([v for fam in families.values() for v in fam]),
                      {item.id: item for item in bases}, summary, rejects)
    out = _in_family_order(items, families, summary)
    return out, rejects, summary


Proposal = tuple[Item, str, cf.Draft]


def _propose(bases: list[Item], ctx: Context, params: VariantParams,
             paraphrase: Callable[[list[Item]], dict[str, str | cf.Skip]] | None,
             summary: VariantSummary, rejects: list[dict[str, Any]]) -> list[Proposal]:
    """Phase 1: a draft of every kind for every v0 item (a kind that does not apply is a
    `skip` reject)."""
    proposals: list[Proposal] = []
    rewrites = paraphrase(bases) if paraphrase else {}
    for item in bases:
        for kind in params.kinds + (["paraphrase"] if paraphrase else []):
            if kind == "paraphrase":
                text = rewrites.get(item.id, cf.Skip("the paraphraser gave no text"))
                draft: cf.Draft | cf.Skip = (text if isinstance(text, cf.Skip) else
                                            cf.Draft(text, list(item.answers), item.choices))
            else:
                draft = VARIANT_KINDS.get(kind)(item, ctx)
            if isinstance(draft, cf.Skip):
                summary.skipped[kind] += 1
                rejects.append(_reject(item, kind, "skip", draft.reason))
            else:
                proposals.append((item, kind, draft))
    return proposals


def _gated(item: Item, kind: str, draft: cf.Draft, scores: tuple[float, float],
           params: VariantParams, oracle: AnswerabilityOracle | None,
           summary: VariantSummary, rejects: list[dict[str, Any]]) -> Item | None:
    """Phase 2: the variant a draft makes when it passes the meaning gate and the
    answerability oracle, else None (a `gate` or `answerability` reject)."""
    similarity, ratio = scores
    summary.proposed[kind] += 1
    result = params.judge(kind, item.question, draft.question, similarity, ratio)
    if not result.accepted:
        rejects.append(_reject(item, kind, "gate", result.reason or "", draft, result))
        return None
    variant = _variant_item(item, kind, draft, result)
    # An LLM paraphrase is free wording the oracle's grammar cannot read: unchecked.
    verdict = oracle.judge(variant) if oracle is not None and kind != "paraphrase" else None
    if verdict is not None and not verdict.ok:
        rejects.append(_reject(item, kind, "answerability", verdict.reason or "", draft, result))
        return None
    summary.accepted[kind] += 1
    return variant


def _drop_flagged(families: dict[str, list[Item]], flags: dict[str, list[Any]],
                  by_id: dict[str, Item], summary: VariantSummary,
                  rejects: list[dict[str, Any]]) -> None:
    """Phase 3: take the variants the data audit flagged out of their families (an
    `audit` reject each)."""
    for base_id, family in families.items():
        kept = []
        for variant in family:
            if variant.id in flags:
                summary.accepted[variant.variant_kind] -= 1
                summary.flagged[variant.variant_kind] += 1
                rejects.append(reject_row(variant, flags[variant.id], by_id[base_id]))
            else:
                kept.append(variant)
        families[base_id] = kept


def _in_family_order(items: list[Item], families: dict[str, list[Item]],
                     summary: VariantSummary) -> list[Item]:
    """Phase 4: every input item followed by its variants; InputError when a variant's id
    is already taken (variants were built from items that already had some)."""
    out: list[Item] = []
    for item in items:
        out.append(item)
        out.extend(families.get(item.id, []))
        if item.variant == "v0":
            summary.kinds_per_item[len(families[item.id])] += 1
    seen: set[str] = set()
    for item in out:
        if item.id in seen:
            raise InputError(f"variant id '{item.id}' already exists in the input; run "
                             "variants on the v0 items only", field="id")
        seen.add(item.id)
    summary.n_items = len(out)
    return out


def run_variants(params_path: str | Path, items_path: str | Path, out: str | Path,
                 rejects_path: str | Path, annotations: str | Path | None = None,
                 templates: str | Path | None = None,
                 keep_flagged: bool = False) -> VariantSummary:
    """Read v0 items (+ annotations and templates, for the kinds that recompute golds), build
    and gate the variant families, write items and rejects atomically.

    Without annotations, negation and hypothetical variants are skipped (stated per item)
    and deixis marks nothing. With annotations every template variant must pass the
    round-trip answerability oracle; every variant must pass the audit's ambiguity and
    label checks unless `keep_flagged`.
    """
    params = load_params(params_path)
    source = str(params_path)
    settings = section(params, "variants", VariantParams, source=source)
    generate = section(params, "generate", GenerateParams, source=source)
    items = read_items(items_path)
    specs: dict[str, TemplateSpec] = {}
    scenes: dict[str, SceneAnn] = {}
    if annotations is not None:
        taxonomy = load_taxonomy(params, source=source)
        specs = {s.id: s for s in load_templates(templates or generate.templates, taxonomy)}
        scenes = {s.scene: s for s in read_annotations(annotations)}
    paraphrase = None
    if settings.paraphraser:
        from bench_kit.authoring.paraphrase import llm_paraphraser

        paraphrase = llm_paraphraser(params, settings.paraphraser, source=source)
    ctx = Context(specs=specs, scenes=scenes, seed=settings.seed, root=Path(out).parent,
                  style=settings.visual_prompt)
    oracle = AnswerabilityOracle(specs, scenes) if scenes else None
    root = Path(out).parent
    (root / settings.visual_prompt.folder).mkdir(parents=True, exist_ok=True)  # a stage output

    def audit(variants: list[Item]) -> dict[str, list[Any]]:
        return audit_flags(variants, params, root, source=source)

    from bench_kit.embed import embedder_from_params

    embedder = embedder_from_params(params, source)
    out_items, rejects, summary = build_variants(items, ctx, settings, paraphrase, oracle,
                                                 None if keep_flagged else audit,
                                                 encode=embedder.encode)
    if oracle is not None:
        summary.answerability = oracle.rates()
    write_jsonl(out, out_items)
    write_jsonl(rejects_path, rejects)
    summary.out_path, summary.rejects_path = Path(out), Path(rejects_path)
    return summary


def format_variant_summary(summary: VariantSummary) -> str:
    """Acceptance per kind and the family-size histogram, as plain text."""
    lines = [f"{'kind':<20}{'proposed':>9}{'accepted':>9}{'rate':>8}{'skipped':>9}",
             "-" * 55]
    for kind, row in summary.rates().items():
        rate = f"{row['acceptance']:.1%}" if row["acceptance"] is not None else "-"
        lines.append(f"{kind:<20}{row['proposed']:>9}{row['accepted']:>9}{rate:>8}"
                     f"{row['skipped']:>9}")
    sizes = "  ".join(f"{k}: {n}" for k, n in sorted(summary.kinds_per_item.items()))
    lines.append(f"accepted kinds per v0 item -> items: {sizes}")
    lines.append(f"v0 items with fewer than {summary.min_kinds} kinds: {summary.short_items} "
                 f"of {summary.n_base}")
    if summary.flagged:
        lines.append("rejected by the audit gate: " + "  ".join(
            f"{k}: {n}" for k, n in sorted(summary.flagged.items())))
    if summary.answerability:
        lines.append(format_rates(summary.answerability))
    return "\n".join(lines)
