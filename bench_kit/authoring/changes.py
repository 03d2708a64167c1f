"""Stated changes of a scene for counterfactual questions, and the test that a changed
question does not answer itself.

A `Change` removes one object kind ("the red square" / "one of the red squares"), one bar
or repaints one sign. It can be applied to any scene, so the solver can be run on other
scenes that fit the clause's words: a counterfactual *follows from its own text* when the
template's solver gives the same gold after the change on the real scene, on the scene
reduced to what the clause names, and on the scene padded with an object (bar, sign) of
every other kind — the words fix the answer, the image is not needed ("If the purple star
were removed, how many purple stars would there be?"). It also answers itself when the
change removes every member of a category the solver's arguments name (the only blue
square, then a question about blue squares). Both are decided on the annotations by the
solver, never by the wording. See docs/AUTHORING.md ("Counterfactuals").
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

from bench_kit.authoring.scenes import BarAnn, ObjectAnn, SceneAnn, TextAnn
from bench_kit.authoring.solvers import matching
from bench_kit.authoring.vocab import COLOURS, PLATES, SHAPES, plural, zh

Solve = Callable[[SceneAnn], Any]


@dataclass(frozen=True)
class Change:
    """A stated change: its key, the condition clause in English and Chinese, and what it
    does to a scene (every way of applying it; [] when the scene lacks the thing)."""

    key: str
    en: str
    zh: str
    apply: Callable[[SceneAnn], list[SceneAnn]]
    witness: Callable[[SceneAnn], SceneAnn]   # the scene reduced to what the clause names
    padded: Callable[[SceneAnn], SceneAnn]    # the scene plus one of every other kind
    removes: tuple[str, str] | None = None    # the (colour, shape) an object removal takes

    def clause(self, lang: str) -> str:
        """The condition clause in the template's language."""
        return self.zh if lang == "zh" else self.en


def _off_canvas(scene: SceneAnn, k: int) -> list[int]:
    """A small box right of the canvas for decoy k (never overlaps a drawn region)."""
    x = scene.width + 10 + 20 * k
    return [x, 10, x + 12, 22]


def _object_change(scene: SceneAnn, colour: str, shape: str) -> Change:
    def apply(world: SceneAnn) -> list[SceneAnn]:
        members = [o for o in world.objects if (o.colour, o.shape) == (colour, shape)]
        return [world.model_copy(update={"objects": [o for o in world.objects if o is not m]})
                for m in members]

    def witness(world: SceneAnn) -> SceneAnn:
        return world.model_copy(update={"objects": matching(world, colour, shape)})

    several = len(matching(scene, colour, shape)) > 1

    def padded(world: SceneAnn) -> SceneAnn:
        # "the red square" fixes one red square; "one of the red squares" only says there
        # are two or more, so a third one fits the words as well
        decoys = [ObjectAnn(id=f"decoy{k}", colour=c, shape=s, size="medium",
                            bbox=_off_canvas(world, k))
                  for k, (c, s) in enumerate(itertools.product(COLOURS, SHAPES))
                  if (c, s) != (colour, shape) or several]
        return world.model_copy(update={"objects": [*world.objects, *decoys]})

    if not several:
        en, zh_text = f"the {colour} {shape} were removed", f"去掉{zh(colour)}的{zh(shape)}"
    else:
        en = f"one of the {colour} {plural(shape)} were removed"
        zh_text = f"去掉一个{zh(colour)}的{zh(shape)}"
    return Change(f"remove:{colour}-{shape}", en, zh_text, apply, witness, padded,
                  (colour, shape))


def _with_bars(world: SceneAnn, bars: list[BarAnn]) -> SceneAnn:
    assert world.chart is not None
    chart = world.chart.model_copy(update={"bars": bars, "labels": [b.label for b in bars],
                                           "values": [b.value for b in bars]})
    return world.model_copy(update={"chart": chart})


