"""Build the report sets (``report5/``): real model responses from files used by none of the
tuning sets, ``report2``, ``report3`` or ``report4``.

Same rules and row fields as ``build_report2.py`` (whose drawing code this reuses): verbatim
responses of at most 6,000 characters, identical (response, options / golds) pairs kept once,
rows whose (question, response) is in a tuning set, ``report2``, ``report3`` or ``report4``
dropped, round robin over the runs of each repository, at most 10% bare answers per
repository, one seeded generator per family. See ``report5/README.md`` for repository, commit,
path and licence of each source.

    python benchmarks/intent_labels/build_report5.py --family mc --faithful-cot /tmp/Faithful-COT \\
        --out benchmarks/intent_labels/report5

Checkouts (or bare mirrors) are read at ``HEAD`` with ``git show``. Once the readers have
written their labels, ``--labels DIR`` / ``--check-labels DIR`` gather them into
``<family>_set_labels.jsonl`` / ``<family>_check_labels.jsonl`` (no parser runs):

    python benchmarks/intent_labels/build_report5.py --family mc --family yesno --family open \\
        --labels /work/wt/readers10 --check-labels /work/wt/readers11
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from build_report2 import OLD_SETS, SEED, _git, _jsonl, _kind, _usable, build, write_family
from build_sets import _write_jsonl

EARLIER = (OLD_SETS, OLD_SETS / "report2", OLD_SETS / "report3", OLD_SETS / "report4")

# Faithful-COT (veronica320/Faithful-COT) runs written in natural language: six OpenAI models
# (code-davinci-001/002, text-davinci-002/003, gpt-3.5-turbo, gpt-4) with three prompts each
# (few-shot chain of thought, least-to-most, standard answer-only). The Faithful-CoT runs
# (``NL+SL``, ``noNL`` …) answer with programs and are left out, as are the ``n:40`` samples.
FAITHFUL_MODELS = ["code001", "code002", "text002", "text003", "gpt-3.5-turbo", "gpt4"]
FAITHFUL_PROMPTS = ["COT", "LtM", "standard"]
# Datasets per family: AQuA (five lettered options), StrategyQA (yes/no questions), and the
# maths word problems with a number as answer (ASDiv and MultiArith, whose own repositories
# state no licence, are left out).
FAITHFUL_DATASETS = {"mc": ["AQUA"], "yesno": ["StrategyQA"], "open": ["GSM8K", "SVAMP"]}

# Rows per repository in each family, drawn in this order; ``None``: the rest of the family.
QUOTAS = {"mc": {"faithful-cot": None}, "yesno": {"faithful-cot": None},
          "open": {"faithful-cot": None}}

_AQUA_OPTION = re.compile(r"^([A-E])\)\s*(.*)$", re.S)


def _gold(answer: object) -> str | None:
    """The gold of a maths word problem: the text after GSM8K's / SVAMP's ``####``."""
    return answer.rsplit("####", 1)[-1].strip() if isinstance(answer, str) else None


def faithful_rows(repo: Path, family: str, datasets: list[str] | None = None) -> list[dict]:
    """Faithful-COT test predictions of every natural-language run on ``family``'s datasets
    (or ``datasets``), joined by id to the dataset's test file (question, options, gold)."""
    out = []
    for dataset in datasets or FAITHFUL_DATASETS[family]:
        items = {row["id"]: row for row in _jsonl(_git(repo, f"data/{dataset}/test.jsonl"))}
        for model in FAITHFUL_MODELS:
            for prompt in FAITHFUL_PROMPTS:
                run = f"{model}_{prompt}"
                path = f"output_dir/{dataset}/test/{run}/predictions.jsonl"
                for row in _jsonl(_git(repo, path)):
                    item = items.get(row["id"])
                    if item is None or not _usable(row.get("completion")):
                        continue
                    base = {"group": "faithful-cot", "source": f"faithful-cot:{run}/{dataset}",
                            "item": f"faithful-cot/{dataset}/{item['id']}",
                            "question": item["question"], "response": row["completion"]}
                    if family == "mc":
                        found = [_AQUA_OPTION.match(o) for o in item["options"]]
                        if all(found):
                            out.append({**base, "choices": {m.group(1): m.group(2).strip()
                                                            for m in found}})
                    elif family == "yesno":
                        out.append(base)
                    elif (gold := _gold(item["answer"])) is not None:
                        out.append({**base, "golds": [gold],
                                    "answer_type": _kind(gold.replace(",", "")), "unit": None,
                                    "precision": None})
    return out


