"""Generate the inputs of the reference vectors (seeded; no reference code here).

Each family's rows cover the normalisation branches of the reference implementations:
articles, number words, contractions, punctuation, case and whitespace, multipliers,
units, signs, full-width digits, fewer than ten golds, refusals and hedges. Rows carry
`variants`, the transformations the generator applied, so a test can tell a deliberate
difference (docs/METRICS.md#reference-differences) from a disagreement.

Usage:
    python tests/scoring/reference/generate_inputs.py OUT_DIR [--n 3000]

writes OUT_DIR/{vqa,relaxed,anls,mmmu_open,mmmu_mc,mc,yesno,pope,mme,grounding}.inputs.jsonl; run_reference.py adds
the references' outputs.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

_FULL = str.maketrans("0123456789", "０１２３４５６７８９")

# VQA: an answer, and ways annotators or models write the same answer.
_VQA_BASES = {
    "dog": ["dog", "Dog", "the dog", "a dog", "The Dog", "dog.", "dog!", " dog ", "dog\n"],
    "2": ["2", "two", "Two", "TWO", "2.", "２", "2 ", "two!"],
    "0": ["0", "zero", "none", "None", "0."],
    "10": ["10", "ten", "Ten", "１０"],
    "1000": ["1000", "1,000", "1 000", "one thousand"],
    "3.5": ["3.5", "3.5.", "3,5"],
    "yes": ["yes", "Yes", "YES", "yes!", "yes.", "Yes, it is", "yep"],
    "no": ["no", "No", "no.", "No!", "nope"],
    "don't know": ["don't know", "dont know", "do not know", "Dont know"],
    "what's": ["what's", "whats", "Whats"],
    "t-shirt": ["t-shirt", "t shirt", "tshirt", "T-Shirt", "t - shirt"],
    "black and white": ["black and white", "black & white", "black/white", "black, white",
                        "black white"],
    "man's": ["man's", "mans", "man s", "Man's"],
    "an apple": ["an apple", "apple", "Apple", "apples", "the apple"],
    "red": ["red", "Red", "red.", "(red)", "[red]", "red?", "\"red\""],
    "2 dogs": ["2 dogs", "two dogs", "Two Dogs", "the 2 dogs", "2 dog"],
    "12:30": ["12:30", "12.30", "1230", "12:30 pm"],
    "left": ["left", "on left", "on the left", "Left.", "left side"],
    "o'clock": ["oclock", "o'clock", "3 oclock"],
    "cant": ["cant", "can't", "Can't", "cannot"],
}


def _vqa(rng: random.Random, n: int) -> list[dict]:
    keys = list(_VQA_BASES)
    rows = []
    for i in range(n):
        key = rng.choice(keys)
        pred = rng.choice(_VQA_BASES[key])
        count = rng.choice([1, 1, 2, 3, 3, 4, 5, 6, 7, 9, 10, 10, 10, 10, 10])
        golds = []
        share = rng.random()
        for _ in range(count):
            source = key if rng.random() < share else rng.choice(keys)
            golds.append(rng.choice(_VQA_BASES[source]))
        if i % 7 == 0:  # all golds written the same way (the official script's other branch)
            golds = [golds[0]] * count
        rows.append({"pred": pred, "golds": golds})
    return rows


# Relaxed accuracy: a value, written plainly and in the ways charts and models write it.
_MULTIPLIER_WORDS = (("k", "multiplier_k", 1e3), ("K", "multiplier_k", 1e3),
                     (" million", "multiplier_million", 1e6), ("万", "multiplier_wan", 1e4),
                     ("亿", "multiplier_yi", 1e8), (" billion", "multiplier_billion", 1e9))


def _plain(value: float) -> str:
    return f"{value:.0f}" if value == int(value) else f"{value:.12g}"


def _number_forms(value: float) -> list[tuple[str, str, str, list[str]]]:
    """(written, plain, absolute, variants): `plain` is the number as written without its
    multiplier, `absolute` the number times its multiplier, both as float() reads them."""
    plain = _plain(value)
    forms = [(plain, plain, plain, [])]
    if value < 0:
        forms.append(("\u2212" + plain[1:], plain, plain, ["unicode_minus"]))
    forms.append((plain.translate(_FULL), plain, plain, ["fullwidth"]))
    if abs(value) >= 1000 and value == int(value):
        forms.append((f"{int(value):,}", plain, plain, ["thousands"]))
    forms.append((plain + ".", plain, plain, ["final_period"]))
    forms.append((" " + plain + " ", plain, plain, ["space"]))
    forms.append(("$" + plain, plain, plain, ["currency"]))
    forms.append((plain + " kg", plain, plain, ["unit"]))
    forms.append((plain + "%", plain + "%", plain + "%", ["percent"]))
    for word, variant, times in _MULTIPLIER_WORDS:
        forms.append((plain + word, plain, _plain(value * times), [variant]))
    forms.append(("$" + plain + " million", plain, _plain(value * 1e6),
                  ["currency", "multiplier_million"]))
    return forms


_CHART_TEXT = ["Asia", "asia", "ASIA", "Europe", "2019", "Q3", "yes", "No", "Blue line",
               "blue line", "N/A", "inf", "nan", "1e3", "1_000", "0x10"]


def _relaxed(rng: random.Random, n: int) -> list[dict]:
    rows = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.12:
            rows.append({"pred": rng.choice(_CHART_TEXT), "gold": rng.choice(_CHART_TEXT),
                         "pred_plain": None, "gold_plain": None, "pred_abs": None,
                         "gold_abs": None, "variants": ["text"]})
            continue
        gold_value = rng.choice([0, 1, 12, -12, 45, 83.817, 3905, 1296, 0.45, 12.5, -0.3,
                                 100, 2500000, 7, 19.99])
        drift = rng.choice([1.0, 1.0, 1.03, 0.97, 1.05, 1.049, 1.051, 0.9, 1.2, 10, 0.01, -1])
        pred_value = round(gold_value * drift, 6)
        gold_forms = _number_forms(gold_value)
        gold, gold_plain, gold_abs, gvar = rng.choice(
            gold_forms[:3] if rng.random() < 0.8 else gold_forms)
        pred, pred_plain, pred_abs, pvar = rng.choice(_number_forms(pred_value))
        rows.append({"pred": pred, "gold": gold, "pred_plain": pred_plain,
                     "gold_plain": gold_plain, "pred_abs": pred_abs, "gold_abs": gold_abs,
                     "variants": sorted(set(["pred_" + v for v in pvar]
                                            + ["gold_" + v for v in gvar]))})
    return rows


_WORDS = ["invoice", "total", "Acme Corp", "12/03/2019", "$1,250.00", "John Smith", "page 3",
          "The Quick Brown Fox", "n/a", "ABC-123", "revenue", "Q4 2020", "yes"]


def _mutate(rng: random.Random, text: str) -> str:
    ops = rng.randint(0, 4)
    chars = list(text)
    for _ in range(ops):
        op = rng.random()
        at = rng.randrange(len(chars) + 1)
        if op < 0.3 and chars:
            del chars[min(at, len(chars) - 1)]
        elif op < 0.6:
            chars.insert(at, rng.choice("abcxyz 1"))
        elif chars:
            chars[min(at, len(chars) - 1)] = rng.choice("ABCxyz")
    out = "".join(chars)
    style = rng.random()
    if style < 0.15:
        out = out.upper()
    elif style < 0.3:
        out = "  " + out.replace(" ", "   ") + " "
    return out


def _anls(rng: random.Random, n: int) -> list[dict]:
    rows = []
    for _ in range(n):
        golds = rng.sample(_WORDS, rng.choice([1, 1, 2, 3]))
        pred = _mutate(rng, rng.choice(golds) if rng.random() < 0.85 else rng.choice(_WORDS))
        rows.append({"pred": pred, "golds": golds})
    return rows


_OPEN_TEMPLATES = [
    "{a}", "The answer is {a}.", "So the area is {a} square meters.", "Therefore, x = {a}",
    "It could be {b} or {a}.", "First we compute {b}. Then the result is {a}",
    "The final answer is {a}", "{a} cm", "Thus the value is approximately {a}.",
    "We get {b}, so the answer is {a}!", "Answer: {a}", "The total is {a} dollars.",
    "x = {b} + {c} = {a}", "I think it is {a}\nbut not sure", "The speed is {a} m/s.",
    "The answer is {a}. So it is {a}.",
]


def _open_value(rng: random.Random) -> str:
    return rng.choice(["3.14", "42", "-402", "1,234", "0.5", "7", "1/2", "2.0", "12%",
                       "Paris", "mitochondria", "blue", "1e3", "100"])


def _mmmu_open(rng: random.Random, n: int) -> list[dict]:
    rows = []
    for _ in range(n):
        gold = _open_value(rng)
        said = gold if rng.random() < 0.6 else _open_value(rng)
        text = rng.choice(_OPEN_TEMPLATES).format(a=said, b=_open_value(rng),
                                                  c=_open_value(rng))
        rows.append({"response": text, "golds": [gold] if rng.random() < 0.8
                     else [gold, _open_value(rng)]})
    return rows


_OPTION_TEXTS = ["a red circle", "two cats", "the blue car", "42", "Paris", "none of these",
                 "a triangle", "forty", "the left one", "yes", "no", "a dog on a mat",
                 "mitochondria", "London", "the square", "three apples"]

_MC_TEMPLATES = [
    ("bare", "{L}"), ("bare", "{L}."), ("bare", "({L})"), ("bare", "{L})"), ("bare", "[{L}]"),
    ("bare", " {L} "), ("bare", "{L}:"), ("lead", "{L}. {T}"), ("lead", "({L}) {T}"),
    ("lead", "{L}) {T}"), ("lead", "{L}: {T}"), ("clause", "The answer is {L}"),
    ("clause", "The answer is {L}."), ("clause", "The correct answer is ({L})."),
    ("clause", "Answer: {L}"), ("clause", "**{L}**"), ("clause", "The answer is **{L}**."),
    ("clause", "Option {L}"), ("clause", "I choose {L}."), ("clause", "答案是{L}"),
    ("clause", "选{L}"), ("clause", "The best answer is {L}. {T}"),
    ("text", "{T}"), ("text", "It is {T}."),
    ("reason", "{R} Therefore, the answer is {L}."),
    ("reason", "{R}\n\nAnswer: {L}"), ("reason", "{R} So the correct option is ({L}) {T}."),
    ("reason", "{R} The answer is {L}"),
    ("negation", "Not {X}. The answer is {L}."), ("negation", "{X} is wrong, so {L}."),
    ("hedge", "It is either {L} or {X}."), ("refusal", "I cannot determine the answer."),
    ("refusal", "Sorry, I can't help with images of people yet."),
    ("refusal", "Cannot determine the answer"), ("article", "A {T} is shown, so {L}."),
    ("correction", "The answer is {X}. No wait, it's {L}."),
]

_REASONING = ("Looking at the image, the object in the foreground has a distinct shape and "
              "colour. Comparing it with each option in turn, the first candidate does not "
              "match the size, and the second has the wrong texture. ")


def _mc(rng: random.Random, n: int) -> list[dict]:
    rows = []
    for _ in range(n):
        k = rng.choice([2, 3, 4, 4, 4, 5])
        letters = "ABCDE"[:k]
        texts = rng.sample(_OPTION_TEXTS, k)
        choices = dict(zip(letters, texts))
        letter = rng.choice(letters)
        other = rng.choice([x for x in letters if x != letter])
        shape, template = rng.choice(_MC_TEMPLATES)
        reasoning = _REASONING * rng.choice([1, 2, 3])
        response = template.format(L=letter, T=choices[letter], X=other, R=reasoning)
        rows.append({"response": response, "choices": choices, "shape": shape,
                     "written_for": letter})
    return rows


_YESNO_TEMPLATES = [
    ("yes", "Yes"), ("yes", "yes."), ("yes", "YES!"), ("yes", "Yes, there is a {o} in the image."),
    ("yes", "The answer is yes."), ("yes", "Yes it is"), ("yes", "yes\n"), ("yes", "Yep."),
    ("yes", "Definitely yes"), ("yes", "是"), ("yes", "Yes; the {o} is visible."),
    ("yes", "I can see a {o}, so yes."), ("no", "No"), ("no", "no."), ("no", "NO"),
    ("no", "No, there is no {o}."), ("no", "The answer is no"), ("no", "Nope."),
    ("no", "No, I don't see one."), ("no", "There is no {o} in the picture."),
    ("no", "不是"), ("no", "no, not at all"), ("no", "Not really."),
    ("no", "I do not see a {o}, so no."), ("yes", "Yes. No other {o} is there."),
    ("no", "No; yes-or-no questions are easy."), (None, "I cannot tell."),
    (None, "Maybe"), (None, "Yes and no."), (None, "It is unclear whether there is a {o}."),
    ("no", "Yes. No wait, no."), ("yes", "No doubt, yes."), ("yes", "Yes, no doubt."),
    ("no", "no-one is there, so no"), ("yes", "Yes (no blur)"),
]
_OBJECTS = ["dog", "cat", "car", "bicycle", "person", "cup", "chair", "traffic light"]


def _yesno(rng: random.Random, n: int) -> list[dict]:
    rows = []
    for _ in range(n):
        label, template = rng.choice(_YESNO_TEMPLATES)
        rows.append({"response": template.format(o=rng.choice(_OBJECTS)), "written_for": label})
    return rows


def _pope(rng: random.Random, n: int) -> list[dict]:
    """n / 40 POPE splits of 40 questions: golds Yes/No, extracted Yes/No/Unknown."""
    splits = []
    for index in range(max(1, n // 40)):
        bias = rng.random()
        golds = [rng.choice(["Yes", "No"]) for _ in range(40)]
        preds = [g if rng.random() < 0.8 else rng.choice(["Yes", "No", "Unknown"])
                 for g in golds]
        preds = [p if rng.random() > bias * 0.3 else "Yes" for p in preds]
        if index % 25 == 0:  # a model that never says yes: precision 0/0
            preds = ["No"] * 40
        splits.append({"answer": golds, "extracted": preds})
    return splits


_MME_CATEGORIES = ["OCR", "artwork", "celebrity", "color", "count", "existence", "landmark",
                   "position", "posters", "scene", "code_reasoning", "commonsense_reasoning",
                   "numerical_calculation", "text_translation"]


def _mme(rng: random.Random, n: int) -> list[dict]:
    """n / 100 MME runs: every category, images with two questions each, hits drawn per
    run at a model-specific rate."""
    runs = []
    for _ in range(max(1, n // 100)):
        skill = rng.uniform(0.3, 1.0)
        rows = []
        for category in _MME_CATEGORIES:
            for image in range(rng.randint(1, 8)):
                for _ in range(2):
                    rows.append({"category": category, "image_path": f"{category}/{image}.jpg",
                                 "score": int(rng.random() < skill)})
        runs.append({"rows": rows})
    return runs


# Grounding: a gold box in pixels, a predicted box written in one scale and one notation.
# `notation` and `scale` say how the row was written; `written` is the raw box.
_BOX_NOTATIONS = [
    ("json", '{{"bbox_2d": [{a}, {b}, {c}, {d}]}}'),
    ("json_label", '{{"bbox_2d": [{a}, {b}, {c}, {d}], "label": "the object"}}'),
    ("json_fence", '```json\n{{"bbox_2d": [{a}, {b}, {c}, {d}]}}\n```'),
    ("json_prose", 'The object is on the left. {{"bbox_2d": [{a}, {b}, {c}, {d}]}}'),
    ("bracket", "[{a}, {b}, {c}, {d}]"), ("bracket_space", "[{a} {b} {c} {d}]"),
    ("paren", "({a}, {b}, {c}, {d})"), ("run", "{a} {b} {c} {d}"),
    ("prose_box", "The bounding box of the object is [{a}, {b}, {c}, {d}]."),
    ("zh_run", "目标框坐标为：{a},{b},{c},{d}"),
    ("pairs", "({a},{b}),({c},{d})"), ("qwen_tokens", "<|box_start|>({a},{b}),({c},{d})<|box_end|>"),
    ("keyed", '{{"x1": {a}, "y1": {b}, "x2": {c}, "y2": {d}}}'),
]
_BOX_REJECTIONS = [("json_null", '{"bbox_2d": null}'), ("zero_box", "[0, 0, 0, 0]"),
                   ("refusal", "There is no such object in the image."),
                   ("nothing", "I am not sure what you mean.")]


def _written(box: list[float], scale: str, width: int, height: int) -> list[str]:
    if scale == "norm1":
        return [f"{box[0] / width:.3f}", f"{box[1] / height:.3f}",
                f"{box[2] / width:.3f}", f"{box[3] / height:.3f}"]
    if scale == "norm1000":
        return [str(round(box[0] / width * 1000)), str(round(box[1] / height * 1000)),
                str(round(box[2] / width * 1000)), str(round(box[3] / height * 1000))]
    return [str(round(v)) for v in box]


def _grounding(rng: random.Random, n: int) -> list[dict]:
    rows = []
    for _ in range(n):
        width, height = rng.randrange(200, 1600), rng.randrange(200, 1600)
        x1, y1 = rng.uniform(0, width * 0.8), rng.uniform(0, height * 0.8)
        gold = [round(x1), round(y1), round(rng.uniform(x1 + 5, width)),
                round(rng.uniform(y1 + 5, height))]
        if rng.random() < 0.05:  # GroundingME's rejection items: the object is not there
            gold = [0, 0, 0, 0]
        if rng.random() < 0.1:
            notation, response = rng.choice(_BOX_REJECTIONS)
            rows.append({"response": response, "width": width, "height": height, "gold": gold,
                         "notation": notation, "scale": None, "written": None})
            continue
        jitter = rng.choice([0, 0.02, 0.1, 0.3, 1.0])
        pred = [min(max(v + rng.gauss(0, jitter * (width if i % 2 == 0 else height)), 0),
                    width if i % 2 == 0 else height) for i, v in enumerate(gold)]
        if rng.random() < 0.05:  # corners written in the other order
            pred = [pred[2], pred[3], pred[0], pred[1]]
        scale = rng.choice(["pixel", "pixel", "norm1", "norm1000"])
        written = _written(pred, scale, width, height)
        notation, template = rng.choice(_BOX_NOTATIONS)
        a, b, c, d = written
        rows.append({"response": template.format(a=a, b=b, c=c, d=d), "width": width,
                     "height": height, "gold": gold, "notation": notation, "scale": scale,
                     "written": [float(v) for v in written]})
    return rows


FAMILIES = {"vqa": _vqa, "relaxed": _relaxed, "anls": _anls, "mmmu_open": _mmmu_open,
            "mmmu_mc": _mc, "mc": _mc, "yesno": _yesno, "pope": _pope, "mme": _mme,
            "grounding": _grounding}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--n", type=int, default=3000)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for seed, (name, make) in enumerate(FAMILIES.items()):
        n = args.n * 2 // 3 if name in ("mc", "mmmu_mc") else args.n
        rows = make(random.Random(1000 + seed), n)
        with (args.out / f"{name}.inputs.jsonl").open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{name}: {len(rows)} rows")


if __name__ == "__main__":
    main()
