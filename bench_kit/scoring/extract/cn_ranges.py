"""Chinese bounds and ranges: a number that is one end of "三至四年" or "3年以下", or follows
"不超过", is no value (docs/METRICS.md#numbers; for `bench_kit.scoring.extract.prose_number`
and an answer clause's tail in `bench_kit.scoring.extract.clause_number`)."""

from __future__ import annotations

import re

from bench_kit.text.numbers import NumberToken

# "三至四年", "六个月至一年六个月", "3年以下", "三年以上十年以下": a Chinese range or bound
# (至 / 到 "to" before another number -- "3天到达" is "arrived in 3 days" --, 以上 "or more",
# 以下 / 以内 "or less", after a number and its unit).
_CN_RANGE_BEFORE = re.compile(r"[\d零〇一二两三四五六七八九十百千万×xX][年月个半日天周岁元]{0,3}"
                              r"[ \t]*(?:至|到|～)[ \t]*[\d零〇一二两三四五六七八九十百千万年月个半]{0,6}$")
# (one run of spaces before the unit or the bound word, one after the unit: "2" + spaces +
# "\\cdot" is one linear scan, not a split of the spaces between two runs)
_CN_BOUND_AFTER = re.compile(r"[ \t]*(?:(?:个月|年半?|月|日|天|周|岁|万?元|万)[ \t]*)?"
                             r"(?:以上|以下|以内|之内|(?:至|到|～)(?=[ \t]*[\d零〇一二两三四五六七八九十]))")
# "不超过三年", "最高10年", "至少5000元": a bound stated before a number (no more than, at
# most, at least, over, under).
_CN_BOUND_BEFORE = re.compile(r"(?:不超过|不少于|不低于|不高于|不足|不到|超过|低于|高于|少于|多于|至少"
                              r"|至多|最高|最低|最多|最少)[ \t]*(?:为|是)?[ \t]*$")


def cn_bound(text: str, token: NumberToken) -> bool:
    """Whether a number of `text` is a Chinese bound or one end of a range ("3年以下",
    "三至四年", "六个月至一年六个月", "不超过三年"), not a value."""
    return _CN_BOUND_AFTER.match(text, token.end) is not None \
        or _CN_BOUND_BEFORE.search(text, max(0, token.start - 6), token.start) is not None \
        or _CN_RANGE_BEFORE.search(text, max(0, token.start - 14), token.start) is not None
