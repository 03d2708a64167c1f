"""The demo's closed vocabulary: colours, shapes, sizes, sign words and chart themes.

Scenes draw from it and templates render it (English and Chinese), so both sides agree on
every name a gold answer can take.
"""

from __future__ import annotations

# name -> (fill RGB, Chinese name)
COLOURS: dict[str, tuple[tuple[int, int, int], str]] = {
    "red": ((214, 40, 40), "红色"),
    "green": ((34, 150, 60), "绿色"),
    "blue": ((35, 85, 220), "蓝色"),
    "yellow": ((242, 201, 22), "黄色"),
    "orange": ((245, 128, 18), "橙色"),
    "purple": ((132, 58, 178), "紫色"),
    "black": ((28, 28, 28), "黑色"),
}

# name -> (plural, Chinese name)
SHAPES: dict[str, tuple[str, str]] = {
    "circle": ("circles", "圆形"),
    "square": ("squares", "正方形"),
    "triangle": ("triangles", "三角形"),
    "rectangle": ("rectangles", "长方形"),
    "diamond": ("diamonds", "菱形"),
    "star": ("stars", "五角星"),
}

# Shape names whose everyday meaning covers another drawn kind: a square is a rectangle.
# Questions about such a category are not asked where a covered kind would match it
# (bench_kit.authoring.solvers.overlapping), so every gold holds under either reading. The
# diamond is drawn as a non-square rhombus standing on a corner and no shape is an ellipse,
# so no other pair overlaps.
COVERS: dict[str, tuple[str, ...]] = {"rectangle": ("square",)}

# name -> (bounding dimension in px at a 360 px short side, as (low, high); Chinese name)
SIZES: dict[str, tuple[tuple[int, int], str]] = {
    "small": ((34, 42), "小"),
    "medium": ((58, 70), "中等大小"),
    "large": ((92, 108), "大"),
}

# Light background colours, so every shape colour stays visible on them.
BACKGROUNDS: dict[str, tuple[int, int, int]] = {
    "white": (250, 250, 250),
    "ivory": (255, 250, 236),
    "lightgrey": (226, 226, 226),
    "lightblue": (218, 233, 250),
    "mint": (220, 244, 228),
    "beige": (243, 236, 218),
    "lavender": (236, 232, 250),
}

# Sign plates: name -> (plate RGB, text RGB)
PLATES: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "green": ((20, 110, 60), (255, 255, 255)),
    "blue": ((25, 60, 150), (255, 255, 255)),
    "red": ((180, 30, 30), (255, 255, 255)),
    "white": ((252, 252, 252), (20, 20, 20)),
    "yellow": ((250, 205, 40), (20, 20, 20)),
    "black": ((30, 30, 30), (255, 255, 255)),
}

SIGN_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("EXIT", "CAFE OLA", "BOOKS", "OPEN", "PHARMACY", "BAKERY", "NO PARKING",
           "HOTEL", "MUSEUM", "TAXI", "STOP", "PLATFORM 3", "POST OFFICE", "FRESH FISH"),
    "zh": ("出口", "书店", "入口", "咖啡馆", "药店", "面包店", "停车场", "博物馆",
           "地铁站", "禁止吸烟", "超市", "医院"),
}

# Alternative spellings accepted for open answers (canonical -> extra answers).
ALIASES: dict[str, tuple[str, ...]] = {
    "purple": ("violet",),
    "diamond": ("rhombus",),
    "rectangle": ("oblong",),
    "star": ("five-pointed star",),
    "CAFE OLA": ("CAFÉ OLA", "Cafe Ola"),
    "PLATFORM 3": ("PLATFORM THREE",),
    "NO PARKING": ("No Parking",),
}

# Chart themes: title -> (labels, keep label order?, value range). Values have two digits:
# the OCR detector often misses a lone single digit above a bar.
CHART_THEMES: dict[str, tuple[tuple[str, ...], bool, tuple[int, int]]] = {
    "Fruit sold": (("Apples", "Pears", "Plums", "Figs", "Limes", "Kiwis", "Mangos"),
                   False, (10, 48)),
    "Books read": (("Ana", "Ben", "Cleo", "Dan", "Eva", "Finn"), False, (10, 35)),
    "Visitors per day": (("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"), True, (12, 95)),
    "Goals scored": (("Lions", "Tigers", "Bears", "Wolves", "Eagles"), False, (10, 30)),
    "Rainy days": (("Jan", "Feb", "Mar", "Apr", "May", "Jun"), True, (10, 28)),
}


def zh(word: str) -> str:
    """The Chinese name of a colour, shape or size (unchanged when it has none)."""
    for table in (COLOURS, SHAPES, SIZES):
        if word in table:
            return table[word][1]
    return word


def plural(shape: str) -> str:
    """English plural of a shape name."""
    return SHAPES[shape][0] if shape in SHAPES else shape + "s"


def answers_for(value: str) -> list[str]:
    """The canonical answer followed by its accepted alternative spellings."""
    return [value, *ALIASES.get(value, ())]
