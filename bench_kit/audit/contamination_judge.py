"""An optional LLM judge for the embedding review band: "is B a rephrase of A?".

Any model configured under `models:` can judge (`audit.contamination.judge: NAME`); its
calls go through the one model-call loop (bench_kit.models.batch): the shared call cache
(`eval.cache`), so a re-run asks nothing twice, and the budget (`eval.budget`). A failed
call, or one the budget left unasked, leaves the pair at review (evidence `judge_error`);
it never fails the audit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence


JUDGE_PROMPT = (
    "You check a benchmark for contamination. Question A is from the benchmark, question B "
    "from a public corpus. Answer \"yes\" if B asks the same thing as A in other words (a "
    "rephrase or a translation that has the same answer), otherwise \"no\". Answer with one "
    "word.\n\nQuestion A: {item}\nQuestion B: {reference}")
_VERDICT = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Verdict:
    """The judge's answer for one pair: `rephrase` is None when it gave no usable answer."""

    rephrase: bool | None
    response: str | None = None
    error: str | None = None

    def evidence(self, model: str) -> dict[str, Any]:
        """Evidence fields naming the judge and what it said."""
        out: dict[str, Any] = {"judge": model}
        if self.error:
            out["judge_error"] = self.error
        else:
            out["judge_verdict"] = ("rephrase" if self.rephrase else
                                    "different" if self.rephrase is False else "unclear")
            out["judge_response"] = (self.response or "")[:200]
        return out


def parse_verdict(text: str) -> bool | None:
    """True for a leading yes, False for no, None otherwise.

    >>> parse_verdict("Yes."), parse_verdict("no, they differ"), parse_verdict("maybe")
    (True, False, None)
    """
    match = _VERDICT.search(text)
    return None if match is None else match.group(1).lower() == "yes"


def judge_pairs(params: dict[str, Any], model: str, pairs: Sequence[tuple[str, str]], *,
                source: str = "params.yaml") -> list[Verdict]:
    """Ask `model` (a name under `models:`) about each (item text, reference text) pair,
    through the one model-call loop (bench_kit.models.batch): cached, at most `concurrency`
    in flight, bounded by `eval.budget`. A pair the budget leaves unasked gets a Verdict
    with `error: budget exhausted (...)` (it stays at review and is asked on the next run).

    Raises:
        ConfigError: unknown or disabled model, missing API key.
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

    config = load_model_config(params, model, source)
    check_runnable(config, model, source)
    if not pairs:
        return []
    limits = budget_params(params, source)
    with CallCache(cache_path(params, source)) as cache:
        adapter = build_adapter(config, name=model, cache=cache, source=source)
        calls = []
        for item, reference in pairs:
            prompt = JUDGE_PROMPT.format(item=item, reference=reference)
            key = cache_key({"purpose": "audit.contamination.judge", "adapter": config.adapter,
                             "identity": adapter.identity(), "prompt": prompt,
                             "temperature": 0.0})
            calls.append(Call(key, ModelRequest(
                prompt=prompt, images=[], task="yesno", question=prompt,
                max_tokens=min(config.max_tokens, 16), temperature=0.0)))
        outcomes, _ = run_calls(calls, adapter=adapter, config=config, cache=cache,
                                budget=limits.start())
    return [Verdict(parse_verdict(o.record.response), response=o.record.response)
            if o.record is not None else Verdict(None, error=str(o.error)[:200])
            for o in outcomes]
