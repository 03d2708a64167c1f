"""`bench-kit author from-captions`: questions from caption text by rules
(docs/AUTHORING.md#3-questions-from-captions).

A caption states facts; each rule turns one statement into a question whose gold is taken
from the statement: `count` ("Three red apples lie on the table." -> "How many red apples
lie on the table?" / 3), `attribute` ("A red car ..." -> "What colour is the car?" / red),
`relation` ("A cat is sleeping on the sofa." -> "What is sleeping on the sofa?" / cat) and
`object` ("A photo of a dog." -> "What is shown in the image?" / dog); English and Chinese.
Items are marked `source: rewrite:<rule>`.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.authoring import caption_checks as checks
from bench_kit.authoring.caption_sources import (
    CAPTION_KEYS,
    IMAGE_KEYS,
    CaptionProblem,
    CaptionRow,
    ImagePlacer,
    read_caption_rows,
    safe_key,
)
from bench_kit.authoring.lexicon import is_chinese
from bench_kit.errors import ConfigError, InputError, Problem
from bench_kit.io import write_bytes, write_jsonl
from bench_kit.text.cjk import CJK_CHARS
from bench_kit.types import LAYERS, Item

RULES = ("count", "attribute", "relation", "object")


class CaptionParams(BaseModel):
    """The `captions:` section of params.yaml."""

    model_config = ConfigDict(extra="forbid")

    rules: list[str] = Field(default_factory=lambda: list(RULES))
    capabilities: dict[str, str] = Field(default_factory=lambda: {
        "count": "perception.count", "attribute": "perception.colour",
        "relation": "understanding.spatial", "object": "perception.shape"})
    difficulty: dict[str, str] = Field(default_factory=lambda: {
        "count": "medium", "attribute": "easy", "relation": "medium", "object": "easy"})
    created_at: datetime | None = None   # null = the moment the items are created


@dataclass(frozen=True)
class Question:
    """One rule's output for one statement."""

    rule: str
    question: str
    task: str
    answers: list[str]
    problem: str | None = None   # why the question is malformed (then it is never emitted)


_EN_NUMBERS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine "
                                           "ten eleven twelve".split())}
_EN_COLOURS = ("red green blue yellow orange purple black white brown pink grey gray silver "
               "gold").split()
_ZH_COLOURS = "红绿蓝黄橙紫黑白棕粉灰"
_ZH_CLASSIFIERS = "个只辆本张条朵棵位块把台艘头"
_REL_EN = ("on top of|in front of|to the left of|to the right of|next to|beside|behind|under|"
           "above|below|inside|on|in")

_EN_COUNT = re.compile(rf"^(?:there (?:are|is) )?(?P<num>\d+|{'|'.join(_EN_NUMBERS)}) "
                       r"(?P<noun>(?:[a-z]+ ){0,2}[a-z]+s)\b(?P<rest>.*)$")
_EN_ATTR = re.compile(rf"\b(?:a|an|the) (?P<colour>{'|'.join(_EN_COLOURS)}) (?P<noun>[a-z]+)\b")
_EN_ATTR_PRED = re.compile(rf"^(?:a|an|the) (?P<noun>[a-z]+) (?:is|looks) "
                           rf"(?P<colour>{'|'.join(_EN_COLOURS)})\b")
_EN_REL = re.compile(r"^(?:a|an|the) (?P<subj>(?:[a-z]+ )?[a-z]+?) "
                     r"(?P<verb>is(?: [a-z]+ing)?|sits|stands|lies|rests|hangs) "
                     rf"(?P<rel>{_REL_EN}) (?P<obj>(?:a|an|the) [a-z]+(?: [a-z]+)?)$")
_EN_OBJECT = re.compile(r"^(?:a |an )?(?:photo|picture|image|photograph|close-up|drawing) of "
                        r"(?:a |an |the )?(?P<obj>[a-z]+(?: [a-z]+)?)$")
_ZH_COUNT = re.compile(rf"^(?P<loc>[^，。]*?)有(?P<num>\d+|[两二三四五六七八九十]+)"
                       rf"(?P<cls>[{_ZH_CLASSIFIERS}])(?P<noun>[{CJK_CHARS}]{{1,8}})$")
_ZH_ATTR_PRED = re.compile(rf"^(?:这|那)?(?:[{_ZH_CLASSIFIERS}])?(?P<noun>[{CJK_CHARS}]{{1,6}}?)"
                           rf"是(?P<colour>[{_ZH_COLOURS}])色的?$")
