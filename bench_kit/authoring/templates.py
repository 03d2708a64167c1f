"""Question templates (templates.yaml): loading, checking and filling them from annotations.

A template names what it iterates over (`for_each`, a binder), which scenes it accepts
(`scene`, `constraints`), the question text with `{slots}`, and how its gold answer is
computed (`gold.solver` + `args`). Golds come from the annotations, so they are right by
construction; a solver returning None (ambiguous) means no item.
"""

from __future__ import annotations

import hashlib
import inspect
import random
import string
import typing
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bench_kit.authoring.bindings import BINDERS, CONSTRAINTS, POOLS, Binding, localise
from bench_kit.authoring.quotas import QuotaParams
from bench_kit.authoring.scenes import SCENE_KINDS, SceneAnn, SceneKind
from bench_kit.authoring.solvers import SOLVERS
from bench_kit.authoring.vocab import answers_for
from bench_kit.errors import BenchKitError, ConfigError
from bench_kit.params import load_yaml
from bench_kit.registry import Registry
from bench_kit.types import LAYERS, LETTERS, Difficulty, Item

TEMPLATE_KEYS = ("version", "defaults", "templates")
TemplateTask = Literal["mc", "yesno", "numeric", "open", "grounding"]
# What a solver must be able to return for each task (checked against its annotation).
TASK_RETURNS: dict[str, set[type]] = {"yesno": {bool}, "grounding": {list},
                                      "numeric": {int, float}, "open": {str}, "mc": {str, int}}


class GoldSpec(BaseModel):
    """`gold:` a registered solver and its arguments (`{slot}` strings are filled in)."""

    model_config = ConfigDict(extra="forbid")

    solver: str
    args: dict[str, Any] = Field(default_factory=dict)


class ChoiceSpec(BaseModel):
    """`choices:` for mc templates: the distractor pool and the number of options."""

    model_config = ConfigDict(extra="forbid")

    pool: str
    n: int = Field(4, ge=2, le=5)


