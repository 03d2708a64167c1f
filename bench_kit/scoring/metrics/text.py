"""Text metrics for open answers and labels: ROUGE-L, embedding similarity, macro-F1.

ROUGE-L and embedding similarity score one answer against its golds (the best gold
counts); macro-F1 is a corpus metric over (gold label, predicted label) pairs.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

from bench_kit.errors import InputError
from bench_kit.scoring.extract.response import normalize_text
from bench_kit.text.cjk import CJK_SCRIPT_CHARS

# CJK has no spaces: every Han / kana / hangul character is its own token.
_CJK = re.compile(f"([{CJK_SCRIPT_CHARS}])")


def rouge_tokens(text: str) -> list[str]:
    """Tokens ROUGE-L compares: `normalize_text` words, CJK split per character.

    >>> rouge_tokens("The red Cat, 猫咪!")
    ['red', 'cat', '猫', '咪']
    """
    return _CJK.sub(r" \1 ", normalize_text(str(text))).split()


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token lists."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    previous = [0] * (len(b) + 1)
    for token in a:
        current = [0]
        for j, other in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if token == other
                           else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge_l(pred: str, golds: Sequence[str], beta: float = 1.0) -> float:
    """ROUGE-L F-measure of `pred` against the best of `golds` (0-1).

    With LCS the longest common subsequence of tokens, R = LCS / len(gold),
    P = LCS / len(pred) and F = (1 + beta^2) P R / (R + beta^2 P); beta = 1 is the F1
    that the `rouge-score` package reports (COCO captioning uses 1.2).

    >>> rouge_l("the cat sat on the mat", ["a cat sat on a mat"])
    1.0
    >>> round(rouge_l("cat on mat", ["the cat sat on the mat"]), 4)
    0.8571
    """
    p = rouge_tokens(pred)
    best = 0.0
    for gold in golds:
        g = rouge_tokens(gold)
        lcs = lcs_length(p, g)
        if not lcs:
            continue
        precision, recall = lcs / len(p), lcs / len(g)
        f = (1 + beta ** 2) * precision * recall / (recall + beta ** 2 * precision)
        best = max(best, f)
    return best


def embedding_similarity(pred: str, golds: Sequence[str]) -> float:
    """Cosine similarity of sentence embeddings (bundled all-MiniLM-L6-v2): the best gold,
    clipped to 0-1. An empty prediction or gold list scores 0.

    The model is loaded on first use (a few seconds), then reused.
    """
    golds = [str(g) for g in golds if str(g).strip()]
    if not str(pred).strip() or not golds:
        return 0.0
    from bench_kit.embed import encode

    vectors = encode([str(pred), *golds])
    cosines = vectors[1:] @ vectors[0]
    return float(min(1.0, max(0.0, round(float(cosines.max()), 6))))


def macro_f1(golds: Sequence[str], preds: Sequence[str | None]) -> dict:
    """Macro-F1 over the classes of `golds`: the mean of per-class F1 (docs/METRICS.md#registered-metrics).

    Labels are compared after `normalize_text`. A prediction of None (parse failed) or of a
    label no gold has is wrong: it costs its gold class recall and adds to no class's
    precision, so an unparseable answer never helps.

    Returns:
        `{"macro_f1", "accuracy", "n", "per_class": {label: {precision, recall, f1,
        support}}}`, all 0-1 except counts; classes sorted.

    >>> macro_f1(["cat", "cat", "dog"], ["cat", "dog", "dog"])["macro_f1"]
    0.6666666666666666
    """
    if len(golds) != len(preds):
        raise InputError(f"macro_f1: {len(golds)} golds but {len(preds)} predictions")
    gold_labels = [normalize_text(str(g)) for g in golds]
    pred_labels = [None if p is None else normalize_text(str(p)) for p in preds]
    classes = sorted(set(gold_labels))
    support = Counter(gold_labels)
    predicted = Counter(p for p in pred_labels if p is not None)
    right = Counter(g for g, p in zip(gold_labels, pred_labels) if g == p)
    per_class: dict[str, dict] = {}
    for label in classes:
        tp = right[label]
        precision = tp / predicted[label] if predicted[label] else 0.0
        recall = tp / support[label]
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[label] = {"precision": precision, "recall": recall, "f1": f1,
                            "support": support[label]}
    n = len(gold_labels)
    return {"macro_f1": sum(c["f1"] for c in per_class.values()) / len(classes) if classes
            else None,
            "accuracy": sum(right.values()) / n if n else None, "n": n,
            "per_class": per_class}