_ZH_ATTR = re.compile(rf"(?P<colour>[{_ZH_COLOURS}])色的(?P<noun>[{CJK_CHARS}]{{1,4}}?)"
                      rf"(?=[在正停放躺坐站挂，。]|$)")
_ZH_REL = re.compile(rf"^(?:一[{_ZH_CLASSIFIERS}])?(?P<subj>[{CJK_CHARS}]{{1,6}}?)在"
                     rf"(?P<obj>[{CJK_CHARS}]{{1,8}}?)(?P<rel>上面|下面|旁边|左边|右边|里面|前面|后面|上|下|里)"
                     rf"(?P<tail>[{CJK_CHARS}]*)$")
_ZH_OBJECT = re.compile(rf"^(?:这是)?一(?:张|幅)(?P<obj>[{CJK_CHARS}]{{1,8}}?)的(?:照片|图片|图画)$")


def _en_rules(sentence: str) -> Iterator[Question]:
    s = re.sub(r"\s+([,.;!?])", r"\1", " ".join(sentence.split())).rstrip(".!,;").strip()
    low = s[:1].lower() + s[1:]
    m = _EN_COUNT.match(low)
    if m:
        n = int(m["num"]) if m["num"].isdigit() else _EN_NUMBERS[m["num"]]
        rest = m["rest"].rstrip(" ,;")
        if n >= 2:
            first = rest.split()[0] if rest.split() else ""
            inserted = first not in checks.FINITE_PLURAL_VERBS
            tail = f" are there{rest}" if inserted else rest
            question = f"How many {m['noun']}{tail}?"
            problem = checks.count_problem(m["noun"], rest, inserted) or \
                checks.question_problem(question)
            yield Question("count", question, "numeric", [str(n)], problem)
    m = _EN_ATTR_PRED.match(low) or _EN_ATTR.search(low)
    if m:
        colour = "grey" if m["colour"] == "gray" else m["colour"]
        answers = [colour] + (["gray"] if colour == "grey" else [])
        question = f"What colour is the {m['noun']}?"
        problem = None if m.re is _EN_ATTR_PRED else checks.attribute_problem(m["noun"], low)
        yield Question("attribute", question, "open", answers,
                       problem or checks.question_problem(question))
    m = _EN_REL.match(low)
    if m:
        obj = re.sub(r"^(?:a|an) ", "the ", m["obj"])
        answers = list(dict.fromkeys([m["subj"], m["subj"].split()[-1]]))
        question = f"What {m['verb']} {m['rel']} {obj}?"
        yield Question("relation", question, "open", answers,
                       checks.answer_problem(answers) or checks.question_problem(question))
    m = _EN_OBJECT.match(low)
    if m:
        answers = list(dict.fromkeys([m["obj"], m["obj"].split()[-1]]))
        yield Question("object", "What is shown in the image?", "open", answers,
                       checks.answer_problem(answers))


def _zh_number(text: str) -> int:
    from bench_kit.text.numbers import chinese_to_number

    return int(text) if text.isdigit() else chinese_to_number(text)


def _zh_rules(sentence: str) -> Iterator[Question]:
    s = sentence.strip().rstrip("。！")
    m = _ZH_COUNT.match(s)
    if m and _zh_number(m["num"]) >= 2:
        yield Question("count", f"{m['loc']}有几{m['cls']}{m['noun']}？", "numeric",
                       [str(_zh_number(m["num"]))])
    m = _ZH_ATTR_PRED.match(s) or _ZH_ATTR.search(s)
    if m:
        yield Question("attribute", f"{m['noun']}是什么颜色的？", "open", [f"{m['colour']}色"])
    m = _ZH_REL.match(s)
    if m:
        yield Question("relation", f"什么在{m['obj']}{m['rel']}{m['tail']}？", "open",
                       [m["subj"]])
    m = _ZH_OBJECT.match(s)
    if m:
        yield Question("object", "图中是什么？", "open", [m["obj"]])


def caption_questions(caption: str, rules: list[str] | tuple[str, ...] = RULES) -> list[Question]:
    """Every well-formed question the rules make from a caption, deduplicated.

    >>> [(q.question, q.answers) for q in caption_questions("Two dogs sit on a bench.")]
    [('How many dogs sit on a bench?', ['2'])]
    """
    return [q for q in caption_candidates(caption, rules) if q.problem is None]


