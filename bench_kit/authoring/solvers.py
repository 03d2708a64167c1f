"""Gold-answer solvers: pure functions of a scene annotation, registered by name.

A solver returns the gold value (int, str, bool or a bbox list) or None when the question
would be ambiguous or pointless for that scene (e.g. "the triangle" with two triangles);
the template engine then skips the item. Templates name a solver in `gold.solver`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from bench_kit.authoring.scenes import BarAnn, ObjectAnn, SceneAnn
from bench_kit.authoring.vocab import COVERS
from bench_kit.registry import Registry

Solver = Callable[..., Any]
SOLVERS: Registry[Solver] = Registry("solver")

# Two objects compared left/right (or above/below) must be this far apart, in pixels,
# between facing edges; closer pairs are left out as ambiguous.
MIN_SEPARATION = 4
# The extreme object must lead the runner-up by this many pixels to be "the leftmost".
MIN_LEAD = 16
SIZE_ORDER = {"small": 0, "medium": 1, "large": 2}


def matching(scene: SceneAnn, colour: str | None = None, shape: str | None = None,
             size: str | None = None) -> list[ObjectAnn]:
    """Objects of the scene matching every given attribute."""
    return [o for o in scene.objects
            if (colour is None or o.colour == colour) and (shape is None or o.shape == shape)
            and (size is None or o.size == size)]


def overlapping(scene: SceneAnn, colour: str | None = None, shape: str | None = None) -> bool:
    """Whether a question about `colour shape` would be ambiguous because the scene holds an
    object of a kind that shape's name also covers (a red square for "red rectangles")."""
    return any(matching(scene, colour, covered) for covered in COVERS.get(shape or "", ()))


def unique(scene: SceneAnn, **attrs: str | None) -> ObjectAnn | None:
    """The one object matching `attrs`, or None when there are zero or several."""
    found = matching(scene, **attrs)
    return found[0] if len(found) == 1 else None


def describe(obj: ObjectAnn) -> str:
    """The object's short name, e.g. `red circle`."""
    return f"{obj.colour} {obj.shape}"


def _bar(scene: SceneAnn, label: str) -> BarAnn | None:
    if scene.chart is None:
        return None
    found = [b for b in scene.chart.bars if b.label == label]
    return found[0] if len(found) == 1 else None


def _extreme_label(scene: SceneAnn, highest: bool, skip: str | None = None) -> str | None:
    if scene.chart is None:
        return None
    bars = [b for b in scene.chart.bars if b.label != skip]
    if not bars:
        return None
    best = max(b.value for b in bars) if highest else min(b.value for b in bars)
    winners = [b.label for b in bars if b.value == best]
    return winners[0] if len(winners) == 1 else None


@SOLVERS.register("count_objects")
def count_objects(scene: SceneAnn, colour: str | None = None, shape: str | None = None,
                  size: str | None = None, min_count: int = 0,
                  max_count: int | None = None) -> int | None:
    """Number of matching objects; None outside [min_count, max_count]."""
    if overlapping(scene, colour, shape):
        return None
    n = len(matching(scene, colour, shape, size))
    if n < min_count or (max_count is not None and n > max_count):
        return None
    return n


@SOLVERS.register("colour_of")
def colour_of(scene: SceneAnn, shape: str, size: str | None = None) -> str | None:
    """Colour of the only object with this shape (and size)."""
    if overlapping(scene, shape=shape):
        return None
    obj = unique(scene, shape=shape, size=size)
    return obj.colour if obj else None


@SOLVERS.register("colour_of_extreme")
def colour_of_extreme(scene: SceneAnn, shape: str, largest: bool = True) -> str | None:
    """Colour of the largest (or smallest) of two or more objects of this shape; None unless
    it is a whole size class (small < medium < large) ahead of the runner-up."""
    if overlapping(scene, shape=shape):
        return None
    found = sorted(matching(scene, shape=shape), key=lambda o: SIZE_ORDER.get(o.size, 1),
                   reverse=largest)
    if len(found) < 2 or SIZE_ORDER.get(found[0].size) == SIZE_ORDER.get(found[1].size):
        return None
    return found[0].colour


