"""Rewrite rules of the rule-based variant kinds, English and Chinese: synonym lexicons,
register (colloquial / formal) rewrites and reference-erasure (deixis) patterns.

Every rule is a (regex, replacement) pair applied outside quoted text, so quoted sign texts
and other verbatim strings survive. Vocabulary names (colours, shapes) are never replaced:
they carry the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from bench_kit.authoring.vocab import COLOURS, SHAPES, plural, zh
from bench_kit.text.cjk import has_cjk

Rule = tuple[re.Pattern[str], str]
_QUOTED = re.compile(r'("[^"]*"|“[^”]*”|「[^」]*」)')


def is_chinese(text: str) -> bool:
    """Whether the text outside quotes contains CJK ideographs (the Chinese rules apply)."""
    return has_cjk(_QUOTED.sub("", text))


def _rules(pairs: list[tuple[str, str]], flags: int = re.IGNORECASE) -> list[Rule]:
    return [(re.compile(pattern, flags), repl) for pattern, repl in pairs]


_ALT_COLOUR = "|".join(COLOURS)
_ALT_SHAPE = "|".join(SHAPES)
_ALT_SHAPES = "|".join(plural(s) for s in SHAPES)
_ALT_COLOUR_ZH = "|".join(zh(c) for c in COLOURS)
_ALT_SHAPE_ZH = "|".join(zh(s) for s in SHAPES)

SYNONYMS_EN: list[Rule] = _rules([
    # whole-clause rewrites first (a replaced span is not rewritten again)
    (r"^Is there (an? [^?]+?) in the image\?$", r"Does the picture contain \1?"),
    (r"^How many (.+?) are (?:there )?in the image\?$", r"How many \1 does the picture contain?"),
    (r"^Are there more (.+?) than (.+?) in the image\?$", r"Does the picture contain more \1 than \2?"),
    (r"^Which colour do the most shapes in the image have\?$",
     "Which colour is the most common among the shapes in the picture?"),
    (r"\bIn the image as shown\b", "Looking at the image"),
    (r"\bWhat (colour|color|shape) is (the [^?]+)\?", r"What is the \1 of \2?"),
    (r"^What is the title of the chart\?$", "What title does the graph have?"),
    (r"^What is the value of (the .+? bar) in the chart\?$", r"What value does \1 show in the graph?"),
    (r"^Which bar in the chart is the tallest\?$", "Which bar is the highest in the graph?"),
    (r"\bhas the smallest value\b", "shows the lowest value"),
    (r"^What does (the \w+ sign) say\?$", r"What is written on \1?"),
    (r"^Give the bounding box of\b", "Provide the enclosing box for"),
    (r"\bin image pixels\b", "in pixel coordinates"),
    (r"\bWhat colour\b", "Which colour"),
    (r"\bkinds of\b", "types of"),
    (r"\bdrawn in\b", "painted"),
    (r"\bin the image\b", "in the picture"),
    (r"\bin this picture\b", "in this image"),
    (r"\bout of the image\b", "out of the picture"),
    (r"\bCan you see\b", "Do you see"),
    (r"\bappears\b", "is shown"),
    (r"\bobjects\b", "items"),
    (r"\bobject\b", "item"),
    (r"\bthe chart\b", "the graph"),
    (r"\btallest\b", "highest"),
    (r"\bsmallest\b", "lowest"),
    (r"\blargest\b", "biggest"),
    (r"\bgreater than\b", "larger than"),
    (r"\bexceed\b", "surpass"),
    (r"\bwritten\b", "printed"),
    (r"\bword\b", "text"),
    (r"\bFrom the viewer's perspective\b", "As seen by the viewer"),
    (r"\bfurthest\b", "farthest"),
    (r"\bwere removed\b", "were taken away"),
    (r"\bwere taken out of\b", "were removed from"),
    (r"\bwould remain\b", "would be left"),
    (r"\bwould be left\b", "would remain"),
    (r"\bAmong\b", "Of"),
])

SYNONYMS_ZH: list[Rule] = _rules([
    ("图表中", "图表里"),
    ("图中", "图片里"),
    ("是什么颜色", "是哪种颜色"),
    ("几个", "多少个"),
    ("所有", "全部"),
    ("牌子上", "标牌上"),
    ("写的是什么字", "写着什么字"),
    ("哪个类别", "哪一类"),
    ("数值最大", "数值最高"),
    ("如果去掉", "假如拿掉"),
    ("还剩", "还剩下"),
    ("从观看者的角度看", "从观察者的视角来看"),
    ("左边", "左侧"),
], flags=0)

# Register: the demo's neutral questions become colloquial or formal (chosen per item).
COLLOQUIAL_EN: list[Rule] = _rules([
    (r"\bIn the image as shown\b", "Looking at the pic"),
    (r"\bin the image\b", "in the pic"),
    (r"\bin this picture\b", "in this pic"),
    (r"\bthe image\b", "the pic"),
    (r"\bWhat is\b", "What's"),
    (r"\bthere are\b", "there're"),
    (r"\bdoes not\b", "doesn't"),
])
FORMAL_EN: list[Rule] = _rules([
    (r"\bWhat's\b", "What is"),
    (r"\bCan you see\b", "Is it possible to see"),
    (r"\bare in the image\b", "are present in the image"),
])
COLLOQUIAL_ZH: list[Rule] = _rules([("图中", "图里"), ("图表中", "图表里"), ("是什么", "是啥")],
                                   flags=0)
FORMAL_ZH: list[Rule] = _rules([("几个", "多少个"), ("图中", "图像中"),
                                ("是什么颜色", "是何种颜色"), ("写的是什么字", "所写的是何字")],
                               flags=0)
# Openings per language; English questions and commands ("Give the bounding box ...") take
# different ones, so no "quick question:" stands before an instruction.
COLLOQUIAL_PREFIX = {"en": ("Hey, quick question: ", "Okay, so tell me: ", "Just wondering, ",
                            "So, real quick: "),
                     "en-command": ("Hey, can you ", "Okay, so could you ",
                                    "Real quick, could you "),
                     "zh": ("你帮我瞅瞅，", "问一下哈，", "快帮我看看，", "我想问问，")}
FORMAL_PREFIX = {"en": ("Please answer the following question: ",
                        "With reference to the image provided: ",
                        "Kindly answer, based on the image: "),
                 "en-command": ("With reference to the image provided, please ",
                                "Based on the image provided, kindly "),
                 "zh": ("请根据图像回答：", "请结合所给图像作答：", "请依据所给图像回答下列问题：")}

# Reference erasure: each rule replaces one explicit reference by a demonstrative and says
# what the demonstrative points at, so the deixis kind can mark it on the image
# (bench_kit.authoring.deixis): "object" (the one object the phrase names), "exemplar" (one
# object showing the colour / shape the phrase names), "sign", "bar", "text", "options" (the
# listed mc options: no mark) or "image" (the whole image: no mark).
_QUOTED_TEXT = re.compile(r'\bthe text "[^"]*"')


@dataclass(frozen=True)
class DeixisRule:
    """A reference-erasure rule and what its demonstrative points at."""

    pattern: re.Pattern[str]
    replacement: str
    referent: str


def _deixis(pairs: list[tuple[str, str, str]], flags: int = re.IGNORECASE) -> list[DeixisRule]:
    return [DeixisRule(re.compile(p, flags), r, k) for p, r, k in pairs]


DEIXIS_EN: list[DeixisRule] = _deixis([
    (rf"\bthe (?:(?:small|medium|large) )?(?:{_ALT_COLOUR}) (?:{_ALT_SHAPE}|object|shape)\b",
     "this object", "object"),
    (rf"\bthe (?:{_ALT_SHAPE})\b", "this object", "object"),
    (r"\bthe (?:\w+ )?sign\b", "this sign", "sign"),
    (r"\bthe [A-Z]\w* bar\b", "this bar", "bar"),
    (rf"\bHow many (?:{_ALT_COLOUR}) (?:{_ALT_SHAPES})\b",
     "How many objects of this colour and shape", "exemplar"),
    (rf"\bHow many (?:{_ALT_SHAPES})\b", "How many objects of this shape", "exemplar"),
    (rf"\bHow many (?:{_ALT_COLOUR}) shapes\b", "How many shapes of this colour", "exemplar"),
    (rf"\bthe (?:{_ALT_COLOUR}) shapes\b", "the shapes of this colour", "exemplar"),
    (rf"\bthe (?:{_ALT_SHAPES})\b", "the objects of this shape", "exemplar"),
    (rf"\bevery (?:{_ALT_SHAPE})\b", "every object of this shape", "exemplar"),
    (rf"\bdrawn in (?:{_ALT_COLOUR})\b", "drawn in this colour", "exemplar"),
    (r"\bwhich object\b", "which of these", "options"),
    (r"\b(?:in|on) (?:the|this) (?:image|picture|chart)\b", "here", "image"),
    (r"\bthe chart\b", "this graphic", "image"),
])
DEIXIS_ZH: list[DeixisRule] = _deixis([
    (rf"几个(?:{_ALT_COLOUR_ZH})的(?:{_ALT_SHAPE_ZH})", "几个这种颜色、这种形状的物体", "exemplar"),
    (rf"(?:{_ALT_COLOUR_ZH})的(?:{_ALT_SHAPE_ZH})", "这个物体", "object"),
    (rf"(?:{_ALT_COLOUR_ZH})的图形", "这种颜色的图形", "exemplar"),
    (rf"图中的(?:{_ALT_SHAPE_ZH})", "这个物体", "object"),
    ("牌子上", "这上面", "sign"),
    ("图表中", "这里", "image"),
    ("图中", "这里", "image"),
], flags=0)


@dataclass(frozen=True)
class DeixisRewrite:
    """One reference erased: the new question, the erased phrase and its referent kind."""

    question: str
    erased: str
    referent: str


def _match_case(matched: str, replacement: str) -> str:
    if matched[:1].islower() and replacement[:1].isupper() and not replacement.startswith("I "):
        return replacement[:1].lower() + replacement[1:]
    return replacement


def apply_rules(text: str, rules: list[Rule], first_only: bool = False) -> str:
    """Apply the rules outside quoted spans, each to the original words only (a replaced
    span is not rewritten again by a later rule); the first letter's case is kept. With
    `first_only`, stop after the first rule that matches (one replacement)."""
    done: list[str] = []

    def protect(pattern: re.Pattern[str], repl: str) -> Callable[[re.Match[str]], str]:
        def sub(match: re.Match[str]) -> str:
            done.append(_match_case(match.group(0), match.expand(repl)))
            return f"\ue000{len(done) - 1}\ue001"
        return sub

    parts = _QUOTED.split(text)
    for pattern, repl in rules:
        hits = 0
        for k in range(0, len(parts), 2):  # even parts lie outside quotes
            parts[k], n = pattern.subn(protect(pattern, repl), parts[k],
                                       count=1 if first_only else 0)
            hits += n
            if first_only and hits:
                break
        if first_only and hits:
            break
    joined = "".join(parts)
    return re.sub("\ue000(\\d+)\ue001", lambda m: done[int(m.group(1))], joined)


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    if first == "I" or (len(first) > 1 and first.isupper()):
        return text
    return text[:1].lower() + text[1:]


def synonym_rewrite(question: str) -> str:
    """The question with every lexicon synonym substituted (may equal the input)."""
    if is_chinese(question):
        return apply_rules(question, SYNONYMS_ZH)
    return _upper_first(apply_rules(question, SYNONYMS_EN))


def register_rewrite(question: str, style: str, pick: int) -> str:
    """Colloquial or formal rewrite; `pick` chooses the opening phrase (stable per item)."""
    lang = "zh" if is_chinese(question) else "en"
    rules = {("en", "colloquial"): COLLOQUIAL_EN, ("en", "formal"): FORMAL_EN,
             ("zh", "colloquial"): COLLOQUIAL_ZH, ("zh", "formal"): FORMAL_ZH}[(lang, style)]
    table = COLLOQUIAL_PREFIX if style == "colloquial" else FORMAL_PREFIX
    prefixes = table["en-command" if lang == "en" and not question.rstrip().endswith("?")
                     else lang]
    body = apply_rules(question, rules)
    prefix = prefixes[pick % len(prefixes)]
    if lang == "zh":
        if style == "colloquial" and body.endswith("？") and not body.endswith("吗？"):
            body = body[:-1] + "呢？"
        return prefix + body
    body = _lower_first(body) if prefix.endswith((": ", ", ", "so ", "please ", "kindly ",
                                                  "you ")) else body
    if prefix.endswith("you ") and body.endswith("."):
        body = body[:-1] + "?"   # "could you give the box ...?" asks
    return prefix + body


def register_rewrites(question: str) -> list[str]:
    """Every register rewrite the register kind can make of a question (both styles, every
    opening), for the answerability oracle."""
    return [register_rewrite(question, style, pick) for style in ("colloquial", "formal")
            for pick in range(max(len(v) for table in (COLLOQUIAL_PREFIX, FORMAL_PREFIX)
                                  for v in table.values()))]


def deixis_rewrites(question: str) -> list[DeixisRewrite]:
    """Every single-reference erasure of the question, one per matching rule, in rule order
    (the deixis kind uses the first whose referent can be shown)."""
    out: list[DeixisRewrite] = []
    if is_chinese(question):
        rules, fix = DEIXIS_ZH, (lambda text: text)
    else:
        rules, fix = DEIXIS_EN, _upper_first
        quoted = _QUOTED_TEXT.search(question)
        if quoted:
            out.append(DeixisRewrite(_QUOTED_TEXT.sub("this text", question, count=1),
                                     quoted.group(0), "text"))
    for rule in rules:
        parts = _QUOTED.split(question)
        for k in range(0, len(parts), 2):
            match = rule.pattern.search(parts[k])
            if match:
                parts[k] = (parts[k][:match.start()]
                            + _match_case(match.group(0), rule.replacement)
                            + parts[k][match.end():])
                out.append(DeixisRewrite(fix("".join(parts)), match.group(0), rule.referent))
                break
    return out


def deixis_rewrite(question: str) -> str:
    """The question with its first explicit reference replaced by a demonstrative ("this
    object" / "这个物体"); the input when nothing matches."""
    found = deixis_rewrites(question)
    return found[0].question if found else question


def condition_prefix(question: str, clause: str) -> str:
    """A hypothetical condition in front of a question: "If the red square were removed, …"
    (English clause) / "如果去掉红色的正方形，…" (Chinese clause)."""
    if is_chinese(question):
        return f"假设{clause}。{question}" if question.startswith("如果") else f"如果{clause}，{question}"
    if question.lower().startswith("if "):
        return f"Suppose {clause}. {question}"
    return f"If {clause}, {_lower_first(question)}"