class VariantForms(BaseModel):
    """`variants:` wordings a template gives its variant families (`{slots}` as in `question`).

    `negation`: the negated question ("Which of these is NOT ..."); yes/no golds are flipped
    and an mc negation gets options rebuilt so that exactly one is right (only templates
    whose options can be tested one by one; bench_kit.authoring.counterfactual).
    `conditional`: the question in the conditional mood ("How many shapes would there be
    ...?", "图中会有几个…？"); the counterfactual and irrelevant-premise kinds put a
    condition in front of it. Without it those kinds skip the template.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    negation: str | None = Field(None, min_length=1)
    conditional: str | None = Field(None, min_length=1)


class TemplateSpec(BaseModel):
    """One entry of templates.yaml (see datasets/demo/templates.yaml for every key)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    capability: str
    difficulty: Difficulty
    task: TemplateTask
    metric: str | None = None
    tolerance: float | None = None
    scene: tuple[SceneKind, ...] = SCENE_KINDS
    lang: Literal["en", "zh"] = "en"
    question: str = Field(min_length=1)
    for_each: str = "scene"
    gold: GoldSpec
    choices: ChoiceSpec | None = None
    constraints: dict[str, int] = Field(default_factory=dict)
    max_per_scene: int | None = Field(None, ge=1)
    balance_answers: bool = False
    scene_share: float = Field(1.0, gt=0.0, le=1.0)
    rubric: str | None = None
    variants: VariantForms = Field(default_factory=VariantForms)

    @field_validator("scene", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value


class GenerateParams(BaseModel):
    """The `generate:` section of params.yaml."""

    model_config = ConfigDict(extra="forbid")

    seed: int = 11
    templates: str = "datasets/demo/templates.yaml"
    created_at: datetime = datetime.fromisoformat("2026-11-01T00:00:00+00:00")
    # Items created after this moment count as fresh (quota `min_fresh_share`); null = off.
    fresh_after: datetime | None = None
    quotas: QuotaParams = Field(default_factory=QuotaParams)

    @field_validator("created_at", "fresh_after")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("must carry a timezone, e.g. 2026-11-01T00:00:00Z")
        return value


def load_taxonomy(params: dict[str, Any], source: str = "params.yaml") -> dict[str, str]:
    """The `taxonomy:` mapping capability -> layer, checked."""
    taxonomy = params.get("taxonomy")
    if not isinstance(taxonomy, dict) or not taxonomy:
        raise ConfigError(f"{source}: taxonomy: missing; list each capability with its layer")
    for capability, layer in taxonomy.items():
        if layer not in LAYERS:
            raise ConfigError(f"{source}: taxonomy.{capability}: unknown layer '{layer}' "
                              f"(expected one of {', '.join(LAYERS)})")
    return {str(k): str(v) for k, v in taxonomy.items()}


def _slot_names(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _lookup(key: str, registry: Registry, name: str) -> Any:
    try:
        return registry.get(name)
    except BenchKitError as exc:
        raise ValueError(f"{key}: {exc}") from exc


def _check_return_type(spec: TemplateSpec, solver: Any) -> None:
    """Refuse a solver whose annotated return type cannot give this task's answer."""
    try:
        hint = typing.get_type_hints(solver).get("return")
    except (NameError, TypeError):
        return
    if hint is None:
        return
    returned = {typing.get_origin(t) or t for t in (typing.get_args(hint) or (hint,))}
    if not returned & TASK_RETURNS[spec.task]:
        names = " | ".join(sorted(getattr(t, "__name__", str(t)) for t in returned
                                  if t is not type(None)))
        raise ValueError(f"task: solver '{spec.gold.solver}' returns {names}, which cannot "
                         f"answer a {spec.task} question")


def _check(spec: TemplateSpec, taxonomy: dict[str, str]) -> None:
    """Cross-checks the schema cannot express; raises ValueError('key: reason')."""
    if spec.capability not in taxonomy:
        raise ValueError(f"capability: '{spec.capability}' is not in the params taxonomy "
                         f"(known: {', '.join(sorted(taxonomy))})")
    if (spec.task == "mc") != (spec.choices is not None):
        raise ValueError("choices: required for task mc and only allowed there")
    binder = _lookup("for_each", BINDERS, spec.for_each)
    solver = _lookup("gold.solver", SOLVERS, spec.gold.solver)
    if spec.choices is not None:
        _lookup("choices.pool", POOLS, spec.choices.pool)
    for name in spec.constraints:
        _lookup("constraints", CONSTRAINTS, name)
    _check_return_type(spec, solver)
    for key, text in [("question", spec.question),
                      *((f"variants.{k}", v) for k, v in spec.variants.model_dump().items()
                        if v),
                      *((f"gold.args.{k}", v) for k, v in spec.gold.args.items()
                        if isinstance(v, str))]:
        try:
            unknown = _slot_names(text) - set(binder.slots)
        except ValueError as exc:
            raise ValueError(f"{key}: bad slot syntax ({exc})") from exc
        if unknown:
            known = ", ".join(binder.slots) or "none"
            raise ValueError(f"{key}: unknown slot(s) {sorted(unknown)} for for_each "
                             f"'{spec.for_each}' (slots: {known})")
    try:
        inspect.signature(solver).bind(None, **spec.gold.args)
    except TypeError as exc:
        raise ValueError(f"gold.args: {exc} (solver '{spec.gold.solver}')") from exc


def parse_templates(data: Any, taxonomy: dict[str, str],
                    source: str = "templates.yaml") -> list[TemplateSpec]:
    """Validate a loaded templates document; ConfigError names the template id and key."""
    if isinstance(data, list):
        data = {"templates": data}
    if not isinstance(data, dict) or not isinstance(data.get("templates"), list):
        raise ConfigError(f"{source}: expected a mapping with a 'templates' list")
    extra = sorted(set(data) - set(TEMPLATE_KEYS))
    if extra:
        raise ConfigError(f"{source}: unknown top-level key(s) {extra} "
                          f"(allowed: {', '.join(TEMPLATE_KEYS)})")
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise ConfigError(f"{source}: defaults: expected a mapping")
    specs: list[TemplateSpec] = []
    seen: set[str] = set()
    for number, raw in enumerate(data["templates"], start=1):
        if not isinstance(raw, dict):
            raise ConfigError(f"{source}: template #{number}: expected a mapping")
        label = f"template '{raw['id']}'" if isinstance(raw.get("id"), str) else f"template #{number}"
        try:
            spec = TemplateSpec.model_validate({**defaults, **raw})
            _check(spec, taxonomy)
        except ValidationError as exc:
            first = exc.errors()[0]
            key = ".".join(str(p) for p in first["loc"]) or "(template)"
            raise ConfigError(f"{source}: {label}: key '{key}': {first['msg']}") from exc
        except ValueError as exc:
            key, _, reason = str(exc).partition(": ")
            raise ConfigError(f"{source}: {label}: key '{key}': {reason}") from exc
        if spec.id in seen:
            raise ConfigError(f"{source}: {label}: key 'id': duplicate template id")
        seen.add(spec.id)
        specs.append(spec)
    return specs


def load_templates(path: str | Path, taxonomy: dict[str, str]) -> list[TemplateSpec]:
    """Load and check templates.yaml (safe YAML loader)."""
    return parse_templates(load_yaml(path), taxonomy, source=str(path))


def _fill(value: Any, slots: dict[str, str]) -> Any:
    return value.format_map(slots) if isinstance(value, str) else value


def _unit(seed: int, *parts: str) -> float:
    """A stable pseudo-random number in [0, 1) from the parts (stable under added scenes)."""
    digest = hashlib.sha256(":".join([str(seed), *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass
class FillState:
    """Per-template tallies across scenes, so answers and gold letters stay balanced:
    `positions` counts the gold's option index, `expected` what uniform positions would
    have given (1/n per item with n options)."""

    answers: Counter = field(default_factory=Counter)
    positions: Counter = field(default_factory=Counter)
    expected: defaultdict[int, float] = field(default_factory=lambda: defaultdict(float))


def _answer_fields(spec: TemplateSpec, scene: SceneAnn, gold: Any, rng: random.Random,
                   state: FillState) -> dict | None:
    """`answers` (and `choices`) for a gold value; None when no sound mc item can be built."""
    if spec.task == "yesno":
        if not isinstance(gold, bool):
            raise ConfigError(f"template '{spec.id}': solver '{spec.gold.solver}' does not "
                              "return yes/no; use task numeric, open or mc")
        return {"answers": ["yes" if gold else "no"]}
    if spec.task == "grounding":
        if not (isinstance(gold, list) and len(gold) == 4):
            raise ConfigError(f"template '{spec.id}': solver '{spec.gold.solver}' does not "
                              "return a box; use another task")
        return {"answers": [",".join(str(int(v)) for v in gold)]}
    if isinstance(gold, (bool, list)):
        raise ConfigError(f"template '{spec.id}': solver '{spec.gold.solver}' returns "
                          f"{type(gold).__name__}; task {spec.task} needs a number or text")
    if spec.task == "numeric":
        return {"answers": [str(gold)]}
    if spec.task == "open":
        values = answers_for(str(gold))
        if spec.lang == "zh" and localise(str(gold), "zh") != str(gold):
            values = [localise(str(gold), "zh"), *values]
        return {"answers": values}
    assert spec.choices is not None
    pool = [v for v in dict.fromkeys(POOLS.get(spec.choices.pool)(scene, gold)) if v != gold]
    if not pool:
        return None
    options = rng.sample(pool, min(spec.choices.n - 1, len(pool)))
    # The gold goes to the letter furthest behind its uniform share in this template (ties
    # broken at random), so no letter is a better blind guess than another even when the
    # items have different numbers of options.
    slots = list(range(len(options) + 1))
    for k in slots:
        state.expected[k] += 1 / len(slots)
    rng.shuffle(slots)
    position = min(slots, key=lambda k: state.positions[k] - state.expected[k])
    state.positions[position] += 1
    options.insert(position, gold)
    letters = LETTERS[:len(options)]
    choices = {letter: localise(str(v), spec.lang) for letter, v in zip(letters, options)}
    return {"choices": choices, "answers": [letters[options.index(gold)]]}


def _select(spec: TemplateSpec, cands: list[tuple[int, Binding, Any]], rng: random.Random,
            state: FillState) -> list[tuple[int, Binding, Any]]:
    """Pick at most `max_per_scene` candidates; with `balance_answers`, the answer used least
    so far by this template goes first, so yes/no stays near 50:50 over the whole set."""
    used = state.answers
    if spec.max_per_scene is None or len(cands) <= spec.max_per_scene:
        chosen = list(cands)
        used.update(repr(c[2]) for c in chosen)
        return chosen
    pool = list(cands)
    rng.shuffle(pool)
    chosen = []
    while pool and len(chosen) < spec.max_per_scene:
        pick = min(pool, key=lambda c: used[repr(c[2])]) if spec.balance_answers else pool[0]
        pool.remove(pick)
        chosen.append(pick)
        used[repr(pick[2])] += 1
    chosen.sort(key=lambda c: c[0])
    return chosen


def item_id_for(spec: TemplateSpec, scene: SceneAnn, key: str) -> str:
    """The id of the item a template yields for a scene and binding key."""
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_.-") else "_" for ch in key)
    return f"{spec.id}.{scene.scene}" + (f".{safe}" if safe else "")


def fill_template(spec: TemplateSpec, scene: SceneAnn, taxonomy: dict[str, str],
                  params: GenerateParams, state: FillState | None = None) -> list[dict[str, Any]]:
    """The item rows one template yields for one scene (before the Item check)."""
    if scene.kind not in spec.scene or _unit(params.seed, spec.id, scene.scene) >= spec.scene_share:
        return []
    if not all(CONSTRAINTS.get(name)(scene, value) for name, value in spec.constraints.items()):
        return []
    solver = SOLVERS.get(spec.gold.solver)
    cands = []
    for index, binding in enumerate(BINDERS.get(spec.for_each).enumerate(scene)):
        gold = solver(scene, **{k: _fill(v, binding.slots) for k, v in spec.gold.args.items()})
        if gold is not None:
            cands.append((index, binding, gold))
    rng = random.Random(f"{params.seed}:{spec.id}:{scene.scene}")
    state = state if state is not None else FillState()
    rows = []
    for _, binding, gold in _select(spec, cands, rng, state):
        fields = _answer_fields(spec, scene, gold, rng, state)
        if fields is None:
            continue
        slots = {k: localise(v, spec.lang) for k, v in binding.slots.items()}
        meta: dict[str, Any] = {"scene_kind": scene.kind, **binding.facts}
        if spec.lang != "en":
            meta["lang"] = spec.lang
        rows.append({
            "id": item_id_for(spec, scene, binding.key), "image": scene.image,
            "question": spec.question.format_map(slots), "task": spec.task,
            "choices": fields.get("choices"), "answers": fields["answers"],
            "metric": spec.metric, "tolerance": spec.tolerance,
            "capability": spec.capability, "layer": taxonomy[spec.capability],
            "difficulty": spec.difficulty, "variant": "v0", "variant_of": None,
            "variant_kind": "original", "source": f"template:{spec.id}", "group": scene.scene,
            "created_at": params.created_at, "rubric": spec.rubric, "meta": meta,
        })
    return rows


def generate_items(scenes: list[SceneAnn], templates: list[TemplateSpec],
                   taxonomy: dict[str, str], params: GenerateParams) -> list[Item]:
    """Fill every template from every scene: scene order, then template order; a question
    already asked about a scene (by an earlier template) is not asked again."""
    states = {spec.id: FillState() for spec in templates}
    items: list[Item] = []
    seen_ids: set[str] = set()
    for scene in scenes:
        asked: set[str] = set()
        for spec in templates:
            for row in fill_template(spec, scene, taxonomy, params, states[spec.id]):
                if row["question"] in asked:
                    continue
                if row["id"] in seen_ids:
                    raise ConfigError(f"template '{spec.id}': item id '{row['id']}' repeats; "
                                      "is the scene id duplicated in the annotations?")
                try:
                    item = Item.model_validate(row)
                except ValidationError as exc:
                    first = exc.errors()[0]
                    field = ".".join(str(p) for p in first["loc"]) or "(item)"
                    raise ConfigError(f"template '{spec.id}': item '{row['id']}' is invalid: "
                                      f"{field}: {first['msg']}") from exc
                asked.add(row["question"])
                seen_ids.add(item.id)
                items.append(item)
    return items
