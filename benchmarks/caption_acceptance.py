"""Acceptance rate of the caption rules' questions on real caption files.

Usage:
    python benchmarks/caption_acceptance.py COCO_CAPTIONS.json FLICKR8K_TOKEN.txt

Prints, per file: captions, questions generated, questions kept (well formed), the share
kept, captions with at least one kept question, and the most common rejection reasons.
The numbers in docs/AUTHORING.md and docs/IMPORT_EXPORT.md come from this script run on
COCO-MINI's captions_val2017.json (79 images, 395 captions) and the full Flickr8k token file
(8,092 images, 40,460 captions); see tests/exchange/fixtures/real/*/README.md for sources.
"""

from __future__ import annotations

import collections
import json
import re
import sys

from bench_kit.authoring.captions import caption_candidates


def _captions(path: str) -> list[str]:
    if path.endswith(".json"):
        return [a["caption"] for a in json.load(open(path, encoding="utf-8"))["annotations"]]
    return [line.split("\t", 1)[1] for line in open(path, encoding="utf-8") if "\t" in line]


def main(paths: list[str]) -> None:
    for path in paths:
        captions = _captions(path)
        generated = kept = with_question = 0
        reasons: collections.Counter[str] = collections.Counter()
        for caption in captions:
            questions = caption_candidates(caption)
            good = [q for q in questions if q.problem is None]
            generated += len(questions)
            kept += len(good)
            with_question += bool(good)
            for q in questions:
                if q.problem:
                    reasons[re.sub(r"'[^']*'", "'…'", q.problem)] += 1
        share = kept / generated if generated else 0.0
        print(f"{path}: {len(captions)} captions, {generated} questions generated, {kept} kept "
              f"({share:.1%}), {with_question} captions with a kept question")
        for reason, n in reasons.most_common(5):
            print(f"    {n:6d}  {reason}")


if __name__ == "__main__":
    main(sys.argv[1:])