def gather(family: str, args: argparse.Namespace) -> list[dict]:
    return faithful_rows(args.faithful_cot, family)


# --- readers' labels --------------------------------------------------------------------------

LABEL_VALUES = {"yesno": {"yes", "no", "none"}}


def merge_labels(out: Path, family: str, directory: Path, name: str) -> dict[str, str]:
    """Gather a reader's ``<family>_part*.labels.jsonl`` from ``directory`` into
    ``out/<family>_<name>.jsonl`` (``{"id", "label"}`` in set order) and return them.

    Raises ``ValueError`` naming the file and line of a label that is not one of the row's
    (a letter of its options or ``none``; ``yes`` / ``no`` / ``none``; a string), of an id
    not in the set or labelled twice.
    """
    rows = {r["id"]: r for r in _jsonl((out / f"{family}_set.jsonl").read_text(encoding="utf-8"))}
    got: dict[str, str] = {}
    for path in sorted(directory.glob(f"{family}_part*.labels.jsonl")):
        for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            entry = json.loads(line)
            row, label = rows.get(entry.get("id")), entry.get("label")
            allowed = LABEL_VALUES.get(family) or (
                set(row["choices"]) | {"none"} if row and family == "mc" else None)
            if row is None or entry["id"] in got or not isinstance(label, str) or (
                    allowed is not None and label not in allowed):
                raise ValueError(f"{path}:{line_no}: id {entry.get('id')!r} label {label!r}: "
                                 "unknown or repeated id, or a label the row cannot have")
            got[entry["id"]] = label
    _write_jsonl(out / f"{family}_{name}.jsonl",
                 [{"id": i, "label": got[i]} for i in rows if i in got])
    return got


def agreement(first: dict[str, str], second: dict[str, str]) -> tuple[int, list[str]]:
    """Rows both readers labelled with the same label, and the ids where they differ."""
    shared = [i for i in second if i in first]
    return sum(first[i] == second[i] for i in shared), [i for i in shared if first[i] != second[i]]


# --- output -----------------------------------------------------------------------------------

def merge_family_labels(args: argparse.Namespace, family: str) -> None:
    """Merge the readers' labels of ``family`` and print their counts and agreement."""
    second = merge_labels(args.out, family, args.labels, "set_labels") if args.labels else {}
    print(family, "second reader", len(second))
    if args.check_labels:
        third = merge_labels(args.out, family, args.check_labels, "check_labels")
        same, differ = agreement(second, third)
        print(family, "third reader", len(third), "same label", same, "differ", differ)

def add_label_options(parser: argparse.ArgumentParser) -> None:
    """``--readers`` (write the readers' parts), ``--labels`` / ``--check-labels`` (merge)."""
    parser.add_argument("--readers", type=Path, help="write the second reader's parts here")
    parser.add_argument("--labels", type=Path,
                        help="merge the second reader's labels from here (no rebuild)")
    parser.add_argument("--check-labels", type=Path,
                        help="merge the third reader's labels from here (no rebuild)")


def require_sources(parser: argparse.ArgumentParser, args: argparse.Namespace,
                    needed: dict[str, list[str]]) -> None:
    """The parser's one-line error when a family to build lacks a source option it needs
    (``needed``: family → option names, ``faithful_cot`` for ``--faithful-cot``)."""
    for family in args.family:
        for name in needed[family]:
            if getattr(args, name) is None:
                parser.error(f"--{name.replace('_', '-')} is needed to build {family}")


def merged_labels(parser: argparse.ArgumentParser, args: argparse.Namespace) -> bool:
    """Merge the readers' labels if ``--labels`` / ``--check-labels`` ask for it (a bad
    label is the parser's one-line error); ``False`` when the sets are to be built."""
    if not (args.labels or args.check_labels):
        return False
    for family in args.family:
        try:
            merge_family_labels(args, family)
        except ValueError as error:
            parser.error(str(error))
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(QUOTAS), action="append", required=True)
    parser.add_argument("--faithful-cot", type=Path, help="veronica320/Faithful-COT checkout")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "report5")
    add_label_options(parser)
    args = parser.parse_args()
    if merged_labels(parser, args):
        return
    if args.faithful_cot is None:
        parser.error("--faithful-cot is needed to build the sets")
    args.out.mkdir(parents=True, exist_ok=True)
    for family in args.family:
        rows = build(family, gather(family, args), QUOTAS, prefix="r5", old=EARLIER,
                     seed=f"{SEED}-report5-{family}")
        write_family(args.out, family, rows, args.readers)

if __name__ == "__main__":
    main()