def caption_candidates(caption: str,
                       rules: list[str] | tuple[str, ...] = RULES) -> list[Question]:
    """Every question the rules make from a caption (one pass per sentence), deduplicated,
    each with `problem` set when it is malformed."""
    splitter = r"[。！；;]" if is_chinese(caption) else r"(?<=[.!?;])\s+"
    apply: Callable[[str], Iterator[Question]] = _zh_rules if is_chinese(caption) else _en_rules
    found: dict[str, Question] = {}
    for sentence in re.split(splitter, caption):
        if sentence.strip():
            for q in apply(sentence):
                if q.rule in rules:
                    found.setdefault(q.question, q)
    return list(found.values())


@dataclass
class CaptionSummary:
    """What `run_from_captions` wrote: items per rule, captions that gave none, rejects."""

    out_path: Path
    per_rule: dict[str, int] = field(default_factory=dict)
    n_captions: int = 0
    unused: int = 0
    generated: int = 0
    rejected_questions: int = 0
    rejected_rows: int = 0
    rejects_path: Path | None = None

    @property
    def total(self) -> int:
        """Items written."""
        return sum(self.per_rule.values())


@dataclass
class CaptionReject:
    """A caption row that could not be read, or a generated question that was malformed."""

    where: str
    field: str
    reason: str
    row: dict[str, Any]

    def problem(self) -> Problem:
        """This reject as a table problem (`where` is `FILE:LINE`)."""
        return Problem(None, None, self.field, self.reason, self.where)

    def message(self) -> str:
        """`WHERE: field=FIELD: reason` (one line)."""
        return self.problem().format(unknown_id=None)


def read_captions(path: str | Path, out_dir: str | Path, image_root: str | Path | None = None
                  ) -> tuple[list[CaptionRow], list[CaptionReject], ImagePlacer]:
    """Captioned images from COCO captions JSON, a Flickr8k token file, JSONL or CSV
    (columns image + caption, optional id), or a Hugging Face dataset folder; image paths
    are made relative to `out_dir` (images outside it are copied in when written)."""
    path, out_dir = Path(path), Path(out_dir)
    placer = ImagePlacer(out_dir, Path(image_root) if image_root else None)
    if not path.exists():
        raise InputError("file not found", path=str(path))
    if path.is_dir():
        found: list[tuple[str, CaptionRow | CaptionProblem]] = [
            (str(path), row) for row in _hf_rows(path, out_dir)]
    else:
        found = list(read_caption_rows(path, placer))
    rows, rejects = [], []
    keys: dict[str, int] = {}
    for where, row in found:
        if isinstance(row, CaptionProblem):
            rejects.append(CaptionReject(where, row.field, row.reason, row.row))
            continue
        keys[row.key] = keys.get(row.key, 0) + 1
        key = row.key if keys[row.key] == 1 else f"{row.key}_{keys[row.key]}"
        rows.append(CaptionRow(key, row.image, row.caption))
    return rows, rejects, placer


def _hf_rows(path: Path, out_dir: Path) -> Iterator[CaptionRow]:
    """Rows of a Hugging Face dataset saved with `save_to_disk` (Image feature or paths);
    images are written as PNG to <out folder>/images/."""
    try:
        from datasets import load_from_disk
    except ImportError as exc:
        raise ConfigError("reading a Hugging Face dataset needs 'datasets': pip install datasets") from exc
    try:
        data = load_from_disk(str(path))
    except Exception as exc:  # datasets raises several types for a bad folder
        raise InputError(f"not a dataset saved with save_to_disk ({type(exc).__name__})",
                         path=str(path)) from exc
    if hasattr(data, "keys"):  # a DatasetDict: take its first split
        data = data[sorted(data.keys())[0]]
    placer = ImagePlacer(out_dir, None)
    for index, row in enumerate(data):
        caption, image = _pick(row, _CAPTION_KEYS), _pick(row, _IMAGE_KEYS)
        if not isinstance(caption, str):
            raise InputError(f"row {index}: no caption column", path=str(path), field="caption")
        key = safe_key(str(row.get("id") or f"r{index:05d}"))
        if isinstance(image, str):
            try:
                yield CaptionRow(key, placer.place(path, image), caption)
            except ValueError as exc:
                raise InputError(f"row {index}: {exc}", path=str(path), field="image") from exc
            continue
        if image is None or not hasattr(image, "save"):
            raise InputError(f"row {index}: no image column", path=str(path), field="image")
        buffer = io.BytesIO()
        image.convert("RGB").save(buffer, format="PNG")
        write_bytes(out_dir / "images" / f"{key}.png", buffer.getvalue())
        yield CaptionRow(key, f"images/{key}.png", caption)


