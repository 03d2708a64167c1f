"""Visual prompts: a copy of a scene image with one referent marked (a box, circle or arrow).

A deixis variant ("What colour is this object?") needs an image that shows which object
"this" is. `place_mark` finds a mark outside its referent that touches none of the scene's
annotated regions (so it never covers text to be read, a sign plate, a bar's value label or
another object), in the palette colour with the highest WCAG contrast ratio against the
pixels under and beside its stroke — at least MIN_CONTRAST (3:1, the WCAG minimum for
graphical objects), else the next placement is tried; `save_marked` draws it and stores the
PNG under its content hash. See docs/AUTHORING.md ("Deixis and visual prompts").
"""

from __future__ import annotations

import hashlib
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.authoring.scenes import SceneAnn
from bench_kit.authoring.vocab import COLOURS, PLATES
from bench_kit.errors import InputError
from bench_kit.io import write_bytes

Box = tuple[int, int, int, int]
MarkKind = Literal["box", "circle", "arrow"]

# Mark colours far from every scene colour (vocab.COLOURS, sign plates, greys): the one with
# the highest contrast against the pixels around the mark's stroke is used.
MARK_PALETTE: dict[str, tuple[int, int, int]] = {
    "magenta": (236, 0, 140), "cyan": (0, 200, 230), "lime": (120, 255, 0),
    "deep-magenta": (180, 0, 110),   # 3:1 and more on the darker lines of grid backgrounds
}
# WCAG 2.1 non-text contrast (success criterion 1.4.11): graphical objects need 3:1 against
# adjacent colours.
MIN_CONTRAST = 3.0
BAND = 3   # pixels either side of the stroke read as its surroundings


class MarkStyle(BaseModel):
    """The `variants.visual_prompt:` settings: which mark to try first, its stroke and gap."""

    model_config = ConfigDict(extra="forbid")

    kind: MarkKind = "box"
    width: int = Field(3, ge=1, le=12)        # stroke width in pixels
    margins: list[int] = Field(default_factory=lambda: [6, 3, 2])  # gap to the referent, tried in order
    colours: list[str] = Field(default_factory=lambda: list(MARK_PALETTE))
    folder: str = "marked"                    # under the items' folder

    def order(self) -> list[MarkKind]:
        """The configured kind first, then the others as fallbacks."""
        kinds: list[MarkKind] = ["box", "circle", "arrow"]
        return [self.kind, *[k for k in kinds if k != self.kind]]


@dataclass(frozen=True)
class Mark:
    """A placed mark: kind, the referent's box, the stroke geometry and colour."""

    kind: MarkKind
    bbox: Box                      # the referent's box
    shape: tuple[int, ...]         # box/circle: outer x1,y1,x2,y2; arrow: tail x,y,head x,y
    width: int
    colour: tuple[int, int, int]
    colour_name: str


def as_box(values: list[int]) -> Box:
    """An annotation's `[x1, y1, x2, y2]` list as a Box tuple."""
    x1, y1, x2, y2 = values
    return (x1, y1, x2, y2)


