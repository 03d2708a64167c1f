"""Variants whose gold is recomputed from the scene annotations: negation (the template's
negated wording; yes/no flipped; mc options rebuilt so exactly one is right), counterfactual
(`hypothetical`: a stated change that moves the gold, in the template's conditional wording)
and irrelevant premise (the same wording with a change that cannot matter). Changes come
from bench_kit.authoring.changes, which also refuses a question that answers itself.

Each builder returns a `Draft` or a `Skip` with the reason no sound variant exists.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable

from bench_kit.authoring.bindings import BINDERS, Binding, localise
from bench_kit.authoring.changes import (
    answers_itself,
    changed_gold,
    scene_changes,
    touches_asked,
)
from bench_kit.authoring.lexicon import condition_prefix
from bench_kit.authoring.scenes import SceneAnn
from bench_kit.authoring.solvers import SOLVERS, describe
from bench_kit.authoring.templates import TemplateSpec, item_id_for
from bench_kit.authoring.vocab import COLOURS, SHAPES, answers_for
from bench_kit.text.words import contains_phrase
from bench_kit.types import LETTERS, Item


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


def _object_option(option: str) -> dict[str, str] | None:
    parts = option.split(" ")
    if len(parts) == 2 and parts[0] in COLOURS and parts[1] in SHAPES:
        return {"colour": parts[0], "shape": parts[1]}
    return None


# Solvers whose mc options can each be tested against the positive question: option text ->
# the solver arguments that ask about that option ("red circle" -> colour red, shape
# circle). Only these templates get an mc negation ("Which of these does NOT appear?"): the
# others have one right option, so "NOT" would make every other option right.
OPTION_ARGS: dict[str, Callable[[str], dict[str, str] | None]] = {
    "describe_object": _object_option,
}


def option_holds(spec: TemplateSpec, scene: SceneAnn, option: str) -> bool | None:
    """Whether an mc option answers the template's positive question on the scene (None:
    the template's options cannot be tested one by one)."""
    reader = OPTION_ARGS.get(spec.gold.solver)
    args = reader(option) if reader else None
    if args is None:
        return None
    return SOLVERS.get(spec.gold.solver)(scene, **args) == option


def negated_letters(spec: TemplateSpec, scene: SceneAnn,
                    choices: dict[str, str]) -> list[str] | None:
    """The letters right under the negated question: the options that do not hold."""
    holds = [option_holds(spec, scene, text) for text in choices.values()]
    if any(h is None for h in holds):
        return None
    return [letter for letter, h in zip(choices, holds) if not h]


def negation(item: Item, source: TemplateSource | Skip, seed: int = 0) -> Draft | Skip:
    """The template's negated question with the gold recomputed from the annotations; an mc
    negation gets new options (every one right under the positive question but one)."""
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
    choices = negation_options(item, source, seed)
    if isinstance(choices, Skip):
        return choices
    letters = negated_letters(source.spec, source.scene, choices)
    if letters is None or len(letters) != 1:  # by construction one; checked, not assumed
        return Skip(f"the rebuilt options have {len(letters or [])} right answers")
    return Draft(question, letters, choices, meta={"negated_gold": letters,
                                                   "options_rebuilt": True})


def negation_options(item: Item, source: TemplateSource, seed: int) -> dict[str, str] | Skip:
    """Options for "Which of these is NOT ...": as many options as the v0 item, all but one
    right under the positive question; the one that is not is the negated gold."""
    spec, scene = source.spec, source.scene
    if spec.gold.solver not in OPTION_ARGS:
        return Skip(f"mc negation: solver '{spec.gold.solver}' has one right option, so "
                    "'NOT' would make every other option right; its options cannot be "
                    "rebuilt with one gold")
    texts = list((item.choices or {}).values())
    wrong = [t for t in texts if option_holds(spec, scene, t) is False]
    right = [t for t in dict.fromkeys(localise(describe(o), spec.lang) for o in scene.objects)
             if option_holds(spec, scene, t)]
    if not wrong or len(right) < 2:
        return Skip(f"mc negation needs two or more right options and one wrong one "
                    f"(the scene has {len(right)} right, the v0 options {len(wrong)} wrong)")
    right.sort(key=lambda t: _rank(seed, item.id, t))
    options = right[:len(texts) - 1]
    position = int(_rank(seed, item.id, "position"), 16) % (len(options) + 1)
    options.insert(position, min(wrong, key=lambda t: _rank(seed, item.id, t)))
    return dict(zip(LETTERS, options))


