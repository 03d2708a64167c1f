"""What a template iterates over (binders), which scenes it accepts (constraints) and where
multiple-choice distractors come from (pools). Each is a small registry of named functions.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from bench_kit.authoring.scenes import ObjectAnn, SceneAnn
from bench_kit.authoring.solvers import describe, matching, overlapping
from bench_kit.authoring.vocab import COLOURS, COVERS, SHAPES, SIGN_WORDS, SIZES, plural, zh
from bench_kit.registry import Registry
from bench_kit.text.cjk import has_cjk


@dataclass(frozen=True)
class Binding:
    """One way to fill a template's slots in one scene.

    `key` is unique per binder within a scene and becomes the last part of the item id;
    `facts` are the annotation facts recorded in the item's `meta`.
    """

    key: str
    slots: dict[str, str]
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Binder:
    """A named enumerator of bindings and the slot names it fills."""

    slots: tuple[str, ...]
    enumerate: Callable[[SceneAnn], Iterator[Binding]]


BINDERS: Registry[Binder] = Registry("binder")
CONSTRAINTS: Registry[Callable[[SceneAnn, int], bool]] = Registry("constraint")
POOLS: Registry[Callable[[SceneAnn, Any], list[Any]]] = Registry("choice pool")

_OBJECT_SLOTS = ("colour", "shape", "shapes", "size", "article")
_PAIR_SLOTS = tuple(f"{side}_{name}" for side in "ab"
                    for name in ("colour", "shape", "shapes", "size"))


def _binder(name: str, slots: tuple[str, ...]) -> Callable:
    def decorator(fn: Callable[[SceneAnn], Iterator[Binding]]) -> Callable:
        BINDERS.register(name)(Binder(slots=slots, enumerate=fn))
        return fn
    return decorator


def article(word: str) -> str:
    """The English indefinite article for `word` ("an orange", "a red")."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def _object_slots(obj: ObjectAnn, prefix: str = "") -> dict[str, str]:
    slots = {f"{prefix}colour": obj.colour, f"{prefix}shape": obj.shape,
             f"{prefix}shapes": plural(obj.shape), f"{prefix}size": obj.size}
    if not prefix:
        slots["article"] = article(obj.colour)
    return slots


def _fact(obj: ObjectAnn) -> dict[str, Any]:
    return {"id": obj.id, "colour": obj.colour, "shape": obj.shape, "size": obj.size,
            "bbox": list(obj.bbox)}


def _object_key(scene: SceneAnn, obj: ObjectAnn) -> str:
    key = f"{obj.colour}-{obj.shape}"
    return key if len(matching(scene, obj.colour, obj.shape)) == 1 else f"{key}-{obj.id}"


@_binder("scene", ())
def _scene(scene: SceneAnn) -> Iterator[Binding]:
    yield Binding(key="", slots={})


@_binder("object", _OBJECT_SLOTS)
def _objects(scene: SceneAnn) -> Iterator[Binding]:
    for obj in scene.objects:
        yield Binding(_object_key(scene, obj), _object_slots(obj), {"target": _fact(obj)})


@_binder("object_pair", _PAIR_SLOTS)
def _object_pairs(scene: SceneAnn) -> Iterator[Binding]:
    for a, b in itertools.permutations(scene.objects, 2):
        slots = {**_object_slots(a, "a_"), **_object_slots(b, "b_")}
        yield Binding(f"{_object_key(scene, a)}.{_object_key(scene, b)}", slots,
                      {"a": _fact(a), "b": _fact(b)})


@_binder("colour", ("colour",))
def _colours(scene: SceneAnn) -> Iterator[Binding]:
    for colour in COLOURS:
        yield Binding(colour, {"colour": colour}, {"colour": colour})


@_binder("shape", ("shape", "shapes"))
def _shapes(scene: SceneAnn) -> Iterator[Binding]:
    for shape in SHAPES:
        yield Binding(shape, {"shape": shape, "shapes": plural(shape)}, {"shape": shape})


@_binder("shape_pair", ("a_shape", "a_shapes", "b_shape", "b_shapes"))
def _shape_pairs(scene: SceneAnn) -> Iterator[Binding]:
    present = sorted({o.shape for o in scene.objects}, key=list(SHAPES).index)
    for a, b in itertools.permutations(present, 2):
        counts = {a: len(matching(scene, shape=a)), b: len(matching(scene, shape=b))}
        yield Binding(f"{a}.{b}", {"a_shape": a, "a_shapes": plural(a), "b_shape": b,
                                   "b_shapes": plural(b)}, {"counts": counts})


def _probes(scene: SceneAnn, adversarial: bool) -> Iterator[Binding]:
    """Present (colour, shape) pairs, then absent ones: all of them (POPE 'random'), or only
    those sharing a colour or shape with a present object (POPE 'adversarial')."""
    present = {(o.colour, o.shape) for o in scene.objects}
    colours, shapes = {c for c, _ in present}, {s for _, s in present}
    for colour, shape in itertools.product(COLOURS, SHAPES):
        is_present = (colour, shape) in present
        if not is_present and adversarial and colour not in colours and shape not in shapes:
            continue
        yield Binding(f"{colour}-{shape}", {"colour": colour, "shape": shape,
                                            "shapes": plural(shape), "article": article(colour)},
                      {"probe": {"colour": colour, "shape": shape, "present": is_present}})


