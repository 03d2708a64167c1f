"""The deixis variant kind: erase one explicit reference and mark its referent on the image.

"What colour is the triangle?" becomes "What colour is this object?" on a copy of the image
with the triangle boxed (bench_kit.authoring.visual_prompt). The erased phrase is resolved
against the scene annotations: a phrase that names one object must name exactly one; "the
shapes of this colour" marks one object of that colour (an exemplar). A demonstrative that
points at the listed mc options ("which of these") or at the whole image ("here") needs no
mark. When no rewrite of the question has a referent that can be shown without giving the
answer away, the variant is skipped with the reasons.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_kit.authoring import counterfactual as cf
from bench_kit.authoring.lexicon import DeixisRewrite, deixis_rewrites
from bench_kit.authoring.scenes import SceneAnn
from bench_kit.authoring.solvers import matching
from bench_kit.authoring.visual_prompt import (
    Box,
    Mark,
    MarkStyle,
    as_box,
    place_mark,
    prompt_meta,
    save_marked,
)
from bench_kit.authoring.vocab import COLOURS, PLATES, SHAPES, SIZES
from bench_kit.types import Item

# Solvers whose question asks whether the referent is there: a mark on it answers "yes".
EXISTENCE_SOLVERS = frozenset({"object_present", "describe_object"})
# Referent kinds that need no mark.
UNMARKED = frozenset({"options", "image"})


def _words(phrase: str, table: dict[str, Any], plural_at: int | None = None) -> str | None:
    """The vocabulary entry named in the phrase (English word, plural or Chinese name)."""
    low = phrase.lower()
    for name, value in table.items():
        names = {name, value[-1]} | ({value[plural_at]} if plural_at is not None else set())
        for word in names:
            if isinstance(word, str) and (word in phrase if not word.isascii()
                                          else f" {word} " in f" {low} "):
                return name
    return None


def phrase_attributes(phrase: str) -> dict[str, str | None]:
    """Colour, shape and size named in an erased phrase ("the small red circles" ->
    red, circle, small; "红色的五角星" -> red, star)."""
    return {"colour": _words(phrase, COLOURS), "shape": _words(phrase, SHAPES, plural_at=0),
            "size": _words(phrase, SIZES)}


class NoReferent(ValueError):
    """The erased phrase of a rewrite has no single referent in the scene (the message says
    why)."""


def referent_boxes(rewrite: DeixisRewrite, scene: SceneAnn | None) -> list[Box]:
    """The boxes any one of which may be marked for this rewrite ([] = no mark needed).
    Raises `NoReferent` saying why when the erased phrase has no single referent."""
    if rewrite.referent in UNMARKED:
        return []
    if scene is None:
        raise NoReferent("no scene annotations: the referent cannot be located")
    phrase = rewrite.erased
    if rewrite.referent in ("object", "exemplar"):
        attrs = phrase_attributes(phrase)
        found = matching(scene, **attrs)
        if not found:
            raise NoReferent(f"'{phrase}' names nothing in the scene")
        if rewrite.referent == "object" and len(found) > 1:
            raise NoReferent(f"'{phrase}' names {len(found)} objects: 'this object' would be ambiguous")
        # Smallest first: an exemplar should not hint at "the largest one".
        found = sorted(found, key=lambda o: ((o.bbox[2] - o.bbox[0]) * (o.bbox[3] - o.bbox[1]),
                                             o.id))
        return [as_box(o.bbox) for o in found]
    if rewrite.referent == "sign":
        colour = _words(phrase, {**PLATES, **COLOURS})
        found_t = [t for t in scene.texts if colour is None or t.colour == colour]
    elif rewrite.referent == "text":
        quoted = phrase.split('"')[1] if '"' in phrase else ""
        found_t = [t for t in scene.texts if t.text == quoted]
    elif rewrite.referent == "bar":
        label = phrase.removeprefix("the ").removesuffix(" bar")
        bars = [b for b in (scene.chart.bars if scene.chart else []) if b.label == label]
        if len(bars) != 1:
            raise NoReferent(f"'{phrase}' names {len(bars)} bars")
        return [as_box(bars[0].bbox)]
    else:
        raise NoReferent(f"unknown referent kind '{rewrite.referent}'")
    if len(found_t) != 1:
        raise NoReferent(f"'{phrase}' names {len(found_t)} texts: 'this' would be ambiguous")
    # text on a sign: the mark goes around the whole plate, never inside it
    return [as_box(found_t[0].plate or found_t[0].bbox)]


@dataclass
class DeixisSettings:
    """What the deixis kind needs besides the item: the items' folder and the mark style."""

    root: Path | None
    style: MarkStyle


def _give_away(item: Item, solver: str | None) -> str | None:
    if item.task == "grounding":
        return "a mark on the referent shows the box the question asks for"
    if solver in EXISTENCE_SOLVERS:
        return "a mark on the object answers whether it is there"
    return None


def deixis_variant(item: Item, scene: SceneAnn | None, solver: str | None,
                   settings: DeixisSettings) -> cf.Draft | cf.Skip:
    """The first reference erasure of the question whose referent can be shown (marked on a
    new image, or needing no mark); Skip with every rewrite's reason otherwise."""
    rewrites = deixis_rewrites(item.question)
    if not rewrites:
        return cf.Skip("no explicit reference to erase")
    reasons: list[str] = []
    for rewrite in rewrites:
        if rewrite.referent == "options" and item.task != "mc":
            reasons.append(f"'{rewrite.erased}': 'these' has no listed options to point at")
            continue
        try:
            boxes = referent_boxes(rewrite, scene)
        except NoReferent as exc:
            reasons.append(str(exc))
            continue
        base_meta: dict[str, Any] = {"intentionally_harder": True, "erased": rewrite.erased,
                                     "referent": rewrite.referent}
        if not boxes:
            return cf.Draft(rewrite.question, list(item.answers), item.choices,
                            meta={**base_meta, "visual_prompt": None})
        why = _give_away(item, solver)
        if why:
            reasons.append(f"'{rewrite.erased}': {why}")
            continue
        if settings.root is None or not isinstance(item.image, str) or scene is None:
            reasons.append(f"'{rewrite.erased}': no image folder to write the marked image to")
            continue
        mark = _first_mark(scene, item.image, boxes, settings)
        if mark is None:
            reasons.append(f"'{rewrite.erased}': no mark fits without covering another region")
            continue
        image = save_marked(settings.root, item.image, mark, settings.style.folder)
        prompt = prompt_meta(mark, item.image)
        return cf.Draft(rewrite.question, list(item.answers), item.choices,
                        meta={**base_meta, "visual_prompt": prompt}, image=image)
    return cf.Skip("; ".join(reasons))


def _first_mark(scene: SceneAnn, image: str, boxes: list[Box],
                settings: DeixisSettings) -> Mark | None:
    from PIL import Image

    assert settings.root is not None
    with Image.open(settings.root / image) as img:
        pixels = img.convert("RGB")
    for box in boxes:
        mark = place_mark(scene, box, settings.style, pixels)
        if mark is not None:
            return mark
    return None
