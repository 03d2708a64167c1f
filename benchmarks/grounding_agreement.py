"""Box parsing against a second reader's labels: the grounding intent set.

``intent_labels/grounding_set.jsonl`` holds 2,100 raw grounding responses (provenance in
``intent_labels/README.md``). A reader who did not write the parser wrote, for each, the one
box the response commits to as four numbers in the order and scale the response wrote them
(or null), and its form (``corners``, ``points``, ``center-size``, ``point``, ``none``).
bench_kit's ``extract_box_detailed`` and VLMEvalKit's GroundingME ``parse_bbox`` (run
unmodified from a checkout outside the project with ``--vlmevalkit``; its readings stored in
``grounding_reference.jsonl``) are compared with the labels.

A row agrees when the parser's box has the reader's numbers (corners put in order, x1 <= x2
and y1 <= y2, on both sides; a ``center-size`` label is turned into corners first), or when
both have no box. The numbers are compared as written: bench_kit reads with
``box_format="pixel"`` (no rescaling) because none of the sources records the image size.
"No box" for bench_kit is ``NO_BOX`` (an explicit rejection) or a failed parse, for
``parse_bbox`` its ``[0, 0, 0, 0]``. The figure is a report: bench_kit is not tuned on it.

    python benchmarks/intent_agreement.py --family grounding --vlmevalkit /tmp/VLMEvalKit \\
        --labels-from /work/wt/readers4 --show 20
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from hashlib import sha256
from pathlib import Path

from bench_kit.scoring.extract.boxes import NO_BOX, extract_box_detailed

HERE = Path(__file__).parent / "intent_labels"
# the frozen set, built by build_grounding.py (byte for byte) and not redistributed
SET_SHA256 = "af4ccd082a97653dcef2364c5c645eeb3c20473db2b07b75623272e7696c0b73"
FORMS = ("corners", "points", "center-size", "point", "none")
LABEL_KEYS = ("id", "box", "form", "point", "reason", "note")
SIZE = 10**6  # any positive size: with box_format="pixel" the numbers are not rescaled


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _corners(box: list[float] | tuple[float, ...] | None) -> tuple[float, ...] | None:
    if box is None:
        return None
    x1, y1, x2, y2 = (float(v) for v in box)
    return (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))


def label_box(label: dict) -> tuple[float, ...] | None:
    """The reader's box as ordered corners (``center-size`` converted), or None."""
    box = label.get("box")
    if box is None:
        return None
    if label.get("form") == "center-size":
        cx, cy, w, h = (float(v) for v in box)
        return _corners((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
    return _corners(box)


def same_box(a: tuple[float, ...] | None, b: tuple[float, ...] | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9) for x, y in zip(a, b))


def bench_kit_box(response: str) -> tuple[tuple[float, ...] | None, str]:
    """bench_kit's box (ordered corners, as written) and how it read: box / rejection / failed."""
    found = extract_box_detailed(response, SIZE, SIZE, box_format="pixel")
    if found.value is None:
        return None, "failed"
    if found.value == NO_BOX:
        return None, "rejection"
    return _corners(found.value), "box"


def reference_readings(rows: list[dict], vlmevalkit: Path) -> list[dict]:
    """VLMEvalKit GroundingME ``parse_bbox`` on every response, unmodified."""
    from reference_loader import load_vlmevalkit_groundingme

    grounding = load_vlmevalkit_groundingme(vlmevalkit)
    return [{"id": row["id"], "parse_bbox": grounding.parse_bbox(row["response"])}
            for row in rows]


def load_labels(path: Path, ids: set[str]) -> dict[str, dict]:
    """The reader's labels, every problem of the file listed at once."""
    if not path.exists():
        raise SystemExit(f"{path}: no labels yet (the second reader writes them)")
    labels, problems = {}, []
    for number, row in enumerate(_jsonl(path), 1):
        where = f"{path}:{number}"
        box, form = row.get("box"), row.get("form")
        if row.get("id") not in ids:
            problems.append(f"{where}: id {row.get('id')!r} is not in the set")
        elif row["id"] in labels:
            problems.append(f"{where}: id {row['id']} labelled twice")
        elif form not in FORMS:
            problems.append(f"{where}: form {form!r} is not one of {', '.join(FORMS)}")
        elif box is not None and not (isinstance(box, list) and len(box) == 4 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in box)):
            problems.append(f"{where}: box must be null or four numbers, got {box!r}")
        elif (box is None) != (form in ("point", "none")):
            problems.append(f"{where}: form {form!r} does not fit box {box!r}")
        else:
            labels[row["id"]] = row
    problems += [f"{path}: id {i} has no label" for i in sorted(ids - set(labels))]
    if problems:
        raise SystemExit("\n".join(problems[:50]))
    return labels