@_binder("probe_random", ("colour", "shape", "shapes", "article"))
def _probe_random(scene: SceneAnn) -> Iterator[Binding]:
    return _probes(scene, adversarial=False)


@_binder("probe_adversarial", ("colour", "shape", "shapes", "article"))
def _probe_adversarial(scene: SceneAnn) -> Iterator[Binding]:
    return _probes(scene, adversarial=True)


@_binder("text", ("text", "lang", "sign_colour"))
def _texts(scene: SceneAnn) -> Iterator[Binding]:
    for k, text in enumerate(scene.texts, start=1):
        fact = {"text": text.text, "lang": text.lang, "bbox": list(text.bbox)}
        yield Binding(f"t{k}", {"text": text.text, "lang": text.lang,
                                "sign_colour": text.colour or ""}, {"target": fact})


@_binder("bar", ("label",))
def _bars(scene: SceneAnn) -> Iterator[Binding]:
    for bar in scene.chart.bars if scene.chart else []:
        yield Binding(bar.label, {"label": bar.label}, {"bar": {"label": bar.label,
                                                                 "value": bar.value}})


@_binder("bar_pair", ("a", "b"))
def _bar_pairs(scene: SceneAnn) -> Iterator[Binding]:
    bars = scene.chart.bars if scene.chart else []
    for a, b in itertools.permutations(bars, 2):
        yield Binding(f"{a.label}.{b.label}", {"a": a.label, "b": b.label},
                      {"bars": {a.label: a.value, b.label: b.value}})


def _max_count(values: list[str]) -> int:
    return max(Counter(values).values(), default=0)


for _name, _check in {
    "min_objects": lambda s, n: len(s.objects) >= n,
    "max_objects": lambda s, n: len(s.objects) <= n,
    "min_same_colour": lambda s, n: _max_count([o.colour for o in s.objects]) >= n,
    "min_same_shape": lambda s, n: _max_count([o.shape for o in s.objects]) >= n,
    "min_colours": lambda s, n: len({o.colour for o in s.objects}) >= n,
    "min_shapes": lambda s, n: len({o.shape for o in s.objects}) >= n,
    "min_texts": lambda s, n: len(s.texts) >= n,
    "max_texts": lambda s, n: len(s.texts) <= n,
    "min_bars": lambda s, n: len(s.chart.bars if s.chart else []) >= n,
}.items():
    CONSTRAINTS.register(_name)(_check)


@POOLS.register("colours")
def _pool_colours(scene: SceneAnn, gold: Any) -> list[Any]:
    return list(COLOURS)


@POOLS.register("shapes")
def _pool_shapes(scene: SceneAnn, gold: Any) -> list[Any]:
    """Every shape name but those that also name the gold (no "rectangle" beside a square)."""
    return [s for s in SHAPES if gold not in COVERS.get(s, ())]


@POOLS.register("sizes")
def _pool_sizes(scene: SceneAnn, gold: Any) -> list[Any]:
    return list(SIZES)


@POOLS.register("numbers")
def _pool_numbers(scene: SceneAnn, gold: Any) -> list[Any]:
    return [n for n in range(int(gold) - 3, int(gold) + 4) if n >= 0]


@POOLS.register("bar_labels")
def _pool_bar_labels(scene: SceneAnn, gold: Any) -> list[Any]:
    return list(scene.chart.labels) if scene.chart else []


@POOLS.register("sign_texts")
def _pool_sign_texts(scene: SceneAnn, gold: Any) -> list[Any]:
    return list(SIGN_WORDS["zh" if has_cjk(str(gold)) else "en"])


@POOLS.register("scene_objects")
def _pool_scene_objects(scene: SceneAnn, gold: Any) -> list[Any]:
    """The scene's objects by name, leaving out names a covered kind makes ambiguous."""
    return list(dict.fromkeys(describe(o) for o in scene.objects
                              if not overlapping(scene, o.colour, o.shape)))


@POOLS.register("absent_objects")
def _pool_absent_objects(scene: SceneAnn, gold: Any) -> list[Any]:
    """Absent objects sharing a colour or shape with a present one (the hard distractors)."""
    return [f"{b.slots['colour']} {b.slots['shape']}" for b in _probes(scene, adversarial=True)
            if not b.facts["probe"]["present"]
            and not overlapping(scene, b.slots["colour"], b.slots["shape"])]


def localise(value: str, lang: str) -> str:
    """Render a vocabulary value (`red`, `circle`, `red circle`) in the template's language."""
    if lang != "zh":
        return value
    parts = value.split(" ")
    if len(parts) == 2 and parts[0] in COLOURS and parts[1] in SHAPES:
        return f"{zh(parts[0])}的{zh(parts[1])}"
    return zh(value)
