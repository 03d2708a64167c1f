"""Round-trip answerability: can the question as written be answered from the annotations?

The oracle holds the scene annotations (objects' shapes, colours, sizes and boxes, sign
texts, chart bars), the item as posed (question text, task, options, the marked region of a
visual prompt) and the question grammar of the templates file with the rewrite rules of the
variant kinds. It does NOT hold the item's template binding: it enumerates every reading of
every template over the scene (every binding, every variant wording: synonym, register,
negation, hypothetical condition, reference erasure), keeps the readings whose text equals
the question, and solves each. The item is answerable when the readings that fit it reach
exactly one answer and that answer is the stored gold. A demonstrative whose referent is
not marked fits every reading that erases some phrase to it, so an unmarked "this object"
with several candidates fails, as does a rewrite that changed the question's meaning.
See docs/AUTHORING.md ("Round-trip answerability").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench_kit.authoring import counterfactual as cf
from bench_kit.authoring.bindings import BINDERS
from bench_kit.authoring.changes import changed_gold, scene_changes
from bench_kit.authoring.deixis import NoReferent, referent_boxes
from bench_kit.authoring.lexicon import deixis_rewrites, register_rewrites, synonym_rewrite
from bench_kit.authoring.scenes import SceneAnn
from bench_kit.authoring.solvers import SOLVERS
from bench_kit.authoring.templates import TemplateSpec
from bench_kit.types import Item

_NOT_AN_OPTION = "its answer is not among the options"
_UNMARKED = "a demonstrative whose referent is not marked on the image"


@dataclass(frozen=True)
class Reading:
    """One way to read a question text: a template, its raw gold on the scene (None =
    ambiguous), whether it is the negated wording, and what the wording points at.

    `marks` None: no mark needed; a tuple: the item's marked box must be one of these.
    """

    spec: TemplateSpec
    gold: Any
    negated: bool = False
    marks: tuple[tuple[int, ...], ...] | None = None
    needs_options: bool = False
    scene: SceneAnn | None = None   # negated mc readings test the options on it


def scene_readings(scene: SceneAnn, specs: list[TemplateSpec]) -> dict[str, list[Reading]]:
    """Question text -> every reading of it on this scene (all templates, bindings and
    variant wordings)."""
    table: dict[str, list[Reading]] = {}

    def add(text: str, reading: Reading) -> None:
        table.setdefault(text, []).append(reading)

    changes = scene_changes(scene)
    for spec in specs:
        if scene.kind not in spec.scene:
            continue
        solver = SOLVERS.get(spec.gold.solver)
        lang = "zh" if spec.lang == "zh" else "en"
        for binding in BINDERS.get(spec.for_each).enumerate(scene):
            source = cf.TemplateSource(spec, scene, binding)
            args = source.args()
            gold = solver(scene, **args)
            slots = cf.template_slots(source)
            question = spec.question.format_map(slots)
            plain = Reading(spec, gold)
            add(question, plain)
            add(synonym_rewrite(question), plain)
            for wording in register_rewrites(question):
                add(wording, plain)
            if spec.variants.negation:
                add(spec.variants.negation.format_map(slots),
                    Reading(spec, gold, negated=True, scene=scene))
            for change in changes if spec.variants.conditional else ():
                text = cf.conditional_question(source, change.clause(lang))
                add(text or "", Reading(spec, changed_gold(source.solve, change, scene)))
            for rewrite in deixis_rewrites(question):
                try:
                    boxes = referent_boxes(rewrite, scene)
                except NoReferent:
                    boxes = []
                if rewrite.referent == "options":
                    add(rewrite.question, Reading(spec, gold, needs_options=True))
                elif rewrite.referent == "image":
                    add(rewrite.question, plain)
                else:
                    add(rewrite.question, Reading(spec, gold, marks=tuple(boxes)))
    return table


@dataclass(frozen=True)
class Verdict:
    """The oracle's answer for one item: `reason` None = answerable with the stored gold."""

    answers: tuple[tuple[str, ...] | str, ...]
    reason: str | None

    @property
    def ok(self) -> bool:
        """Whether the item is answerable as written, with its stored gold."""
        return self.reason is None


def _answer(reading: Reading, item: Item) -> tuple[str, ...] | str:
    if reading.gold is None:
        return "ambiguous on these annotations"
    answers = cf.gold_answers(reading.spec, reading.gold, item.choices)
    if answers is None:
        return _NOT_AN_OPTION
    if reading.negated:
        if item.task == "yesno":
            answers = ["no" if answers == ["yes"] else "yes"]
        else:
            rebuilt = (cf.negated_letters(reading.spec, reading.scene, item.choices or {})
                       if reading.scene is not None else None)
            answers = rebuilt if rebuilt is not None else \
                [k for k in (item.choices or {}) if k not in answers]
    return tuple(answers)


