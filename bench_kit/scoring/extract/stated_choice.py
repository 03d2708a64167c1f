"""A letter a Chinese sentence states as the one asked for without an answer keyword: "可以与A
形成争议观点对的是：E", "我的观点是B。" — "the one that … is: E", "my view is B" — closing its
sentence (rule 2 of `bench_kit.scoring.extract.answers`, after the answer clauses;
docs/METRICS.md#extraction)."""

from __future__ import annotations

import re

# "…的是：E" / "…的是E。" / "我的观点是B" / "观点为B", the letter ending its sentence (read after
# `clean_response`: "：" as ":", "。" as ".", "、" as ","; not "AB的中点是E点", "…的是AB", nor
# "…的是A、C、D选项", several, nor "最接近的是C", the closest option offered: `no_option_statements`).
_STATED = re.compile(r"(?:(?<!接近)的是|观点(?:是|为))[ \t]*+:?[ \t]*+[(\[]?([A-J])[)\]]?[ \t]*+"
                     r"(?=[.;!?\n]|,(?![ \t]*+[(\[]?[A-J](?![A-Za-z]))|$)")


def stated_choice(text: str, options: dict[str, str]) -> str | None:
    """The option letter such sentences of `text` state, or None (also when they state
    different ones: "我的观点是：A … 我的观点是：B …", a loop through the options)."""
    if "是" not in text and "为" not in text:
        return None
    stated = {found.group(1) for found in _STATED.finditer(text)}
    return stated.pop() if len(stated) == 1 and next(iter(stated)) in options else None