@SOLVERS.register("shape_of")
def shape_of(scene: SceneAnn, colour: str, size: str | None = None) -> str | None:
    """Shape of the only object with this colour (and size)."""
    obj = unique(scene, colour=colour, size=size)
    return obj.shape if obj else None


@SOLVERS.register("bbox_of")
def bbox_of(scene: SceneAnn, colour: str, shape: str) -> list[int] | None:
    """Pixel box of the only object of this colour and shape."""
    if overlapping(scene, colour, shape):
        return None
    obj = unique(scene, colour=colour, shape=shape)
    return list(obj.bbox) if obj else None


@SOLVERS.register("object_present")
def object_present(scene: SceneAnn, colour: str | None = None,
                   shape: str | None = None) -> bool | None:
    """Whether at least one object of this colour and shape is in the scene (None when a
    covered kind makes the category ambiguous)."""
    if overlapping(scene, colour, shape):
        return None
    return bool(matching(scene, colour, shape))


@SOLVERS.register("describe_object")
def describe_object(scene: SceneAnn, colour: str, shape: str) -> str | None:
    """`colour shape` when such an object is present (for 'which of these is shown')."""
    if overlapping(scene, colour, shape):
        return None
    return f"{colour} {shape}" if matching(scene, colour, shape) else None


def _relation(scene: SceneAnn, a: tuple[str, str], b: tuple[str, str],
              axis: int) -> bool | None:
    if overlapping(scene, *a) or overlapping(scene, *b):
        return None
    first, second = unique(scene, colour=a[0], shape=a[1]), unique(scene, colour=b[0], shape=b[1])
    if first is None or second is None or first is second:
        return None
    if first.bbox[axis + 2] + MIN_SEPARATION <= second.bbox[axis]:
        return True
    if second.bbox[axis + 2] + MIN_SEPARATION <= first.bbox[axis]:
        return False
    return None


@SOLVERS.register("left_of")
def left_of(scene: SceneAnn, a_colour: str, a_shape: str, b_colour: str,
            b_shape: str) -> bool | None:
    """Viewer's left: whether object A lies wholly left of object B (None if they overlap)."""
    return _relation(scene, (a_colour, a_shape), (b_colour, b_shape), axis=0)


@SOLVERS.register("above")
def above(scene: SceneAnn, a_colour: str, a_shape: str, b_colour: str,
          b_shape: str) -> bool | None:
    """Whether object A lies wholly above object B in the image (None if they overlap)."""
    return _relation(scene, (a_colour, a_shape), (b_colour, b_shape), axis=1)


@SOLVERS.register("leftmost_object")
def leftmost_object(scene: SceneAnn) -> str | None:
    """Name of the object furthest left, when it clearly leads and its name is unique."""
    if len(scene.objects) < 2:
        return None
    ordered = sorted(scene.objects, key=lambda o: o.bbox[0])
    first, runner_up = ordered[0], ordered[1]
    if runner_up.bbox[0] - first.bbox[0] < MIN_LEAD:
        return None
    if len(matching(scene, first.colour, first.shape)) != 1:
        return None
    return describe(first)


@SOLVERS.register("distinct_count")
def distinct_count(scene: SceneAnn, attribute: str = "shape") -> int | None:
    """Number of different values of `attribute` (shape, colour or size) among the objects;
    None for shapes when the scene holds a kind and one it covers (a square and a rectangle:
    one kind or two, depending on the reading)."""
    if attribute not in ("shape", "colour", "size") or not scene.objects:
        return None
    kinds = {getattr(o, attribute) for o in scene.objects}
    if attribute == "shape" and any(kinds & set(COVERS.get(k, ())) for k in kinds):
        return None
    return len(kinds)