def gather_labels(folder: Path, rows: list[dict], out: Path) -> None:
    """The reader's ``grounding_part*.labels.jsonl`` in set order, into one file."""
    got = {r["id"]: r for part in sorted(folder.glob("grounding_part*.labels.jsonl"))
           for r in _jsonl(part) if "id" in r}
    out.write_text("".join(json.dumps({k: got[r["id"]][k] for k in LABEL_KEYS
                                       if k in got[r["id"]]}, ensure_ascii=False) + "\n"
                           for r in rows if r["id"] in got), encoding="utf-8")


def compare(rows: list[dict], labels: dict[str, dict], refs: dict[str, dict]) -> dict:
    """Agreement counts per parser, overall / per source / per reader form, and the misses."""
    counts: Counter = Counter()
    misses = []
    for row in rows:
        label = labels[row["id"]]
        want = label_box(label)
        mine, how = bench_kit_box(row["response"])
        readings = {"bench_kit extract_box": mine}
        if row["id"] in refs:
            parsed = refs[row["id"]]["parse_bbox"]
            readings["VLMEvalKit parse_bbox"] = None if all(v == 0 for v in parsed) \
                else _corners(parsed)
        for name, box in readings.items():
            ok = same_box(box, want)
            for key in ("all", f"source {row['source']}", f"form {label['form']}"):
                counts[(name, key, "n")] += 1
                counts[(name, key, "ok")] += ok
            if not ok and name.startswith("bench_kit"):
                misses.append((row, label, box, how))
        counts[("bench_kit reads", how)] += 1
    return {"counts": counts, "misses": misses}


def report(result: dict, show: int) -> None:
    counts = result["counts"]
    names = sorted({k[0] for k in counts if len(k) == 3}, key=lambda n: not n.startswith("bench"))
    keys = ["all"] + sorted({k[1] for k in counts if len(k) == 3 and k[1] != "all"})
    print(f"\n== grounding: {counts[('bench_kit extract_box', 'all', 'n')]} responses")
    print(f"{'':<38}" + "".join(f"{n:>26}" for n in names))
    for key in keys:
        cells = ((counts[(n, key, "ok")], counts[(n, key, "n")]) for n in names)
        print(f"{key:<38}" + "".join(f"{ok}/{n} ({ok / n:.1%})".rjust(26) for ok, n in cells))
    print("bench_kit readings: " + ", ".join(f"{how} {counts[('bench_kit reads', how)]}"
                                             for how in ("box", "rejection", "failed")))
    for row, label, box, how in result["misses"][:show]:
        print(f"  {row['id']} ({row['source']}): reader {label.get('box')} {label['form']}, "
              f"bench_kit {box} ({how}): {row['response'][:300]!r}")


def run(args: argparse.Namespace, folder: Path = HERE) -> None:
    """``intent_agreement.py --family grounding``."""
    set_path = folder / "grounding_set.jsonl"
    if not set_path.exists():
        raise SystemExit(f"{set_path} is not in the repository (its sources state no licence): "
                         "build it from the sources' checkouts with "
                         "benchmarks/intent_labels/build_grounding.py (README there)")
    rows = _jsonl(set_path)
    if sha256(set_path.read_bytes()).hexdigest() != SET_SHA256:
        print(f"warning: {set_path} differs from the frozen set (sha256 {SET_SHA256[:12]}…)")
    labels_path = folder / "grounding_set_labels.jsonl"
    if args.labels_from:
        gather_labels(args.labels_from, rows, labels_path)
    store = folder / "grounding_reference.jsonl"
    if args.vlmevalkit:
        refs = reference_readings(rows, args.vlmevalkit)
        tmp = store.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in refs), encoding="utf-8")
        tmp.replace(store)
        print(f"wrote {store}")
    if not labels_path.exists():
        print(f"grounding: no labels yet ({labels_path})")
        return
    labels = load_labels(labels_path, {r["id"] for r in rows})
    refs = {r["id"]: r for r in _jsonl(store)} if store.exists() else {}
    report(compare(rows, labels, refs), 0 if args.show is None else args.show)
