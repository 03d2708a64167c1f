"""Pillow drawing primitives for the demo scenes: backgrounds, shapes, sign plates, bar charts.

Every function takes an explicit `random.Random` so a scene is a pure function of its seed.
"""

from __future__ import annotations

import math
import random
from typing import Any

from bench_kit.authoring.fonts import font_for
from bench_kit.authoring.vocab import BACKGROUNDS, COLOURS, PLATES

Box = tuple[int, int, int, int]
Point = tuple[float, float]


def make_background(rng: random.Random, width: int, height: int,
                    kinds: tuple[str, ...] = ("plain", "gradient", "noise", "grid")) -> tuple[Any, str]:
    """A light background image and its description, e.g. `gradient:mint-white:vertical`."""
    from PIL import Image, ImageDraw

    kind = rng.choice(kinds)
    names = sorted(BACKGROUNDS)
    base = rng.choice(names)
    image = Image.new("RGB", (width, height), BACKGROUNDS[base])
    if kind == "plain":
        return image, f"plain:{base}"
    if kind == "gradient":
        other = rng.choice([n for n in names if n != base])
        vertical = rng.random() < 0.5
        a, b = BACKGROUNDS[base], BACKGROUNDS[other]
        steps = height if vertical else width
        draw = ImageDraw.Draw(image)
        for i in range(steps):
            t = i / max(steps - 1, 1)
            colour = tuple(round(a[c] + (b[c] - a[c]) * t) for c in range(3))
            line = [(0, i), (width, i)] if vertical else [(i, 0), (i, height)]
            draw.line(line, fill=colour)
        direction = "vertical" if vertical else "horizontal"
        return image, f"gradient:{base}-{other}:{direction}"
    if kind == "noise":
        import numpy as np

        noise_rng = np.random.default_rng(rng.getrandbits(32))
        pixels = np.asarray(image, dtype=np.int16)
        pixels = pixels + noise_rng.integers(-12, 13, size=(height, width, 1), dtype=np.int16)
        return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "RGB"), f"noise:{base}"
    draw = ImageDraw.Draw(image)
    step = rng.choice((20, 24, 30))
    line_colour = tuple(max(c - 22, 0) for c in BACKGROUNDS[base])
    for x in range(0, width, step):
        draw.line([(x, 0), (x, height)], fill=line_colour)
    for y in range(0, height, step):
        draw.line([(0, y), (width, y)], fill=line_colour)
    return image, f"grid:{base}"


