"""Variants whose gold is recomputed from the scene annotations: negation (the template's
negated wording; yes/no flipped, mc = the options the gold does not match) and hypothetical
condition (remove an object or a bar, or repaint a sign, then re-run the template's solver).

Each builder returns a `Draft` or a `Skip` with the reason no sound variant exists.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from bench_kit.authoring.bindings import BINDERS, Binding, localise
from bench_kit.authoring.lexicon import condition_prefix
from bench_kit.authoring.scenes import SceneAnn
from bench_kit.authoring.solvers import SOLVERS
from bench_kit.authoring.templates import TemplateSpec, item_id_for
from bench_kit.authoring.vocab import COLOURS, answers_for, plural, zh
from bench_kit.types import Item


@dataclass(frozen=True)
class Draft:
    """A proposed variant: new question and gold, plus what to record in `meta.variant`."""

    question: str
    answers: list[str]
    choices: dict[str, str] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    image: str | None = None   # a new image (e.g. the referent marked), else the item's


@dataclass(frozen=True)
class Skip:
    """No variant of this kind for this item, and why."""

    reason: str


@dataclass
class TemplateSource:
    """What recomputing a template item's gold needs: its template, scene and binding."""

    spec: TemplateSpec
    scene: SceneAnn
    binding: Binding

    def args(self) -> dict[str, Any]:
        """The solver arguments with the binding's slots filled in."""
        return {k: v.format_map(self.binding.slots) if isinstance(v, str) else v
                for k, v in self.spec.gold.args.items()}

    def solve(self, scene: SceneAnn | None = None) -> Any:
        """The template's gold on `scene` (default: the original scene)."""
        return SOLVERS.get(self.spec.gold.solver)(scene or self.scene, **self.args())


def find_source(item: Item, specs: dict[str, TemplateSpec],
                scenes: dict[str, SceneAnn]) -> TemplateSource | Skip:
    """The template, scene and binding an item was generated from, or why it is unknown."""
    if not item.source.startswith("template:"):
        return Skip(f"source '{item.source}' is not a template: the gold cannot be recomputed")
    spec = specs.get(item.source.removeprefix("template:"))
    if spec is None:
        return Skip(f"template '{item.source.removeprefix('template:')}' is not in the "
                    "templates file")
    scene = scenes.get(item.group or "")
    if scene is None:
        return Skip(f"scene '{item.group}' is not in the annotations")
    for binding in BINDERS.get(spec.for_each).enumerate(scene):
        if item_id_for(spec, scene, binding.key) == item.id:
            return TemplateSource(spec, scene, binding)
    return Skip("no binding of the template matches the item id (annotations changed?)")


def gold_answers(spec: TemplateSpec, gold: Any, choices: dict[str, str] | None) -> list[str] | None:
    """The `answers` field for a recomputed gold value; None when it cannot be expressed
    (an mc gold that is not among the item's options)."""
    if spec.task == "yesno":
        return ["yes" if gold else "no"]
    if spec.task == "grounding":
        return [",".join(str(int(v)) for v in gold)]
    if spec.task == "numeric":
        return [str(gold)]
    if spec.task == "open":
        values = answers_for(str(gold))
        if spec.lang == "zh" and localise(str(gold), "zh") != str(gold):
            values = [localise(str(gold), "zh"), *values]
        return values
    text = localise(str(gold), spec.lang)
    letters = [letter for letter, option in (choices or {}).items() if option == text]
    return letters or None


def template_slots(source: TemplateSource) -> dict[str, str]:
    """The binding's slot values in the template's language (as the question shows them)."""
    return {k: localise(v, source.spec.lang) for k, v in source.binding.slots.items()}


def negation(item: Item, source: TemplateSource | Skip) -> Draft | Skip:
    """The template's negated question with the gold recomputed from the annotations."""
    if item.task not in ("yesno", "mc"):
        return Skip(f"task {item.task}: a negated question has no single gold")
    if isinstance(source, Skip):
        return source
    wording = source.spec.variants.negation
    if wording is None:
        return Skip(f"template '{source.spec.id}' declares no negated wording "
                    "(variants.negation)")
    gold = source.solve()
    if gold is None:
        return Skip("the solver finds the question ambiguous on these annotations")
    if gold_answers(source.spec, gold, item.choices) != item.answers:
        return Skip("the annotations no longer give the v0 gold")
    question = wording.format_map(template_slots(source))
    if item.task == "yesno":
        return Draft(question, ["no" if gold else "yes"], meta={"negated_gold": not gold})
    text = localise(str(gold), source.spec.lang)
    others = [letter for letter, option in (item.choices or {}).items() if option != text]
    if not others:
        return Skip("every option matches the gold")
    return Draft(question, others, item.choices, meta={"negated_gold": others})


