"""Closed classes whose members contradict each other (colours, largest/smallest, left/right,
shapes, ...): two texts that name different members of one class ask different things.

`differing_classes` is the one rule (used by the rephrase audit and the variant gate);
`zh_contrasts` finds the members in Chinese text by longest match, with synonyms
(最大/最高, 圆/圆形, 左边/左侧) mapped to one member, and a negation (不/没有) present in one
text but not the other counted as a contrast of its own.
"""

from __future__ import annotations

import re

# Chinese word -> (class, member). Longest match first, so 最大 is not read as 大 and
# 多少 (how many) is not read as 多 (more); a None class marks a word that is skipped.
ZH_CLASSES: dict[str, tuple[str, str] | None] = {
    **dict.fromkeys("最大 最高 最多 最长".split(), ("extreme", "max")),
    **dict.fromkeys("最小 最低 最少 最短".split(), ("extreme", "min")),
    **{f"第{n}{w}": ("extreme", f"{n}{k}") for n in "二三四五" for w, k in
       (("大", "max"), ("高", "max"), ("多", "max"), ("小", "min"), ("低", "min"),
        ("少", "min"))},
    **dict.fromkeys("更大 更高 更多 大于 高于 多于 超过".split(), ("comparison", "more")),
    **dict.fromkeys("更小 更低 更少 小于 低于 少于".split(), ("comparison", "less")),
    **dict.fromkeys("左 左边 左侧 左面".split(), ("position", "left")),
    **dict.fromkeys("右 右边 右侧 右面".split(), ("position", "right")),
    **{f"{c}色": ("colour", c) for c in "红蓝绿黄紫橙黑白灰粉棕"},
    **dict.fromkeys("圆 圆形 圆圈".split(), ("shape", "circle")),
    "椭圆": ("shape", "ellipse"), "椭圆形": ("shape", "ellipse"),
    "正方形": ("shape", "square"), "方块": ("shape", "square"),
    **dict.fromkeys("长方形 矩形".split(), ("shape", "rectangle")),
    "三角形": ("shape", "triangle"),
    **dict.fromkeys("五角星 星星 星形".split(), ("shape", "star")),
    "菱形": ("shape", "diamond"),
    # Not members: 多少 (how many), 大小 (size), 不止 handled as a quantity, 是不是 / 有没有
    # (a yes/no question, not a negation).
    **dict.fromkeys("多少 大小 是不是 有没有 是否 一个不留 没有？ 没有?".split(), None),
    "不止": ("quantity", "more-than"),
}
ZH_NEGATION = re.compile(r"不|没有|没")
_LONGEST = sorted(ZH_CLASSES, key=len, reverse=True)
_ZH_WORD = re.compile("|".join(map(re.escape, _LONGEST)))


def differing_classes(mine: dict[str, set[str]], theirs: dict[str, set[str]]) -> list[str]:
    """The classes both texts name but with no member in common ("blue" vs "red")."""
    return sorted(name for name in mine.keys() & theirs.keys()
                  if not mine[name] & theirs[name])


def zh_members(text: str) -> tuple[dict[str, set[str]], bool, list[str]]:
    """Closed-class members named in a Chinese text, whether it is negated, and the colour
    and shape members in order of mention (the objects a relation compares).

    >>> zh_members("图表里哪一类的数值最高？")
    ({'extreme': {'max'}}, False, [])
    >>> zh_members("图中有没有黄色的正方形？")[1], zh_members("图中没有黄色的正方形吗？")[1]
    (False, True)
    """
    members: dict[str, set[str]] = {}
    objects: list[str] = []
    rest = []
    last = 0
    for match in _ZH_WORD.finditer(text):
        rest.append(text[last:match.start()])
        last = match.end()
        found = ZH_CLASSES[match.group(0)]
        if found is not None:
            members.setdefault(found[0], set()).add(found[1])
            if found[0] in ("colour", "shape"):
                objects.append(found[1])
    rest.append(text[last:])
    return members, ZH_NEGATION.search("|".join(rest)) is not None, objects


def _swapped(a: list[str], b: list[str]) -> bool:
    """Whether `b` names the same two objects as `a`, the other way round."""
    half = len(a) // 2
    return len(a) == len(b) and len(a) % 2 == 0 and a != b and b == a[half:] + a[:half]


def zh_contrasts(a: str, b: str) -> list[str]:
    """Classes in which two Chinese texts differ, plus "negation" when only one is negated.
    A relation stated the other way round about the swapped objects (A 在 B 左边 → B 在 A
    右边) keeps the meaning; the same relation about swapped objects is an "order" change.

    >>> zh_contrasts("图表中哪个类别的数值最大？", "图表中哪个类别的数值最小？")
    ['extreme']
    >>> zh_contrasts("图表中哪个类别的数值最大？", "图表里哪一类的数值最高？")
    []
    >>> zh_contrasts("红色的圆在蓝色的圆的左边吗？", "蓝色的圆在红色的圆的右边吗？")
    []
    >>> zh_contrasts("红色的圆在蓝色的圆的左边吗？", "蓝色的圆在红色的圆的左边吗？")
    ['order']
    """
    (mine, negated_a, objs_a), (theirs, negated_b, objs_b) = zh_members(a), zh_members(b)
    differ = differing_classes(mine, theirs)
    if "position" in mine and "position" in theirs and _swapped(objs_a, objs_b):
        if "position" in differ:
            differ.remove("position")
        else:
            differ.append("order")
    # A class one text names and the other drops entirely ("不止一个" added) also differs.
    differ += sorted(k for k in mine.keys() ^ theirs.keys() if k == "quantity")
    if negated_a != negated_b:
        differ.append("negation")
    return differ