def _pick(row: dict[str, Any], names: tuple[str, ...]) -> Any:
    return next((row[n] for n in names if row.get(n) not in (None, "")), None)


_CAPTION_KEYS = CAPTION_KEYS
_IMAGE_KEYS = IMAGE_KEYS


def _layer_of(capability: str, taxonomy: dict[str, str]) -> str | None:
    if capability in taxonomy:
        return taxonomy[capability]
    prefix = capability.split(".", 1)[0]
    return prefix if not taxonomy and prefix in LAYERS else None


def caption_items(rows: list[CaptionRow], params: CaptionParams, taxonomy: dict[str, str],
                  created_at: datetime) -> tuple[list[Item], int, list[CaptionReject]]:
    """Items from captioned rows, the number of captions no rule understood, and the
    malformed questions that were rejected (with their reasons)."""
    unknown = [r for r in params.rules if r not in RULES]
    if unknown:
        raise ConfigError(f"captions.rules: unknown rule(s) {unknown} (known: {', '.join(RULES)})")
    for rule in params.rules:
        capability = params.capabilities.get(rule)
        if capability is None or _layer_of(capability, taxonomy) is None:
            raise ConfigError(f"captions.capabilities.{rule}: '{capability}' is not in the "
                              f"params taxonomy (known: {', '.join(sorted(taxonomy))})")
    items, unused, rejected = [], 0, []
    for row in rows:
        candidates = caption_candidates(row.caption, params.rules)
        good = [q for q in candidates if q.problem is None]
        unused += not good
        for q in candidates:
            if q.problem:
                rejected.append(CaptionReject(f"caption {row.key}", "question", q.problem, {
                    "caption": row.caption, "image": row.image, "rule": q.rule,
                    "question": q.question, "answers": q.answers}))
        for n, q in enumerate(good, start=1):
            capability = params.capabilities[q.rule]
            items.append(Item.model_validate({
                "id": f"cap.{row.key}.{q.rule}{n}", "image": row.image, "question": q.question,
                "task": q.task, "answers": q.answers, "capability": capability,
                "layer": _layer_of(capability, taxonomy),
                "difficulty": params.difficulty.get(q.rule, "medium"),
                "source": f"rewrite:{q.rule}", "group": row.image, "created_at": created_at,
                "meta": {"caption": row.caption, "lang": "zh" if is_chinese(row.caption) else "en"},
            }))
    return items, unused, rejected


def run_from_captions(params_path: str | Path, captions: str | Path, out: str | Path, *,
                      image_root: str | Path | None = None, on_error: str = "fail"
                      ) -> CaptionSummary:
    """Read captions, apply the rules of params `captions`, write items atomically.

    Caption rows that cannot be used (no caption, image not found) are problems: with
    `on_error="fail"` they are all raised at once (ValidationFailed) and nothing is written;
    with `"skip"` they go to `<out>.rejects.jsonl` with the malformed questions.
    """
    from bench_kit.authoring.templates import load_taxonomy
    from bench_kit.errors import ValidationFailed
    from bench_kit.params import load_params, section

    params = load_params(params_path)
    settings = section(params, "captions", CaptionParams, source=str(params_path))
    taxonomy = load_taxonomy(params, source=str(params_path)) if params.get("taxonomy") else {}
    created = settings.created_at or datetime.now(timezone.utc).replace(microsecond=0)
    if created.tzinfo is None:
        raise ConfigError(f"{params_path}: captions.created_at: must carry a timezone")
    out = Path(out)
    rows, row_rejects, placer = read_captions(captions, out.parent, image_root)
    if row_rejects and on_error != "skip":
        raise ValidationFailed([r.problem() for r in row_rejects], path=str(captions),
                               unknown_id=None)
    items, unused, question_rejects = caption_items(rows, settings, taxonomy, created)
    placer.write()
    write_jsonl(out, items)
    rejects = row_rejects + question_rejects
    rejects_file = out.with_name(out.stem + ".rejects.jsonl")
    write_jsonl(rejects_file, [{"where": r.where, "field": r.field, "reason": r.reason,
                                "row": r.row} for r in rejects])
    per_rule = {rule: sum(i.source == f"rewrite:{rule}" for i in items) for rule in settings.rules}
    return CaptionSummary(out, per_rule, len(rows), unused, len(items) + len(question_rejects),
                          len(question_rejects), len(row_rejects), rejects_file)