def judge_item(item: Item, readings: dict[str, list[Reading]]) -> Verdict:
    """Read the item's question as written and solve every reading that fits the item."""
    found = readings.get(item.question)
    if not found:
        return Verdict((), "no reading of the question as written (the oracle cannot parse it)")
    prompt = (item.meta or {}).get("visual_prompt")
    marked = tuple(prompt["bbox"]) if isinstance(prompt, dict) else None
    answers: set[tuple[str, ...] | str] = set()
    for reading in found:
        if reading.spec.task != item.task or (reading.needs_options and item.task != "mc"):
            continue
        if reading.marks is not None:
            if marked is None:
                answers.add(_UNMARKED)
                continue
            if marked not in reading.marks:
                continue
        answer = _answer(reading, item)
        if answer != _NOT_AN_OPTION:  # the listed options rule this reading out
            answers.add(answer)
    if item.task == "mc" and any(not isinstance(a, str) for a in answers):
        # With options listed, a reading whose solver finds nothing (e.g. an object of
        # another binding that is not there) offers no option; the others decide.
        answers.discard("ambiguous on these annotations")
    gold = tuple(item.answers)
    ordered = tuple(sorted(answers, key=str))
    if not answers:
        return Verdict((), "no reading fits the item's task and marked region")
    if len(answers) > 1:
        shown = "; ".join(a if isinstance(a, str) else ",".join(a) for a in ordered)
        return Verdict(ordered, f"the question as written has {len(answers)} answers: {shown}")
    (only,) = answers
    if isinstance(only, str):
        return Verdict(ordered, f"the question as written is not answerable: {only}")
    if only != gold:
        return Verdict(ordered, f"the question as written has the answer {','.join(only)}, "
                       f"not the stored gold {','.join(gold)}")
    return Verdict(ordered, None)


@dataclass
class AnswerabilityOracle:
    """Reading tables built once per scene; `judge` checks one template item."""

    specs: dict[str, TemplateSpec]
    scenes: dict[str, SceneAnn]
    _tables: dict[str, dict[str, list[Reading]]] = field(default_factory=dict)
    checked: Counter = field(default_factory=Counter)
    passed: Counter = field(default_factory=Counter)

    def applies(self, item: Item) -> bool:
        """Template items of a known scene are checked; other items cannot be."""
        return item.source.startswith("template:") and (item.group or "") in self.scenes

    def judge(self, item: Item) -> Verdict | None:
        """The verdict for a template item (tallied per template and kind); None when the
        oracle does not apply."""
        if not self.applies(item):
            return None
        scene_id = item.group or ""
        if scene_id not in self._tables:
            self._tables[scene_id] = scene_readings(self.scenes[scene_id],
                                                    list(self.specs.values()))
        verdict = judge_item(item, self._tables[scene_id])
        key = (item.source.removeprefix("template:"), item.variant_kind)
        self.checked[key] += 1
        self.passed[key] += verdict.ok
        return verdict

    def rates(self) -> list[dict[str, Any]]:
        """Acceptance per (template, variant kind): checked, passed, rate."""
        return [{"template": t, "kind": k, "checked": n, "passed": self.passed[(t, k)],
                 "rate": round(self.passed[(t, k)] / n, 4)}
                for (t, k), n in sorted(self.checked.items())]


def format_rates(rates: list[dict[str, Any]]) -> str:
    """Acceptance per variant kind (over templates) and per template (over kinds)."""
    by_kind: Counter = Counter()
    ok_kind: Counter = Counter()
    by_tpl: Counter = Counter()
    ok_tpl: Counter = Counter()
    for row in rates:
        by_kind[row["kind"]] += row["checked"]
        ok_kind[row["kind"]] += row["passed"]
        by_tpl[row["template"]] += row["checked"]
        ok_tpl[row["template"]] += row["passed"]
    lines = [f"{'answerable: kind':<28}{'checked':>8}{'passed':>8}{'rate':>8}"]
    for kind in sorted(by_kind):
        lines.append(f"{kind:<28}{by_kind[kind]:>8}{ok_kind[kind]:>8}"
                     f"{ok_kind[kind] / by_kind[kind]:>8.1%}")
    lines.append(f"{'answerable: template':<28}{'checked':>8}{'passed':>8}{'rate':>8}")
    for tpl in sorted(by_tpl):
        lines.append(f"{tpl:<28}{by_tpl[tpl]:>8}{ok_tpl[tpl]:>8}{ok_tpl[tpl] / by_tpl[tpl]:>8.1%}")
    return "\n".join(lines)
