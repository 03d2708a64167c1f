"""Synthetic demo scenes (shapes, text signs, bar charts) with ground-truth annotations.

`render_scenes` is a pure function of its params: the same seed and sizes give
byte-identical PNGs and annotations, which DVC relies on.
"""

from __future__ import annotations

import io
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bench_kit.authoring import scene_draw as sd
from bench_kit.authoring.vocab import (
    CHART_THEMES,
    COLOURS,
    PLATES,
    SHAPES,
    SIGN_WORDS,
    SIZES,
)
from bench_kit.errors import InputError
from bench_kit.io import iter_jsonl, write_bytes, write_jsonl
from bench_kit.params import load_params, section

SceneKind = Literal["shapes", "sign", "chart"]
SCENE_KINDS: tuple[SceneKind, ...] = ("shapes", "sign", "chart")
_SCENE_FILE = re.compile(r"^s\d{4,}\.png$")
_SCENE_NUMBER = re.compile(r"^s(\d+)$")
# Scene parameters that questions count, so no count is a safe blind guess: every
# consecutive block of scenes of a kind takes each value once (docs/AUTHORING.md, gold balance).
OBJECT_COUNTS = (2, 3, 4, 5, 6, 7)
SHAPE_KINDS = (1, 2, 3, 4)
BAR_COUNTS = (3, 4, 5)


class SceneParams(BaseModel):
    """The `scenes:` section of params.yaml."""

    model_config = ConfigDict(extra="forbid")

    seed: int = 7
    n_shapes: int = Field(60, ge=0, le=100_000)
    n_signs: int = Field(16, ge=0, le=100_000)
    n_charts: int = Field(16, ge=0, le=100_000)
    width: int = Field(480, ge=240, le=4096)
    height: int = Field(360, ge=240, le=4096)