@SOLVERS.register("count_after_removal")
def count_after_removal(scene: SceneAnn, colour: str | None = None,
                        shape: str | None = None) -> int | None:
    """Objects left after removing every match; None when nothing would be removed."""
    if overlapping(scene, colour, shape):
        return None
    removed = len(matching(scene, colour, shape))
    return len(scene.objects) - removed if removed else None


@SOLVERS.register("more_than")
def more_than(scene: SceneAnn, a_colour: str | None = None, a_shape: str | None = None,
              b_colour: str | None = None, b_shape: str | None = None,
              min_gap: int = 0) -> bool | None:
    """Whether there are strictly more A objects than B objects; None when the counts differ
    by less than `min_gap` (1 leaves out ties, so asking both ways gives one yes, one no)."""
    if overlapping(scene, a_colour, a_shape) or overlapping(scene, b_colour, b_shape):
        return None
    first, second = len(matching(scene, a_colour, a_shape)), len(matching(scene, b_colour, b_shape))
    if abs(first - second) < min_gap:
        return None
    return first > second


@SOLVERS.register("most_common_colour")
def most_common_colour(scene: SceneAnn) -> str | None:
    """The colour carried by the most objects, if no other colour ties it."""
    counts = Counter(o.colour for o in scene.objects).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


@SOLVERS.register("read_text")
def read_text(scene: SceneAnn, colour: str | None = None, lang: str | None = None) -> str | None:
    """The only text (on a sign of this plate colour / in this language) in the scene."""
    found = [t.text for t in scene.texts
             if (colour is None or t.colour == colour) and (lang is None or t.lang == lang)]
    return found[0] if len(found) == 1 else None


@SOLVERS.register("text_bbox")
def text_bbox(scene: SceneAnn, text: str) -> list[int] | None:
    """Pixel box of the only occurrence of `text`."""
    found = [t for t in scene.texts if t.text == text]
    return list(found[0].bbox) if len(found) == 1 else None


@SOLVERS.register("chart_title")
def chart_title(scene: SceneAnn) -> str | None:
    """The chart's title."""
    return scene.chart.title if scene.chart else None


@SOLVERS.register("bar_value")
def bar_value(scene: SceneAnn, label: str) -> int | None:
    """Value of the bar labelled `label`."""
    bar = _bar(scene, label)
    return bar.value if bar else None


@SOLVERS.register("bar_count")
def bar_count(scene: SceneAnn) -> int | None:
    """Number of bars in the chart."""
    return len(scene.chart.bars) if scene.chart else None


@SOLVERS.register("tallest_bar")
def tallest_bar(scene: SceneAnn) -> str | None:
    """Label of the highest bar (None on a tie)."""
    return _extreme_label(scene, highest=True)


@SOLVERS.register("shortest_bar")
def shortest_bar(scene: SceneAnn) -> str | None:
    """Label of the lowest bar (None on a tie)."""
    return _extreme_label(scene, highest=False)


@SOLVERS.register("bar_greater")
def bar_greater(scene: SceneAnn, a: str, b: str) -> bool | None:
    """Whether bar A's value exceeds bar B's (None on equal values or unknown labels)."""
    first, second = _bar(scene, a), _bar(scene, b)
    if first is None or second is None or first.value == second.value:
        return None
    return first.value > second.value


@SOLVERS.register("bar_difference")
def bar_difference(scene: SceneAnn, a: str, b: str) -> int | None:
    """How much bar A exceeds bar B; None unless A is higher."""
    first, second = _bar(scene, a), _bar(scene, b)
    if first is None or second is None or first.value <= second.value:
        return None
    return first.value - second.value


@SOLVERS.register("tallest_after_removal")
def tallest_after_removal(scene: SceneAnn, label: str) -> str | None:
    """Highest bar once `label` is removed; None unless `label` was the highest (else the
    hypothetical changes nothing)."""
    if tallest_bar(scene) != label:
        return None
    return _extreme_label(scene, highest=True, skip=label)
