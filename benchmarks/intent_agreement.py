"""Multiple-choice extraction against intent labels written by a second reader.

The sample (``benchmarks/intent_labels/mc_sample.jsonl``: 300 responses drawn with seed
20261201, 30 per response shape, from ``tests/scoring/reference/vectors/mc.jsonl``) was
labelled by a reader who did not write the extractor and saw only the options and the
response (``mc_labels.jsonl``: the letter the response commits to, or ``none``). This
script compares bench_kit's ``extract_choice`` and VLMEvalKit's ``can_infer`` (its stored
output in the reference vectors) with those labels.

    python benchmarks/intent_agreement.py
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bench_kit.scoring.extract.answers import extract_choice

HERE = Path(__file__).parent / "intent_labels"
VECTORS = Path(__file__).parent.parent / "tests" / "scoring" / "reference" / "vectors" / "mc.jsonl"


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _letter(value: object) -> str:
    """A reference or bench_kit answer as a label: a letter, or ``none``."""
    return value if isinstance(value, str) and len(value) == 1 and value.isalpha() \
        and value.isupper() and value != "Z" else "none"


def main() -> None:
    sample = _jsonl(HERE / "mc_sample.jsonl")
    labels = {row["row"]: row["label"] for row in _jsonl(HERE / "mc_labels.jsonl")}
    vectors = _jsonl(VECTORS)
    ours, theirs, disagreements = Counter(), Counter(), []
    for row in sample:
        label = labels[row["row"]]
        mine = _letter(extract_choice(row["response"], row["choices"]))
        ref = _letter(vectors[row["row"]]["can_infer"])
        shape = vectors[row["row"]]["shape"]
        ours[(shape, mine == label)] += 1
        theirs[(shape, ref == label)] += 1
        if mine != label:
            disagreements.append((row["row"], row["response"], label, mine))
    n = len(sample)
    agree = sum(v for (_, ok), v in ours.items() if ok)
    ref_agree = sum(v for (_, ok), v in theirs.items() if ok)
    print(f"responses: {n}")
    print(f"bench_kit extract_choice agrees with the reader: {agree}/{n} ({agree / n:.1%})")
    print(f"VLMEvalKit can_infer agrees with the reader:    {ref_agree}/{n} ({ref_agree / n:.1%})")
    print("\nper shape (bench_kit / can_infer):")
    for shape in sorted({s for s, _ in ours}):
        total = ours[(shape, True)] + ours[(shape, False)]
        print(f"  {shape:<11} {ours[(shape, True)]:>3}/{total}  {theirs[(shape, True)]:>3}/{total}")
    for row, response, label, mine in disagreements:
        print(f"  row {row}: reader {label}, bench_kit {mine}: {response!r}")


if __name__ == "__main__":
    main()