class _Ann(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    @field_validator("bbox", check_fields=False)
    @classmethod
    def _ordered(cls, value: list[int]) -> list[int]:
        if not (value[0] < value[2] and value[1] < value[3]):
            raise ValueError("bbox must be [x1, y1, x2, y2] with x1 < x2 and y1 < y2")
        return value


class ObjectAnn(_Ann):
    """One drawn shape."""

    id: str
    shape: str
    colour: str
    size: str
    bbox: list[int] = Field(min_length=4, max_length=4)


class TextAnn(_Ann):
    """One line of text on a sign; `colour` is the sign plate's colour, `plate` its box (a
    mark pointing at the sign goes around the plate, never inside it)."""

    text: str
    lang: Literal["en", "zh"]
    colour: str | None = None
    bbox: list[int] = Field(min_length=4, max_length=4)
    plate: list[int] | None = Field(None, min_length=4, max_length=4)


class BarAnn(_Ann):
    """One bar of a bar chart; `value_box` and `label_box` are its value and category
    labels as the renderer drew them (None for a bar that was not drawn)."""

    label: str
    value: int
    bbox: list[int] = Field(min_length=4, max_length=4)
    value_box: list[int] | None = Field(default=None, min_length=4, max_length=4)
    label_box: list[int] | None = Field(default=None, min_length=4, max_length=4)


class ChartAnn(BaseModel):
    """A bar chart: title, labels and values in drawing order (left to right)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    title: str
    labels: list[str]
    values: list[int]
    bars: list[BarAnn]
    colour: str | None = None


class SceneAnn(BaseModel):
    """One row of annotations.jsonl: everything the templates may ask about a scene."""

    model_config = ConfigDict(frozen=True, extra="allow")

    scene: str
    image: str
    kind: SceneKind
    width: int
    height: int
    background: str = ""
    objects: list[ObjectAnn] = Field(default_factory=list)
    texts: list[TextAnn] = Field(default_factory=list)
    chart: ChartAnn | None = None


@dataclass
class SceneSummary:
    """What `render_scenes` wrote."""

    out_dir: Path
    counts: dict[str, int] = field(default_factory=dict)
    n_objects: int = 0
    n_texts: int = 0

    @property
    def total(self) -> int:
        """Number of scenes written."""
        return sum(self.counts.values())


def _scale(params: SceneParams) -> float:
    return min(params.width, params.height) / 360


def stratified(seed: int, name: str, index: int, values: Sequence[int]) -> int:
    """The value of `values` for the `index`-th scene of a kind: each consecutive block of
    len(values) scenes takes every value once, in an order shuffled by (seed, name, block)."""
    block, position = divmod(index, len(values))
    order = list(values)
    random.Random(f"{seed}:{name}:{block}").shuffle(order)
    return order[position]


def kind_index(params: SceneParams, scene_id: str, kind: str) -> int:
    """0-based position of a scene among the scenes of its kind in `scene_plan` (a stable
    hash of the id for ids that plan does not make)."""
    match = _SCENE_NUMBER.match(scene_id)
    if match is None:
        return int.from_bytes(scene_id.encode()[:4].ljust(4, b"\0"), "big")
    offset = {"shapes": 0, "sign": params.n_shapes,
              "chart": params.n_shapes + params.n_signs}[kind]
    return max(int(match.group(1)) - 1 - offset, 0)


def _add_shapes(image, rng: random.Random, params: SceneParams, n: int, taken: list[sd.Box],
                colours: list[str], shapes: list[str], sizes: list[str],
                start: int = 1, every_shape: bool = False) -> list[ObjectAnn]:
    """Draw up to `n` shapes (fewer when no free slot is left); with `every_shape` the first
    len(shapes) of them take each palette shape once, so the scene shows all its kinds."""
    objects: list[ObjectAnn] = []
    scale = _scale(params)
    margin, gap = round(10 * scale), round(12 * scale)
    for k in range(n):
        shape, colour, size = rng.choice(shapes), rng.choice(colours), rng.choice(sizes)
        if every_shape and k < len(shapes):
            shape = shapes[k]
        low, high = SIZES[size][0]
        d = round(rng.randint(low, high) * scale)
        slot = sd.place(rng, sd.points_extent(sd.shape_points(shape, d)), params.width,
                        params.height, taken, margin, gap)
        if slot is None:
            continue
        box = sd.draw_shape(image, shape, colour, d, slot[0], slot[1])
        taken.append(box)
        objects.append(ObjectAnn(id=f"o{start + len(objects)}", shape=shape, colour=colour,
                                 size=size, bbox=list(box)))
    return objects


def _shape_scene(rng: random.Random, params: SceneParams, index: int) -> dict:
    image, background = sd.make_background(rng, params.width, params.height)
    # A few colours and kinds per scene, so repeats (>= 2 of one colour or kind) are common
    # and some palette entries stay absent (material for POPE-style questions). The object
    # count and the number of kinds are stratified over the scenes, so counting questions
    # have no dominant answer.
    colours = rng.sample(sorted(COLOURS), rng.choice((2, 3, 3, 4)))
    shapes = rng.sample(sorted(SHAPES), stratified(params.seed, "kinds", index, SHAPE_KINDS))
    n = stratified(params.seed, "objects", index, OBJECT_COUNTS)
    objects = _add_shapes(image, rng, params, n, [], colours, shapes, sorted(SIZES),
                          every_shape=True)
    return {"image": image, "background": background, "objects": objects, "texts": [],
            "chart": None}


def _sign_scene(rng: random.Random, params: SceneParams, index: int) -> dict:
    image, background = sd.make_background(rng, params.width, params.height,
                                           kinds=("plain", "gradient", "grid"))
    scale = _scale(params)
    n_signs = rng.choice((1, 1, 2))
    langs = [rng.choice(("en", "zh")) for _ in range(n_signs)]
    plates = rng.sample(sorted(PLATES), n_signs)
    band = params.height // n_signs
    margin, pad = round(14 * scale), (round(18 * scale), round(12 * scale))
    taken: list[sd.Box] = []
    texts: list[TextAnn] = []
    used: set[str] = set()
    for k, (lang, plate) in enumerate(zip(langs, plates)):
        text = rng.choice([w for w in SIGN_WORDS[lang] if w not in used])
        used.add(text)
        start = round((58 if lang == "zh" else 52) * scale)
        size = sd.fit_text_size(text, start, round(36 * scale),
                                params.width - 2 * margin - 2 * pad[0])
        left, top, right, bottom = sd.text_extent(text, size)
        plate_w, plate_h = right - left + 2 * pad[0], bottom - top + 2 * pad[1]
        x = rng.randint(margin, max(margin, params.width - margin - plate_w))
        y_low = k * band + margin
        y = rng.randint(y_low, max(y_low, (k + 1) * band - margin - plate_h))
        plate_box, text_box = sd.draw_sign(image, text, plate, size, x, y, pad)
        taken.append(plate_box)
        texts.append(TextAnn(text=text, lang=lang, colour=plate, bbox=list(text_box),
                             plate=list(plate_box)))
    objects = _add_shapes(image, rng, params, rng.choice((0, 1, 2)), taken,
                          sorted(COLOURS), sorted(SHAPES), ["small", "medium"])
    return {"image": image, "background": background, "objects": objects, "texts": texts,
            "chart": None}


def _chart_scene(rng: random.Random, params: SceneParams, index: int) -> dict:
    image, background = sd.make_background(rng, params.width, params.height, kinds=("plain",))
    themes = sorted(CHART_THEMES)
    title = themes[stratified(params.seed, "theme", index, range(len(themes)))]
    pool, ordered, (low, high) = CHART_THEMES[title]
    n = min(stratified(params.seed, "bars", index, BAR_COUNTS), len(pool))
    if ordered:
        first = rng.randint(0, len(pool) - n)
        labels = list(pool[first:first + n])
    else:
        labels = rng.sample(list(pool), n)
    values = rng.sample(range(low, high + 1), n)  # distinct: "tallest" is always unique
    colour = rng.choice([c for c in sorted(COLOURS) if c != "black"])
    title_box, boxes, drawn = sd.draw_bar_chart(image, title, labels, values, colour,
                                                _scale(params))
    bars = [BarAnn(label=lab, value=val, bbox=list(box), value_box=list(value_box),
                   label_box=list(label_box))
            for lab, val, box, (value_box, label_box) in zip(labels, values, boxes, drawn)]
    chart = ChartAnn(title=title, labels=labels, values=values, bars=bars, colour=colour)
    texts = [TextAnn(text=title, lang="en", bbox=list(title_box))]
    return {"image": image, "background": background, "objects": [], "texts": texts,
            "chart": chart}


_BUILDERS = {"shapes": _shape_scene, "sign": _sign_scene, "chart": _chart_scene}


def scene_plan(params: SceneParams) -> list[tuple[str, str]]:
    """(scene id, kind) for every scene, in output order: shapes, then signs, then charts."""
    kinds = (["shapes"] * params.n_shapes + ["sign"] * params.n_signs
             + ["chart"] * params.n_charts)
    return [(f"s{i:04d}", kind) for i, kind in enumerate(kinds, start=1)]


def build_scene(params: SceneParams, scene_id: str, kind: str) -> tuple[SceneAnn, bytes]:
    """Draw one scene; return its annotation and PNG bytes (a pure function of params)."""
    rng = random.Random(f"{params.seed}:{scene_id}:{kind}")
    drawn = _BUILDERS[kind](rng, params, kind_index(params, scene_id, kind))
    buffer = io.BytesIO()
    drawn["image"].save(buffer, format="PNG", optimize=False)
    ann = SceneAnn(scene=scene_id, image=f"images/{scene_id}.png", kind=kind,
                   width=params.width, height=params.height, background=drawn["background"],
                   objects=drawn["objects"], texts=drawn["texts"], chart=drawn["chart"])
    return ann, buffer.getvalue()


def render_scenes(params: SceneParams, out_dir: str | Path) -> SceneSummary:
    """Draw every scene into `<out_dir>/images/` and write `<out_dir>/annotations.jsonl`.

    PNGs of an earlier, larger run (`s<NNNN>.png` not in this plan) are removed so the
    folder always matches the annotations.
    """
    out = Path(out_dir)
    images = out / "images"
    images.mkdir(parents=True, exist_ok=True)
    summary = SceneSummary(out_dir=out, counts={k: 0 for k in SCENE_KINDS})
    rows: list[SceneAnn] = []
    for scene_id, kind in scene_plan(params):
        ann, png = build_scene(params, scene_id, kind)
        write_bytes(images / f"{scene_id}.png", png)
        rows.append(ann)
        summary.counts[kind] += 1
        summary.n_objects += len(ann.objects)
        summary.n_texts += len(ann.texts)
    wanted = {Path(a.image).name for a in rows}
    for stale in images.iterdir():
        if _SCENE_FILE.match(stale.name) and stale.name not in wanted:
            stale.unlink()
    write_jsonl(out / "annotations.jsonl", (a.model_dump(mode="json") for a in rows))
    return summary


def read_annotations(path: str | Path) -> list[SceneAnn]:
    """Read annotations.jsonl; a bad row raises InputError naming its line and field."""
    scenes: list[SceneAnn] = []
    seen: set[str] = set()
    for line, row in iter_jsonl(path):
        try:
            scene = SceneAnn.model_validate(row)
        except ValidationError as exc:
            first = exc.errors()[0]
            field_name = ".".join(str(p) for p in first["loc"]) or "(row)"
            raise InputError(first["msg"], path=str(path), line=line, field=field_name) from exc
        if scene.scene in seen:
            raise InputError(f"duplicate scene '{scene.scene}'", path=str(path), line=line,
                             field="scene")
        seen.add(scene.scene)
        scenes.append(scene)
    return scenes


def run_scenes(params_path: str | Path, out_dir: str | Path) -> SceneSummary:
    """Read the `scenes:` section of params.yaml and render every scene into `out_dir`."""
    params = section(load_params(params_path), "scenes", SceneParams, source=str(params_path))
    return render_scenes(params, out_dir)
