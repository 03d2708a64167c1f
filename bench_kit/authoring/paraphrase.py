"""The optional LLM paraphraser of `bench-kit author variants` (params
`variants.paraphraser: <a model name under models:>`), through any configured adapter.

The prompt gives the gold answer and asks for a rewrite that keeps it; a rewrite that drops
a number, a quoted text or a vocabulary name of the original is refused before the gate.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from bench_kit.authoring.counterfactual import Skip
from bench_kit.authoring.vocab import COLOURS, SHAPES, zh
from bench_kit.types import Item

PROMPT = """Rewrite the question below with different wording. It must ask exactly the same \
thing, in the same language, so that its correct answer stays: {gold}
Keep every number, name, colour, shape and quoted text unchanged; do not answer it; do not \
add or drop any condition. Reply with the rewritten question only.

Question: {question}{options}"""

_KEY_TERMS = re.compile(r'"[^"]*"|\d+(?:\.\d+)?|\b(?:' + "|".join([*COLOURS, *SHAPES]) + r")\b|"
                        + "|".join(zh(w) for w in [*COLOURS, *SHAPES]), re.IGNORECASE)
_LEAD = re.compile(r"^(?:rewritten question|question|paraphrase|改写后的问题|问题)\s*[:：]\s*",
                   re.IGNORECASE)


def build_prompt(item: Item) -> str:
    """The paraphrase prompt for one item (the gold is stated so the model keeps it)."""
    gold = " / ".join(item.answers)
    if item.choices:
        gold += " (" + "; ".join(f"{k}. {item.choices[k]}" for k in item.answers
                                 if k in item.choices) + ")"
        options = "\nOptions (unchanged): " + "; ".join(f"{k}. {v}" for k, v in item.choices.items())
    else:
        options = ""
    return PROMPT.format(gold=gold, question=item.question, options=options)


def clean_reply(text: str) -> str:
    """The rewritten question from a reply: first non-empty line, without a label or quotes."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = _LEAD.sub("", line).strip()
    if len(line) > 1 and line[0] in "\"'“「" and line[-1] in "\"'”」":
        line = line[1:-1].strip()
    return line


def lost_terms(original: str, rewrite: str) -> list[str]:
    """Numbers, quoted texts and vocabulary names of the original missing from the rewrite."""
    have = rewrite.lower()
    return sorted({t for t in _KEY_TERMS.findall(original) if t.lower() not in have})


def check_rewrite(item: Item, reply: str) -> str | Skip:
    """The cleaned rewrite, or a Skip when it is empty, unchanged or drops a key term."""
    text = clean_reply(reply)
    if not text:
        return Skip("the paraphraser returned no text")
    if text == item.question:
        return Skip("the paraphraser returned the question unchanged")
    missing = lost_terms(item.question, text)
    if missing:
        return Skip(f"the paraphrase dropped key term(s) {missing}")
    return text


def llm_paraphraser(params: dict[str, Any], name: str, source: str = "params.yaml",
                    ) -> Callable[[list[Item]], dict[str, "str | Skip"]]:
    """A function mapping items to checked rewrites from model `name` (models.<name>).

    Calls go through the one model-call loop (bench_kit.models.batch): cached in the call
    cache (`eval.cache`, key space `paraphrase`), so a re-run asks nothing twice, and
    bounded by `eval.budget` per call of the function. A failed call, or one the budget
    left unasked, becomes a Skip with the reason, never an exception mid-run.
    """
    from bench_kit.models.adapters import ModelRequest, build_adapter
    from bench_kit.models.batch import Call, run_calls
    from bench_kit.models.cache import CallCache, cache_key
    from bench_kit.models.config import (
        budget_params,
        cache_path,
        check_runnable,
        load_model_config,
    )

    config = load_model_config(params, name, source=source)
    check_runnable(config, name, source)
    limits = budget_params(params, source)

    def run(items: list[Item]) -> dict[str, str | Skip]:
        with CallCache(cache_path(params, source)) as cache:
            adapter = build_adapter(config, name=name, cache=cache, source=source)
            calls = []
            for item in items:
                prompt = build_prompt(item)
                parts = {"space": "paraphrase", "adapter": config.adapter,
                         "identity": adapter.identity(), "prompt": prompt,
                         "max_tokens": config.max_tokens, "temperature": config.temperature}
                if adapter.per_item:
                    parts["item"] = item.id
                calls.append(Call(cache_key(parts), ModelRequest(
                    prompt=prompt, images=[], task="open", question=item.question,
                    max_tokens=config.max_tokens, temperature=config.temperature,
                    item_id=item.id)))
            outcomes, _ = run_calls(calls, adapter=adapter, config=config, cache=cache,
                                    budget=limits.start())
        found: dict[str, str | Skip] = {}
        for item, outcome in zip(items, outcomes):
            if outcome.record is not None:
                found[item.id] = check_rewrite(item, outcome.record.response)
            elif outcome.source == "budget":
                found[item.id] = Skip(f"paraphraser not asked: {outcome.error}")
            else:
                found[item.id] = Skip(f"paraphraser call failed: {str(outcome.error)[:160]}")
        return found

    return run
