"""Lexical patterns of the ambiguity checks, English and Chinese (docs/AUDIT_METHODS.md).

Every pattern aims at precision over recall: a flag goes to a reviewer, so a rule that
fires on clean questions costs more than one that misses a rare phrasing. Each pattern's
comment names what it catches and what it deliberately leaves alone.
"""

from __future__ import annotations

import re

from bench_kit.text.cjk import CJK_CHARS

_PUNCT_ZH = r"\s，,。？?！!、：:；;"

# "this one", "that thing", "those ones", "the other one", a bare "this?", "over there".
# "this image", "this chart" are resolved references, "this object" names the pictured
# object ("Which material is this object made of?"), "that one third" is a fraction, and
# "these objects" in "which of these objects" points at the listed options: none is matched.
VAGUE_DEIXIS_EN = re.compile(r"""
    \b(?:this|that)\s+(?:one|thing|stuff)\b(?!\s+(?:third|half|quarter|fourth|fifth|tenth|hundredth|of\b))
  | \b(?:these|those)\s+ones\b
  | \bthe\s+other\s+ones?\b
  | \b(?:this|that)(?=\s*[?？!]|\s*$)
  | \bover\s+there\b
""", re.IGNORECASE | re.VERBOSE)

# 这个/那个/这些/那些 not followed by a noun (end, punctuation, 是/有/在/的/呢/吗), a vague
# noun (这个东西, 那个物体), 这是什么, and 旁边 with nothing before it that it could be beside.
# 这个圆形 / 那张图片 / 圆形旁边 are resolved and are not matched.
VAGUE_DEIXIS_ZH = re.compile(
    rf"(?:这|那)(?:个|些|件|样)?(?:东西|物体|物品|玩意儿?)"
    rf"|(?:这|那)(?:个|些)(?=$|[{_PUNCT_ZH}]|是|有|在|的|呢|吗)"
    rf"|(?:这|那)是什么"
    rf"|(?:^|(?<=[{_PUNCT_ZH}])|(?<=在))旁边")

# Two asks joined by "and/also/then" + a question word: "What colour is it and how many ...";
# a second yes/no ask ("..., and is the door open?"); a second imperative ("... and count
# the ..."). "Is it red or blue?" and "red and blue circles" are one ask: not matched.
COMPOUND_EN = re.compile(r"""
    \b(?:and|also|then)\s+
    (?:what|how\s+many|how\s+much|which|where|who|whose|why|when|how)\b
  | ,\s*(?:and|also|then)\s+(?:is|are|does|do|did|was|were|can|has|have)\s+
    (?:the|it|there|they|this|that|he|she)\b
  | \b(?:and|then|also)\s+(?:count|name|describe|identify|list|explain|give|tell|state)
    \s+(?:the|how|what|which|its|their|me)\b
""", re.IGNORECASE | re.VERBOSE)

_ASK_ZH = r"(?:什么|几(?!乎|何)|多少|哪|谁|怎么|为什么)"
# 和…分别 ("A and B respectively"); 还是 followed by a second question word, or 吗…还是
# (a yes/no ask then an alternative); two clauses that each hold a question word.
# A plain alternative question "是红色还是蓝色？" is one ask (like "red or blue?") and is
# not matched.
COMPOUND_ZH = re.compile(
    rf"(?:和|与|跟|及)[^{_PUNCT_ZH}]{{1,30}}?分别"
    rf"|还是[^{_PUNCT_ZH}]*?{_ASK_ZH}"
    rf"|吗[，,、]?\s*还是"
    rf"|{_ASK_ZH}[^{_PUNCT_ZH}]*[，,；;]\s*[^{_PUNCT_ZH}]*?{_ASK_ZH}"
    rf"|(?:并且|同时|另外|以及)[^{_PUNCT_ZH}]*?{_ASK_ZH}")

