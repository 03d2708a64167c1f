"""Which part of a question is asked (`asked`): the words a restatement must hold, not the
context before the question, an order's "Determine if …", a wrapper ("Is it true that …"), a
trailing condition (", assuming …") or LaTeX commands; used by the restatement readers of
`bench_kit.scoring.extract.restatement` and `bench_kit.scoring.extract.yesno_negation`."""

from __future__ import annotations

import re

_QUESTION_END = re.compile(r"\?")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")  # notation, not words a restatement must hold
# A question asked as an order: the words after its last "Determine if / whether"
_DETERMINE = re.compile(r"(?:^|[.!]\s+)(?:determine|decide|check|verify|state)\s+(?:if|whether)\s+",
                        re.I)
_SENTENCE_BREAK = re.compile(r"[.!?](?=\s)")
# "Is it true that X?", "Do you think X?": X is what is asked ("Is it true that there is no cat?"
# -> "There is no cat." restates it: yes)
_ASKING_WRAPPER = re.compile(r"^\s*(?:is\s+it\s+(?:really\s+)?(?:true|the\s+case|a\s+fact)\s+that"
                             r"|do\s+you\s+(?:really\s+)?(?:think|believe)(?:\s+that)?"
                             r"|(?:can|could)\s+you\s+(?:tell|see|check)(?:\s+me)?\s+(?:if|whether))\s+", re.I)
_TRAILING_CONDITION = re.compile(r",\s*(?:assuming|if|even\s+if|given|provided|when|unless)\b"
                                 r"[^?]*", re.I)


def asked(question: str) -> str:
    """The words of `question` a restatement must hold: the last sentence ending in "?"
    ("I sleep badly. Is there music that helps?" -> "Is there music that helps?") without a
    trailing condition (", assuming …", ", even if …")."""
    ends = [m.end() for m in _QUESTION_END.finditer(question)]
    if ends:
        starts = [m.end() for m in _SENTENCE_BREAK.finditer(question, 0, ends[-1] - 1)]
        question = question[starts[-1] if starts else 0:ends[-1]]
    else:  # "…, where x[n] is the input. Determine if the system is stable."
        asking = None
        for asking in _DETERMINE.finditer(question):  # noqa: B007 - keeps the last
            pass
        question = question[asking.end():] if asking else question
    question = _TRAILING_CONDITION.sub("", _ASKING_WRAPPER.sub("", question, count=1))
    return _LATEX_COMMAND.sub(" ", question) if "\\" in question else question  # "$\\alpha = 0.01$"