def _rank(seed: int, item_id: str, key: str) -> str:
    return hashlib.sha256(f"{seed}:{item_id}:{key}".encode()).hexdigest()


Change = tuple[str, list[SceneAnn], str, str]


def _object_removals(scene: SceneAnn) -> list[Change]:
    """Remove one object: "the red square", or "one of the red squares" (then every such
    object is removed in turn and the gold must come out the same)."""
    groups: dict[tuple[str, str], list[int]] = {}
    for k, obj in enumerate(scene.objects):
        groups.setdefault((obj.colour, obj.shape), []).append(k)
    out = []
    for (colour, shape), members in groups.items():
        scenes = [scene.model_copy(update={"objects": [o for j, o in enumerate(scene.objects)
                                                        if j != k]}) for k in members]
        if len(members) == 1:
            en, zh_text = f"the {colour} {shape} were removed", f"去掉{zh(colour)}的{zh(shape)}"
        else:
            en = f"one of the {colour} {plural(shape)} were removed"
            zh_text = f"去掉一个{zh(colour)}的{zh(shape)}"
        out.append((f"remove:{colour}-{shape}", scenes, en, zh_text))
    return out


def _changes(scene: SceneAnn) -> list[Change]:
    """(key, changed scenes, English clause, Chinese clause) for each change of the scene."""
    out = _object_removals(scene)
    if scene.kind == "chart" and scene.chart is not None and len(scene.chart.bars) > 2:
        chart = scene.chart
        for k, bar in enumerate(chart.bars):
            keep = [j for j in range(len(chart.bars)) if j != k]
            new_chart = chart.model_copy(update={
                "labels": [chart.labels[j] for j in keep], "values": [chart.values[j] for j in keep],
                "bars": [chart.bars[j] for j in keep]})
            out.append((f"remove:{bar.label}", [scene.model_copy(update={"chart": new_chart})],
                        f"the {bar.label} bar were removed", f"去掉“{bar.label}”这根柱子"))
    if scene.kind == "sign":
        colours = [t.colour for t in scene.texts]
        paint = next((c for c in COLOURS if c not in colours), None)
        for k, text in enumerate(scene.texts):
            if paint is None or text.colour is None or colours.count(text.colour) > 1:
                continue
            texts = list(scene.texts)
            texts[k] = text.model_copy(update={"colour": paint})
            out.append((f"repaint:{k}", [scene.model_copy(update={"texts": texts})],
                        f"the {text.colour} sign were painted {paint}",
                        f"把{zh(text.colour)}的牌子涂成{zh(paint)}"))
    return out


def _gives_away(clause: str, answers: list[str]) -> bool:
    """Whether the condition clause states a gold answer ("If the orange star were removed,
    what colour is the triangle?" with gold orange)."""
    return any(re.search(rf"(?<![\w]){re.escape(a)}(?![\w])", clause, re.IGNORECASE)
               for a in answers if a)


def hypothetical(item: Item, source: TemplateSource | Skip, seed: int) -> Draft | Skip:
    """A condition on a changed scene ("If the red square were removed, ...") with the gold
    recomputed by re-running the template's solver on the changed annotations. Changes that
    move the gold are preferred; ties are broken by a stable hash."""
    if isinstance(source, Skip):
        return source
    lang = source.spec.lang
    found = []
    for key, changed, clause_en, clause_zh in _changes(source.scene):
        golds = [source.solve(scene) for scene in changed]
        if any(g is None for g in golds) or any(g != golds[0] for g in golds):
            continue  # ambiguous after the change, or depends on which object went
        answers = gold_answers(source.spec, golds[0], item.choices)
        if answers is None or (item.task in ("open", "numeric")
                               and _gives_away(clause_zh if lang == "zh" else clause_en, answers)):
            continue
        moved = answers != item.answers
        found.append((not moved, _rank(seed, item.id, key), key, answers, moved,
                      clause_zh if lang == "zh" else clause_en))
    if not found:
        return Skip(f"no change of this {source.scene.kind} scene keeps the question answerable")
    _, _, key, answers, moved, clause = min(found)
    return Draft(condition_prefix(item.question, clause), answers, item.choices,
                 meta={"change": key, "gold_changed": moved})