# A pronoun with no antecedent: "What colour is it?", "Where are they?", "它是什么颜色？".
# The words before the pronoun must all be question/function words or attribute nouns
# ("colour", "shape"), so "What is the dog holding in its mouth?" is not matched.
# A dummy "it" (weather, time, "is it possible/true that") is not a reference: not matched.
PRONOUN_EN = re.compile(r"""
    \b(?:it(?!\s+(?:is\s+|be\s+)?(?:raining|snowing|sunny|cloudy|windy|foggy|day|night|daytime
    |nighttime|morning|afternoon|evening|dark|light|winter|summer|spring|autumn|fall
    |possible|likely|true|false|safe|legal|necessary|easy|hard|cold|hot|warm)\b)
    |its|they|them|their|he|she|him|her)\b""", re.IGNORECASE | re.VERBOSE)
NON_ANTECEDENT_WORDS = frozenset("""
what which where who whose why when how many much is are was were does do did can could
would should will has have had the a an of in on at to for from by with about kind type
colour color shape size material brand name number made used doing called look looks
tell me please describe identify count say says written write""".split())
PRONOUN_ZH = re.compile(r"^(?:请问)?(?:它们?|他们?|她们?)")

QUESTION_MARKS = re.compile(r"[?？]")
SENTENCE_END = re.compile(r"[.!?。！？]")
POSSESSIVES_EN = frozenset({"its", "their", "his", "her"})
# A name: a capitalised word inside a sentence ("Brown", "Harris"), not the pronoun "I".
PROPER_NAME = re.compile(r"(?<=\s)(?!I\b)[A-Z][a-z]+")
# Quoted text — a sentence, title or passage the question asks about — is not the question's
# own wording: "..." “...” 「...」 『...』 《...》, and the lines after a first line that ends
# the ask ("Which tense does the sentence use?\nMona will print her name with care.").
# Single quotes are left alone: they are apostrophes far more often.
QUOTED = re.compile(r'"[^"\n]{1,400}"|“[^”]{1,400}”|「[^」]{1,400}」|『[^』]{1,400}』|《[^》]{1,200}》')
ASK_LINE_END = ("?", "？", ":", "：")
# The next ask after a question mark: non-blank text up to and including the next mark.
NEXT_ASK = re.compile(r"[^?？\s][^?？]*[?？]")

# Spatial left/right: "to the left", "leftmost", "left of", "top right", "left-hand".
# "How many are left?", "the right answer" and a bare "right of" ("the right of the people
# to …", a legal right) are not spatial and are not matched; a spatial one is "to the right
# of", matched by the first line.
SIDE_EN = re.compile(r"""
    \b(?:to|on|at|in|from|toward|towards)\s+the\s+(?:far\s+)?(?:left|right)\b
  | \b(?:left|right)(?:most|-most|-hand|\s+hand)\b
  | \bleft\s+of\b
  | \b(?:left|right)\s+(?:side|corner|edge|half|part|end)\b
  | \b(?:top|bottom|upper|lower|middle|center|centre)[\s-](?:left|right)\b
""", re.IGNORECASE | re.VERBOSE)

# 左边/右侧/左上角/最右/靠左/从左 …; 左右 ("about", "both sides") is not matched.
SIDE_ZH = re.compile(
    r"(?<!左)[左右](?:边|侧|方|面|手|上角|下角|上方|下方|半部?)"
    r"|(?:最|靠|向|往|从)[左右](?!右)")

# A stated frame of reference: the viewer/camera, the image frame, or an object's own side.
VIEWPOINT_EN = re.compile(r"""
    \b(?:viewer|observer|camera|perspective|point\s+of\s+view)
  | \bas\s+(?:seen|shown|viewed|pictured)\b
  | \b(?:in|on|of|within)\s+the\s+(?:image|picture|photo|photograph|figure|chart|screen|frame|scene)\b
  | \b(?:his|her|their|its|[a-z]+['’]s)\s+(?:own\s+)?(?:left|right)\b
  | \b(?:bars?|graphs?|charts?|axis|axes|columns?|legend|table|plots?|diagram|segments?)\b
""", re.IGNORECASE | re.VERBOSE)