def _rank(seed: int, item_id: str, key: str) -> str:
    return hashlib.sha256(f"{seed}:{item_id}:{key}".encode()).hexdigest()


def _gives_away(clause: str, answers: list[str]) -> bool:
    """Whether the condition clause states a gold answer ("If the orange star were removed,
    what colour is the triangle?" with gold orange)."""
    return any(contains_phrase(clause, a, ignore_case=True) for a in answers)


@dataclass(frozen=True)
class Condition:
    """One usable change for an item: its key, clause, recomputed answers, and whether the
    gold moved (a counterfactual) or not (an irrelevant premise)."""

    key: str
    clause: str
    answers: list[str]
    moved: bool


def conditions(item: Item, source: TemplateSource) -> list[Condition]:
    """Every change of the item's scene after which the question stays answerable, gives
    an expressible gold the clause does not state, and does not answer itself
    (bench_kit.authoring.changes.answers_itself); a change that leaves the gold must not
    touch the category asked about (then it is subsumed, not irrelevant)."""
    found: list[Condition] = []
    args = source.args()
    for change in scene_changes(source.scene):
        gold = changed_gold(source.solve, change, source.scene)
        if gold is None:
            continue  # ambiguous after the change, or depends on which object went
        answers = gold_answers(source.spec, gold, item.choices)
        clause = change.clause(source.spec.lang)
        if answers is None or (item.task in ("open", "numeric")
                               and _gives_away(clause, answers)):
            continue
        if answers_itself(source.solve, args, change, source.scene):
            continue
        moved = answers != item.answers
        if not moved and touches_asked(args, change):
            continue  # "Suppose a black square were removed. If all black shapes were ..."
        found.append(Condition(change.key, clause, answers, moved))
    return found


def conditional_question(source: TemplateSource, clause: str) -> str | None:
    """The template's conditional wording behind the condition clause ("If the red square
    were removed, how many shapes would there be in the image?"), None without one."""
    wording = source.spec.variants.conditional
    if wording is None:
        return None
    return condition_prefix(wording.format_map(template_slots(source)), clause)


def _with_condition(item: Item, source: TemplateSource | Skip, seed: int,
                    moved: bool) -> Draft | Skip:
    kind = "counterfactual" if moved else "irrelevant premise"
    if isinstance(source, Skip):
        return source
    if source.spec.variants.conditional is None:
        return Skip(f"template '{source.spec.id}' declares no conditional wording "
                    "(variants.conditional)")
    picked = [c for c in conditions(item, source) if c.moved == moved]
    if not picked:
        return Skip(f"no {kind}: no change of this {source.scene.kind} scene "
                    + ("moves the gold without the question answering itself" if moved
                       else "leaves the gold as it is and the question answerable"))
    best = min(picked, key=lambda c: _rank(seed, item.id, c.key))
    question = conditional_question(source, best.clause)
    assert question is not None
    return Draft(question, best.answers, item.choices,
                 meta={"change": best.key, "gold_changed": moved})


def hypothetical(item: Item, source: TemplateSource | Skip, seed: int) -> Draft | Skip:
    """A counterfactual: a stated change of the scene that moves the gold, in the
    conditional mood, the gold recomputed by re-running the template's solver on the
    changed annotations. Changes after which the question answers itself are never used."""
    return _with_condition(item, source, seed, moved=True)


def irrelevant_premise(item: Item, source: TemplateSource | Skip, seed: int) -> Draft | Skip:
    """The same conditional wording with a change that cannot matter: the gold stays (a
    distractor premise, its own variant kind and robustness row)."""
    return _with_condition(item, source, seed, moved=False)
