"""An optional LLM judge for the embedding review band: "is B a rephrase of A?".

Any model configured under `models:` can judge (`audit.contamination.judge: NAME`); its
calls go through the shared call cache (`eval.cache`), so a re-run asks nothing twice. A
failed call leaves the pair at review (evidence `judge_error`), it never fails the audit.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any, Sequence

from bench_kit.errors import ModelCallError

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
    """Ask `model` (a name under `models:`) about each (item text, reference text) pair.

    Raises:
        ConfigError: unknown or disabled model, missing API key.
    """
    from bench_kit.models.adapters import ModelRequest, build_adapter
    from bench_kit.models.cache import CallCache, CallRecord, cache_key
    from bench_kit.models.config import cache_path, check_runnable, load_model_config

    config = load_model_config(params, model, source)
    check_runnable(config, model, source)
    if not pairs:
        return []

    async def run(cache: CallCache) -> list[Verdict]:
        adapter = build_adapter(config, name=model, cache=cache, source=source)
        gate = asyncio.Semaphore(config.concurrency)

        async def one(item: str, reference: str) -> Verdict:
            prompt = JUDGE_PROMPT.format(item=item, reference=reference)
            key = cache_key({"purpose": "audit.contamination.judge", "adapter": config.adapter,
                             "identity": adapter.identity(), "prompt": prompt,
                             "temperature": 0.0})
            record = cache.get(key)
            if record is None:
                request = ModelRequest(prompt=prompt, images=[], task="yesno", question=prompt,
                                       max_tokens=min(config.max_tokens, 16), temperature=0.0)
                async with gate:
                    try:
                        response = await adapter.complete(request)
                    except ModelCallError as exc:
                        return Verdict(None, error=str(exc)[:200])
                record = CallRecord(response=response.text, tokens_in=response.tokens_in,
                                    tokens_out=response.tokens_out,
                                    cost=config.cost(response.tokens_in, response.tokens_out))
                cache.put(key, record)
            return Verdict(parse_verdict(record.response), response=record.response)

        try:
            return list(await asyncio.gather(*(one(a, b) for a, b in pairs)))
        finally:
            await adapter.aclose()

    with CallCache(cache_path(params, source)) as cache:
        return asyncio.run(run(cache))