VIEWPOINT_ZH = re.compile(
    r"观看者|观察者|观众|看图者|读者|镜头|相机|拍摄者|视角|角度"
    r"|图中|图片中|图像中|画面|图上|照片中|图表|柱|坐标轴|表格"
    r"|(?:他|她|它|他们|她们|它们|自己)的[左右]")

_ATTR_EN = (r"(?:red|orange|yellow|green|blue|purple|violet|pink|brown|black|white|gr[ae]y|cyan"
            r"|magenta|golden|gold|silver|big|small|large|tiny|huge|little|tall|short"
            r"|medium(?:-sized)?|metal|metallic|wooden|plastic|rubber|glass|shiny|matte"
            r"|striped|dotted|spotted)")
# Two attribute filters in one count ("how many small red balls", "how many red or large
# objects", "how many balls are red and shiny"): counting and two attributes at once.
MULTI_ATTRIBUTE_COUNT_TWO_EN = re.compile(
    rf"\bhow\s+many\s+(?:[a-z-]+\s+){{0,2}}?{_ATTR_EN}(?:\s*,?\s*(?:or|and)?\s+){_ATTR_EN}\b"
    rf"|\bhow\s+many\s+[a-z-]+\s+(?:are|is)\s+(?:not\s+)?{_ATTR_EN}\s+(?:or|and)\s+"
    rf"(?:not\s+)?{_ATTR_EN}\b",
    re.IGNORECASE)

# Count + attribute + object: "how many red balls", "how many balls are red".
MULTI_ATTRIBUTE_COUNT_EN = re.compile(
    rf"\bhow\s+many\s+(?:[a-z-]+\s+){{0,2}}?{_ATTR_EN}\s+[a-z-]+"
    rf"|\bhow\s+many\s+[a-z-]+\s+(?:are|is)\s+(?:not\s+)?{_ATTR_EN}\b",
    re.IGNORECASE)

_ATTR_ZH = r"(?:[红橙黄绿蓝紫粉棕黑白灰金银]色|中等大小|大|小)"
# 有几个红色的圆形 / 多少个小圆 / 红色的圆形有几个.
MULTI_ATTRIBUTE_COUNT_ZH = re.compile(
    rf"(?:几(?!乎|何)|多少)(?:个|只|张|辆|块|条|根|件|本|位|名|颗|枚)?{_ATTR_ZH}的?[{CJK_CHARS}]"
    rf"|{_ATTR_ZH}的?[{CJK_CHARS}]{{1,4}}?有(?:几(?!乎|何)|多少)")

# Two attributes in one Chinese count: 几个红色的大圆 / 多少个红色或大的 / 红色或大的…有几个.
MULTI_ATTRIBUTE_COUNT_TWO_ZH = re.compile(
    rf"(?:几(?!乎|何)|多少)(?:个|只|张|辆|块|条|根|件|本|位|名|颗|枚)?{_ATTR_ZH}的?(?:或|和|或者|且)?"
    rf"{_ATTR_ZH}"
    rf"|{_ATTR_ZH}的?(?:或|和|或者|且){_ATTR_ZH}的?[{CJK_CHARS}]{{0,4}}?有(?:几(?!乎|何)|多少)")

# English-like words (with inner apostrophes, hyphens and decimals).
WORD = re.compile(r"[A-Za-z0-9]+(?:['’.\-][A-Za-z0-9]+)*")