def shape_points(shape: str, d: int) -> list[Point]:
    """Outline of `shape` with bounding dimension `d`, top-left at the origin (circle: its box)."""
    if shape == "circle":
        return [(0, 0), (d, d)]
    if shape == "square":
        return [(0, 0), (d, 0), (d, d), (0, d)]
    if shape == "rectangle":
        return [(0, 0), (d, 0), (d, d // 2), (0, d // 2)]
    if shape == "triangle":
        h = round(d * 0.87)
        return [(d / 2, 0), (d, h), (0, h)]
    if shape == "diamond":
        w = round(d * 0.8)
        return [(w / 2, 0), (w, d / 2), (w / 2, d), (0, d / 2)]
    if shape == "star":
        outer, inner = d / 2, d / 2 * 0.45
        raw = []
        for k in range(10):
            radius = outer if k % 2 == 0 else inner
            angle = -math.pi / 2 + k * math.pi / 5
            raw.append((radius * math.cos(angle), radius * math.sin(angle)))
        min_x, min_y = min(p[0] for p in raw), min(p[1] for p in raw)
        return [(x - min_x, y - min_y) for x, y in raw]
    raise ValueError(f"unknown shape '{shape}'")


def points_extent(points: list[Point]) -> tuple[int, int]:
    """(width, height) of an outline, rounded up to whole pixels."""
    return (math.ceil(max(p[0] for p in points)), math.ceil(max(p[1] for p in points)))


def draw_shape(image: Any, shape: str, colour: str, d: int, x: int, y: int) -> Box:
    """Draw a filled shape with its top-left at (x, y); return its pixel bbox."""
    from PIL import ImageDraw

    fill = COLOURS[colour][0]
    outline = tuple(max(c - 70, 0) for c in fill)
    draw = ImageDraw.Draw(image)
    points = [(px + x, py + y) for px, py in shape_points(shape, d)]
    if shape == "circle":
        draw.ellipse(points, fill=fill, outline=outline, width=2)
    else:
        draw.polygon(points, fill=fill, outline=outline, width=2)
    w, h = points_extent(shape_points(shape, d))
    return (x, y, x + w, y + h)


def overlaps(box: Box, others: list[Box], gap: int) -> bool:
    """True when `box` comes closer than `gap` px to any of `others`."""
    x1, y1, x2, y2 = box
    return any(x1 < o[2] + gap and o[0] < x2 + gap and y1 < o[3] + gap and o[1] < y2 + gap
               for o in others)


def place(rng: random.Random, size: tuple[int, int], width: int, height: int,
          taken: list[Box], margin: int, gap: int, tries: int = 200) -> Box | None:
    """A free box of `size` inside the image (margin from the edges), or None if none found."""
    w, h = size
    if w + 2 * margin > width or h + 2 * margin > height:
        return None
    for _ in range(tries):
        x = rng.randint(margin, width - margin - w)
        y = rng.randint(margin, height - margin - h)
        box = (x, y, x + w, y + h)
        if not overlaps(box, taken, gap):
            return box
    return None


def text_extent(text: str, size: int) -> tuple[int, int, int, int]:
    """Pillow's text bbox of `text` drawn at the origin (offsets included)."""
    from PIL import Image, ImageDraw

    draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font_for(text, size))
    return (int(left), int(top), int(right), int(bottom))


def fit_text_size(text: str, start: int, minimum: int, max_width: int) -> int:
    """The largest font size <= start (>= minimum) whose rendering fits in `max_width`."""
    size = start
    while size > minimum:
        left, _, right, _ = text_extent(text, size)
        if right - left <= max_width:
            return size
        size -= 2
    return minimum


def draw_sign(image: Any, text: str, plate: str, size: int, x: int, y: int,
              pad: tuple[int, int]) -> tuple[Box, Box]:
    """Draw a sign plate with `text` at top-left (x, y); return (plate bbox, text bbox)."""
    from PIL import ImageDraw

    left, top, right, bottom = text_extent(text, size)
    plate_box = (x, y, x + (right - left) + 2 * pad[0], y + (bottom - top) + 2 * pad[1])
    plate_rgb, text_rgb = PLATES[plate]
    border = tuple(max(c - 60, 0) for c in plate_rgb)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle(plate_box, radius=10, fill=plate_rgb, outline=border, width=3)
    origin = (x + pad[0] - left, y + pad[1] - top)
    draw.text(origin, text, fill=text_rgb, font=font_for(text, size))
    text_box = (x + pad[0], y + pad[1], x + pad[0] + right - left, y + pad[1] + bottom - top)
    return plate_box, text_box


def draw_bar_chart(image: Any, title: str, labels: list[str], values: list[int], colour: str,
                   scale: float) -> tuple[Box, list[Box], list[tuple[Box, Box]]]:
    """Draw a titled bar chart with value and category labels; return (title bbox, bar
    bboxes, each bar's (value label bbox, category label bbox)) as drawn."""
    from PIL import ImageDraw

    width, height = image.size
    draw = ImageDraw.Draw(image)
    ink = (30, 30, 30)
    title_size, label_size = round(26 * scale), round(20 * scale)
    value_size = round(22 * scale)
    tl, tt, tr, tb = text_extent(title, title_size)
    tx, ty = (width - (tr - tl)) // 2, round(12 * scale)
    draw.text((tx - tl, ty - tt), title, fill=ink, font=font_for(title, title_size))
    title_box = (tx, ty, tx + tr - tl, ty + tb - tt)

    left, right = round(40 * scale), width - round(30 * scale)
    top, base = title_box[3] + round(44 * scale), height - round(44 * scale)
    draw.line([(left, base), (right, base)], fill=ink, width=2)
    draw.line([(left, top - round(20 * scale)), (left, base)], fill=ink, width=2)
    slot = (right - left) / len(labels)
    bar_w = round(slot * 0.56)
    # Neighbouring labels must not touch, or OCR reads them as one word.
    label_size = min(fit_text_size(lab, label_size, 12, round(slot * 0.78)) for lab in labels)
    peak = max(values)
    bars: list[Box] = []
    texts: list[tuple[Box, Box]] = []
    for i, (label, value) in enumerate(zip(labels, values)):
        cx = left + slot * (i + 0.5)
        bar_h = max(round((base - top) * value / peak), 2)
        box = (round(cx - bar_w / 2), base - bar_h, round(cx - bar_w / 2) + bar_w, base)
        draw.rectangle(box, fill=COLOURS[colour][0], outline=ink, width=1)
        bars.append(box)
        drawn: list[Box] = []
        for text, y_top, size in ((str(value), box[1] - round(28 * scale), value_size),
                                  (label, base + round(8 * scale), label_size)):
            x0, t, x1, b = text_extent(text, size)
            x = round(cx - (x1 - x0) / 2)
            draw.text((x - x0, y_top - t), text, fill=ink, font=font_for(text, size))
            drawn.append((x, y_top, x + x1 - x0, y_top + b - t))
        texts.append((drawn[0], drawn[1]))
    return title_box, bars, texts
