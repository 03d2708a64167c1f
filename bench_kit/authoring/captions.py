"""`bench-kit author from-captions`: questions from caption text by rules (DOMAIN §5.4).

A caption states facts; each rule turns one statement into a question whose gold is taken
from the statement: `count` ("Three red apples lie on the table." -> "How many red apples
lie on the table?" / 3), `attribute` ("A red car ..." -> "What colour is the car?" / red),
`relation` ("A cat is sleeping on the sofa." -> "What is sleeping on the sofa?" / cat) and
`object` ("A photo of a dog." -> "What is shown in the image?" / dog); English and Chinese.
Items are marked `source: rewrite:<rule>`.
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.authoring.lexicon import is_chinese
from bench_kit.errors import ConfigError, InputError
from bench_kit.io import iter_jsonl, write_bytes, write_jsonl
from bench_kit.types import Item

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
                       rf"(?P<cls>[{_ZH_CLASSIFIERS}])(?P<noun>[\u4e00-\u9fff]{{1,8}})$")
_ZH_ATTR_PRED = re.compile(rf"^(?:这|那)?(?:[{_ZH_CLASSIFIERS}])?(?P<noun>[\u4e00-\u9fff]{{1,6}}?)"
                           rf"是(?P<colour>[{_ZH_COLOURS}])色的?$")
_ZH_ATTR = re.compile(rf"(?P<colour>[{_ZH_COLOURS}])色的(?P<noun>[\u4e00-\u9fff]{{1,4}}?)"
                      rf"(?=[在正停放躺坐站挂，。]|$)")
_ZH_REL = re.compile(rf"^(?:一[{_ZH_CLASSIFIERS}])?(?P<subj>[\u4e00-\u9fff]{{1,6}}?)在"
                     r"(?P<obj>[\u4e00-\u9fff]{1,8}?)(?P<rel>上面|下面|旁边|左边|右边|里面|前面|后面|上|下|里)"
                     r"(?P<tail>[\u4e00-\u9fff]*)$")
_ZH_OBJECT = re.compile(r"^(?:这是)?一(?:张|幅)(?P<obj>[\u4e00-\u9fff]{1,8}?)的(?:照片|图片|图画)$")


def _en_rules(sentence: str) -> Iterator[Question]:
    s = sentence.strip().rstrip(".!").strip()
    low = s[:1].lower() + s[1:]
    m = _EN_COUNT.match(low)
    if m:
        n = int(m["num"]) if m["num"].isdigit() else _EN_NUMBERS[m["num"]]
        rest = m["rest"]
        if n >= 2:
            verbs = (" are ", " lie ", " sit ", " stand ", " hang ", " wait", " play")
            tail = rest if rest.startswith(verbs) else f" are there{rest}"
            yield Question("count", f"How many {m['noun']}{tail}?", "numeric", [str(n)])
    m = _EN_ATTR_PRED.match(low) or _EN_ATTR.search(low)
    if m:
        colour = "grey" if m["colour"] == "gray" else m["colour"]
        answers = [colour] + (["gray"] if colour == "grey" else [])
        yield Question("attribute", f"What colour is the {m['noun']}?", "open", answers)
    m = _EN_REL.match(low)
    if m:
        obj = re.sub(r"^(?:a|an) ", "the ", m["obj"])
        yield Question("relation", f"What {m['verb']} {m['rel']} {obj}?", "open",
                       list(dict.fromkeys([m["subj"], m["subj"].split()[-1]])))
    m = _EN_OBJECT.match(low)
    if m:
        yield Question("object", "What is shown in the image?", "open",
                       list(dict.fromkeys([m["obj"], m["obj"].split()[-1]])))


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
    """Every question the rules make from a caption (one pass per sentence), deduplicated.

    >>> [(q.question, q.answers) for q in caption_questions("Two dogs sit on a bench.")]
    [('How many dogs sit on a bench?', ['2'])]
    """
    splitter = r"[。！；;]" if is_chinese(caption) else r"(?<=[.!?;])\s+"
    apply: Callable[[str], Iterator[Question]] = _zh_rules if is_chinese(caption) else _en_rules
    found: dict[str, Question] = {}
    for sentence in re.split(splitter, caption):
        if sentence.strip():
            for q in apply(sentence):
                if q.rule in rules:
                    found.setdefault(q.question, q)
    return list(found.values())


@dataclass(frozen=True)
class CaptionRow:
    """One captioned image: its key, image path (relative to the output folder), caption."""

    key: str
    image: str
    caption: str


def _safe(text: str) -> str:
    out = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_.-") else "_" for ch in text)
    return out.strip("._-")[:80] or "row"


def _relative_image(source_dir: Path, image: str, out_dir: Path, where: str) -> str:
    path = (source_dir / image).resolve()
    rel = os.path.relpath(path, out_dir.resolve())
    if rel.startswith(".."):
        raise InputError(f"image '{image}' lies outside the output folder {out_dir}; write "
                         "--out into a folder that contains the images", path=where,
                         field="image")
    return Path(rel).as_posix()


def _pick(row: dict[str, Any], names: tuple[str, ...]) -> Any:
    return next((row[n] for n in names if row.get(n) not in (None, "")), None)


_CAPTION_KEYS = ("caption", "text", "description", "sentence")
_IMAGE_KEYS = ("image", "image_path", "file_name", "filename", "path")


def _table_rows(path: Path, out_dir: Path) -> Iterator[CaptionRow]:
    if path.suffix.lower() == ".csv":
        try:
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise InputError("file not found", path=str(path)) from None
        numbered = enumerate(csv.DictReader(io.StringIO(text)), start=2)
    else:
        numbered = iter_jsonl(path)
    for line, row in numbered:
        if not isinstance(row, dict):
            raise InputError("expected a JSON object", path=str(path), line=line)
        caption, image = _pick(row, _CAPTION_KEYS), _pick(row, _IMAGE_KEYS)
        if not isinstance(caption, str) or not caption.strip():
            raise InputError(f"no caption (one of {', '.join(_CAPTION_KEYS)})", path=str(path),
                             line=line, field="caption")
        if not isinstance(image, str):
            raise InputError(f"no image path (one of {', '.join(_IMAGE_KEYS)})",
                             path=str(path), line=line, field="image")
        key = str(row.get("id") or Path(image).stem)
        yield CaptionRow(_safe(key), _relative_image(path.parent, image, out_dir,
                                                     f"{path}:{line}"), caption)


def _hf_rows(path: Path, out_dir: Path) -> Iterator[CaptionRow]:
    """Rows of a Hugging Face dataset saved with `save_to_disk` (Image feature or paths);
    images are written as PNG to <out folder>/images/."""
    try:
        from datasets import load_from_disk
    except ImportError:
        raise ConfigError("reading a Hugging Face dataset needs 'datasets': pip install datasets") from None
    try:
        data = load_from_disk(str(path))
    except Exception as exc:  # datasets raises several types for a bad folder
        raise InputError(f"not a dataset saved with save_to_disk ({type(exc).__name__})",
                         path=str(path)) from None
    if hasattr(data, "keys"):  # a DatasetDict: take its first split
        data = data[sorted(data.keys())[0]]
    for index, row in enumerate(data):
        caption, image = _pick(row, _CAPTION_KEYS), _pick(row, _IMAGE_KEYS)
        if not isinstance(caption, str):
            raise InputError(f"row {index}: no caption column", path=str(path), field="caption")
        key = _safe(str(row.get("id") or f"r{index:05d}"))
        if isinstance(image, str):
            yield CaptionRow(key, _relative_image(path, image, out_dir, str(path)), caption)
            continue
        if image is None or not hasattr(image, "save"):
            raise InputError(f"row {index}: no image column", path=str(path), field="image")
        buffer = io.BytesIO()
        image.convert("RGB").save(buffer, format="PNG")
        write_bytes(out_dir / "images" / f"{key}.png", buffer.getvalue())
        yield CaptionRow(key, f"images/{key}.png", caption)


def read_captions(path: str | Path, out_dir: str | Path) -> list[CaptionRow]:
    """Captioned images from a JSONL or CSV file (columns image + caption, optional id) or a
    Hugging Face dataset folder; image paths are made relative to `out_dir`."""
    path, out_dir = Path(path), Path(out_dir)
    rows = list(_hf_rows(path, out_dir) if path.is_dir() else _table_rows(path, out_dir))
    keys: dict[str, int] = {}
    unique = []
    for row in rows:
        keys[row.key] = keys.get(row.key, 0) + 1
        key = row.key if keys[row.key] == 1 else f"{row.key}_{keys[row.key]}"
        unique.append(CaptionRow(key, row.image, row.caption))
    return unique


@dataclass
class CaptionSummary:
    """What `run_from_captions` wrote: items per rule and captions that gave none."""

    out_path: Path
    per_rule: dict[str, int] = field(default_factory=dict)
    n_captions: int = 0
    unused: int = 0

    @property
    def total(self) -> int:
        """Items written."""
        return sum(self.per_rule.values())


def caption_items(rows: list[CaptionRow], params: CaptionParams, taxonomy: dict[str, str],
                  created_at: datetime) -> tuple[list[Item], int]:
    """Items from captioned rows, and the number of captions no rule understood."""
    unknown = [r for r in params.rules if r not in RULES]
    if unknown:
        raise ConfigError(f"captions.rules: unknown rule(s) {unknown} (known: {', '.join(RULES)})")
    for rule in params.rules:
        capability = params.capabilities.get(rule)
        if capability not in taxonomy:
            raise ConfigError(f"captions.capabilities.{rule}: '{capability}' is not in the "
                              f"params taxonomy (known: {', '.join(sorted(taxonomy))})")
    items, unused = [], 0
    for row in rows:
        questions = caption_questions(row.caption, params.rules)
        unused += not questions
        for n, q in enumerate(questions, start=1):
            capability = params.capabilities[q.rule]
            items.append(Item.model_validate({
                "id": f"cap.{row.key}.{q.rule}{n}", "image": row.image, "question": q.question,
                "task": q.task, "answers": q.answers, "capability": capability,
                "layer": taxonomy[capability], "difficulty": params.difficulty.get(q.rule, "medium"),
                "source": f"rewrite:{q.rule}", "group": row.image, "created_at": created_at,
                "meta": {"caption": row.caption, "lang": "zh" if is_chinese(row.caption) else "en"},
            }))
    return items, unused


def run_from_captions(params_path: str | Path, captions: str | Path, out: str | Path,
                      ) -> CaptionSummary:
    """Read captions, apply the rules of params `captions`, write items atomically."""
    from bench_kit.authoring.templates import load_taxonomy
    from bench_kit.params import load_params, section

    params = load_params(params_path)
    settings = section(params, "captions", CaptionParams, source=str(params_path))
    taxonomy = load_taxonomy(params, source=str(params_path))
    created = settings.created_at or datetime.now(timezone.utc).replace(microsecond=0)
    if created.tzinfo is None:
        raise ConfigError(f"{params_path}: captions.created_at: must carry a timezone")
    rows = read_captions(captions, Path(out).parent)
    items, unused = caption_items(rows, settings, taxonomy, created)
    write_jsonl(out, items)
    per_rule = {rule: sum(i.source == f"rewrite:{rule}" for i in items) for rule in settings.rules}
    return CaptionSummary(Path(out), per_rule, len(rows), unused)