def _bar_change(label: str) -> Change:
    def apply(world: SceneAnn) -> list[SceneAnn]:
        if world.chart is None or label not in world.chart.labels:
            return []
        return [_with_bars(world, [b for b in world.chart.bars if b.label != label])]

    def witness(world: SceneAnn) -> SceneAnn:
        bars = world.chart.bars if world.chart else []
        return _with_bars(world, [b for b in bars if b.label == label])

    def padded(world: SceneAnn) -> SceneAnn:
        bars = list(world.chart.bars if world.chart else [])
        values = [b.value for b in bars] or [1]
        decoys = [BarAnn(label=f"Decoy{k}", value=v, bbox=_off_canvas(world, k))
                  for k, v in enumerate((max(values) + 7, max(min(values) - 7, 0)))]
        return _with_bars(world, [*bars, *decoys])

    return Change(f"remove:{label}", f"the {label} bar were removed", f"去掉“{label}”这根柱子",
                  apply, witness, padded)


def _repaint_change(old: str, paint: str, k: int) -> Change:
    def apply(world: SceneAnn) -> list[SceneAnn]:
        found = [j for j, t in enumerate(world.texts) if t.colour == old]
        if len(found) != 1:
            return []
        texts = list(world.texts)
        texts[found[0]] = texts[found[0]].model_copy(update={"colour": paint})
        return [world.model_copy(update={"texts": texts})]

    def witness(world: SceneAnn) -> SceneAnn:
        return world.model_copy(update={"texts": [t for t in world.texts if t.colour == old]})

    def padded(world: SceneAnn) -> SceneAnn:
        taken = {t.colour for t in world.texts} | {paint}
        decoys = [TextAnn(text=f"DECOY {j}", lang="en", colour=c, bbox=_off_canvas(world, j))
                  for j, c in enumerate(sorted(PLATES)) if c not in taken]
        return world.model_copy(update={"texts": [*world.texts, *decoys]})

    return Change(f"repaint:{k}", f"the {old} sign were painted {paint}",
                  f"把{zh(old)}的牌子涂成{zh(paint)}", apply, witness, padded)


def scene_changes(scene: SceneAnn) -> list[Change]:
    """Every change the counterfactual kinds may state about this scene."""
    kinds = dict.fromkeys((o.colour, o.shape) for o in scene.objects)
    out = [_object_change(scene, colour, shape) for colour, shape in kinds]
    if scene.kind == "chart" and scene.chart is not None and len(scene.chart.bars) > 2:
        out += [_bar_change(bar.label) for bar in scene.chart.bars]
    if scene.kind == "sign":
        colours = [t.colour for t in scene.texts]
        paint = next((c for c in COLOURS if c not in colours), None)
        out += [_repaint_change(t.colour, paint, k) for k, t in enumerate(scene.texts)
                if paint is not None and t.colour is not None and colours.count(t.colour) == 1]
    return out


def _same(golds: list[Any]) -> Any:
    """The one gold all changed scenes agree on, else None."""
    return golds[0] if golds and all(g is not None and g == golds[0] for g in golds) else None


def changed_gold(solve: Solve, change: Change, scene: SceneAnn) -> Any:
    """The gold after the change (None: not applicable, ambiguous, or it depends on which
    of several matching objects went)."""
    return _same([solve(s) for s in change.apply(scene)])


def _categories(args: dict[str, Any]) -> list[tuple[str | None, str | None]]:
    """The (colour, shape) categories a solver's arguments name."""
    out = []
    for prefix in ("", "a_", "b_"):
        colour, shape = args.get(f"{prefix}colour"), args.get(f"{prefix}shape")
        if colour in COLOURS or shape in SHAPES:
            out.append((colour if colour in COLOURS else None,
                        shape if shape in SHAPES else None))
    return out


def touches_asked(args: dict[str, Any], change: Change) -> bool:
    """Whether the change removes an object of a category the solver's arguments name (a
    premise about the very thing asked for is never an irrelevant one)."""
    if change.removes is None:
        return False
    colour, shape = change.removes
    return any(c in (None, colour) and s in (None, shape) for c, s in _categories(args))


def answers_itself(solve: Solve, args: dict[str, Any], change: Change,
                   scene: SceneAnn) -> bool:
    """Whether the changed question's answer follows from its own text: the gold is the
    same on every scene that fits the clause (real, reduced, padded), or the change
    removes every member of a category the solver's arguments name."""
    changed = change.apply(scene)
    for colour, shape in _categories(args):
        if matching(scene, colour, shape) and changed and \
                all(not matching(s, colour, shape) for s in changed):
            return True
    golds = [changed_gold(solve, change, world)
             for world in (scene, change.witness(scene), change.padded(scene))]
    return golds[0] is not None and all(g == golds[0] for g in golds)