def protected_regions(scene: SceneAnn) -> list[Box]:
    """Every region a mark must not cover: objects, sign texts and plates (the chart title
    among them), bars with their value and category labels as the renderer recorded them."""
    boxes = [as_box(o.bbox) for o in scene.objects]
    boxes += [as_box(t.bbox) for t in scene.texts]
    boxes += [as_box(t.plate) for t in scene.texts if t.plate]
    for bar in scene.chart.bars if scene.chart is not None else []:
        if bar.value_box is None or bar.label_box is None:
            raise InputError(f"scene '{scene.scene}': chart bar '{bar.label}' has no recorded "
                             "value/label boxes (annotations written by an older version): "
                             "re-run `bench-kit author scenes`")
        boxes += [as_box(bar.bbox), as_box(bar.value_box), as_box(bar.label_box)]
    return boxes


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _stroke_boxes(kind: MarkKind, shape: tuple[int, ...], width: int) -> list[Box]:
    """Small boxes covering the stroke (to test against protected regions)."""
    if kind == "box":
        x1, y1, x2, y2 = shape
        return [(x1, y1, x2, y1 + width), (x1, y2 - width, x2, y2),
                (x1, y1, x1 + width, y2), (x2 - width, y1, x2, y2)]
    if kind == "circle":
        x1, y1, x2, y2 = shape
        cx, cy, rx, ry = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1) / 2, (y2 - y1) / 2
        out = []
        for step in range(72):
            t = 2 * math.pi * step / 72
            px, py = cx + rx * math.cos(t), cy + ry * math.sin(t)
            out.append((round(px - width), round(py - width), round(px + width), round(py + width)))
        return out
    tx, ty, hx, hy = shape
    steps = max(int(math.hypot(hx - tx, hy - ty) // 3), 1)
    return [(round(tx + (hx - tx) * k / steps) - width - 3, round(ty + (hy - ty) * k / steps)
             - width - 3, round(tx + (hx - tx) * k / steps) + width + 3,
             round(ty + (hy - ty) * k / steps) + width + 3) for k in range(steps + 1)]


def _candidates(kind: MarkKind, bbox: Box, margin: int, width: int) -> list[tuple[int, ...]]:
    x1, y1, x2, y2 = bbox
    if kind == "box":
        return [(x1 - margin - width, y1 - margin - width, x2 + margin + width,
                 y2 + margin + width)]
    if kind == "circle":
        # The ellipse through the box corners (sqrt 2 times the half-sides), plus the gap.
        rx = (x2 - x1) / 2 * math.sqrt(2) + margin + width
        ry = (y2 - y1) / 2 * math.sqrt(2) + margin + width
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        return [(round(cx - rx), round(cy - ry), round(cx + rx), round(cy + ry))]
    out: list[tuple[int, ...]] = []
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    for angle in (315, 225, 45, 135, 270, 0, 180, 90):   # from the upper right first
        t = math.radians(angle)
        dx, dy = math.cos(t), math.sin(t)
        # head just outside the box edge along the ray, tail 40 px further out
        reach = min(abs((x2 - x1) / 2 / dx) if dx else math.inf,
                    abs((y2 - y1) / 2 / dy) if dy else math.inf) + margin + width
        hx, hy = cx + dx * reach, cy + dy * reach
        out.append((round(hx + dx * 40), round(hy + dy * 40), round(hx), round(hy)))
    return out


def _inside(shape: tuple[int, ...], kind: MarkKind, scene: SceneAnn) -> bool:
    xs, ys = shape[0::2], shape[1::2]
    return min(xs) >= 0 and min(ys) >= 0 and max(xs) < scene.width and max(ys) < scene.height


def place_mark(scene: SceneAnn, bbox: Box, style: MarkStyle,
               pixels: Any = None) -> Mark | None:
    """A mark around `bbox` whose stroke touches no protected region and stays in the image
    (the configured kind first, then the fallbacks, widest gap first); None if none fits.
    `pixels` (an RGB PIL image) chooses the colour; without it the first palette colour."""
    regions = protected_regions(scene)
    for kind in style.order():
        for margin in style.margins:
            for shape in _candidates(kind, bbox, margin, style.width):
                if not _inside(shape, kind, scene):
                    continue
                strokes = _stroke_boxes(kind, shape, style.width)
                if any(_overlaps(s, r) or _overlaps(s, bbox) for s in strokes
                       for r in regions):
                    continue
                around = [_widen(s, BAND) for s in strokes] if pixels is not None else []
                name, rgb = contrast_colour(pixels, around, style.colours)
                if pixels is not None and \
                        min_contrast(rgb, region_colours(pixels, around)) < MIN_CONTRAST:
                    continue
                return Mark(kind, bbox, shape, style.width, rgb, name)
    return None


def _widen(box: Box, pad: int) -> Box:
    return (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad)


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour (0 = black, 1 = white)."""
    def linear(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG contrast ratio of two colours, 1 (same luminance) to 21 (black on white)."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def region_colours(pixels: Any, boxes: list[Box]) -> list[tuple[int, int, int]]:
    """The colours covering at least 1% of the pixels in the boxes (clipped to the image;
    anti-aliased edges left out)."""
    from collections import Counter

    counts: Counter = Counter()
    for x1, y1, x2, y2 in boxes:
        crop = pixels.crop((max(x1, 0), max(y1, 0), min(x2 + 1, pixels.width),
                            min(y2 + 1, pixels.height))).convert("RGB")
        if crop.width and crop.height:
            counts.update({rgb: n for n, rgb in crop.getcolors(crop.width * crop.height) or []})
    total = sum(counts.values())
    return [rgb for rgb, n in counts.items() if n * 100 >= total]


def min_contrast(rgb: tuple[int, int, int], colours: list[tuple[int, int, int]]) -> float:
    """The lowest WCAG contrast ratio of `rgb` against any of the colours (21 when none)."""
    return min((contrast_ratio(rgb, other) for other in colours), default=21.0)


def contrast_colour(pixels: Any, around: Box | list[Box],
                    names: list[str]) -> tuple[str, tuple[int, int, int]]:
    """The palette colour with the highest lowest-WCAG-contrast against the colours in the
    region(s) `around` (for a placed mark: the pixels under and beside its stroke); without
    pixels, against every vocabulary and sign-plate colour. The palette holds no vocabulary
    colour, so the mark is never read as an object's colour."""
    if pixels is not None:
        boxes = [around] if isinstance(around, tuple) else around
        scene_colours = region_colours(pixels, boxes)
    else:
        scene_colours = [rgb for rgb, _ in COLOURS.values()]
        scene_colours += [rgb for pair in PLATES.values() for rgb in pair]
    name = max(names, key=lambda n: min_contrast(MARK_PALETTE[n], scene_colours))
    return name, MARK_PALETTE[name]


def draw_mark(image: Any, mark: Mark) -> Any:
    """A copy of the RGB image with the mark drawn on it."""
    from PIL import ImageDraw

    out = image.convert("RGB").copy()
    draw = ImageDraw.Draw(out)
    if mark.kind == "box":
        draw.rectangle(mark.shape, outline=mark.colour, width=mark.width)
    elif mark.kind == "circle":
        draw.ellipse(mark.shape, outline=mark.colour, width=mark.width)
    else:
        tx, ty, hx, hy = mark.shape
        draw.line((tx, ty, hx, hy), fill=mark.colour, width=mark.width)
        angle = math.atan2(hy - ty, hx - tx)
        wing = 10
        for side in (-0.5, 0.5):
            draw.line((hx, hy, hx - wing * math.cos(angle + side), hy - wing * math.sin(angle + side)),
                      fill=mark.colour, width=mark.width)
    return out


def save_marked(root: str | Path, source_image: str, mark: Mark, folder: str = "marked") -> str:
    """Draw the mark on `root/source_image`, store the PNG as `root/folder/<sha256>.png`
    (content hash: the same mark on the same image is stored once) and return that path
    relative to `root`."""
    from PIL import Image

    with Image.open(Path(root) / source_image) as img:
        marked = draw_mark(img, mark)
    buffer = io.BytesIO()
    marked.save(buffer, format="PNG", optimize=False)
    data = buffer.getvalue()
    rel = f"{folder}/{hashlib.sha256(data).hexdigest()[:20]}.png"
    target = Path(root) / rel
    if not target.exists():
        write_bytes(target, data)
    return rel


def prompt_meta(mark: Mark, source_image: str) -> dict[str, Any]:
    """What an item records in `meta.visual_prompt`."""
    return {"kind": mark.kind, "bbox": list(mark.bbox), "source_image": source_image,
            "colour": mark.colour_name, "shape": list(mark.shape)}