# Dirty text, in reporting order: kind -> pattern.
DIRTY: dict[str, re.Pattern[str]] = {
    "html_escape": re.compile(r"&(?:[A-Za-z]{2,8}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});"),
    # a closing tag, <br>, or a tag with attributes; a bare "<p>" is also notation (the
    # cyclic subgroup <p>) and is left alone
    "html_tag": re.compile(r"</(?:br|p|b|i|u|em|strong|span|div|sup|sub)>|<br\s*/?>"
                           r"|<(?:p|b|i|u|em|strong|span|div|sup|sub|img)\s+[a-z-]+=[^>]*>",
                           re.IGNORECASE),
    # C0/C1 controls except the newline; tabs and carriage returns count as dirty.
    "control_char": re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]"),
    "invisible_char": re.compile(r"[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]"),
    "replacement_char": re.compile("\ufffd"),
    "doubled_space": re.compile(r"(?<=\S) {2,}(?=\S)"),
    "edge_space": re.compile(r"^\s+|\s+$"),
    # a word dropped by a template fill: "The 's mouth is …", "the shape of the ." — an
    # article right before a possessive or a punctuation mark
    "dropped_word": re.compile(r"\b(?:the|a|an)\s+['’]s\b|\bthe\s+[,.;:?!]", re.IGNORECASE),
}

YES_WORDS = frozenset({"yes", "true", "是", "是的", "对", "有"})
NO_WORDS = frozenset({"no", "false", "否", "不", "不是", "不对", "没有"})


# Text that points at a picture: "the thermometer shown", "in the picture", "this image",
# "look at the map", "the diagram below", 图中, 如图, 下图, 这张图. "figure of speech" and
# "shown by the fact that" inside a quoted passage are not pictures (quotes are skipped).
PICTURE_EN = re.compile(r"""
    \bshown\b(?!\s+(?:that|by\s+the\s+fact))
  | \b(?:in|on|at|from)\s+the\s+(?:picture|image|photo|photograph|figure(?!\s+of\s+speech)
      |diagram|graph|chart|map|illustration|drawing)s?\b
  | \b(?:this|these|the\s+following)\s+(?:picture|image|photo|photograph|diagram|graph|chart
      |illustration|drawing)s?\b
  | \b(?:picture|image|photo|figure|diagram|graph|chart|map|model)\s+(?:below|above)\b
  | \blook\s+at\s+the\s+(?:picture|image|photo|figure|diagram|graph|chart|map|model)\b
""", re.IGNORECASE | re.VERBOSE)
PICTURE_ZH = re.compile(r"图中|如图|下图|上图|图片中|图像中|图上|这张图|这幅图|照片中|画面中")

# Closed classes of short answers: two different members in one open item's golds are a
# contradiction (a colour question answered "black" and "green"). Synonyms map to one.
ANSWER_CLASSES: dict[str, dict[str, str]] = {
    # a shade word is one member with its hue ("purple"/"violet", "blue"/"navy" are the
    # same answer, as the kit's own generator accepts them)
    "colour": {**{c: c for c in ("red", "orange", "yellow", "green", "blue", "purple", "pink",
                                 "brown", "black", "white", "gray", "cyan",
                                 "gold", "silver", "beige", "tan")},
               "violet": "purple", "navy": "blue", "maroon": "red", "grey": "gray", "红色": "red", "黄色": "yellow", "绿色": "green",
               "蓝色": "blue", "黑色": "black", "白色": "white", "灰色": "gray",
               "紫色": "purple", "橙色": "orange", "粉色": "pink", "棕色": "brown"},
    "shape": {**{s: s for s in ("circle", "square", "triangle", "rectangle", "oval", "star",
                                "hexagon", "pentagon", "diamond", "heart", "cube", "sphere",
                                "cylinder", "cone", "pyramid")},
              "rhombus": "diamond", "oblong": "rectangle"},
    "direction": {**{d: d for d in ("left", "right", "up", "down", "north", "south", "east",
                                    "west", "top", "bottom", "above", "below", "front",
                                    "behind")},
                  "左": "left", "右": "right", "上": "up", "下": "down"},
}
