"""The LLM judge of the embedding review band (bench_kit/audit/contamination_judge.py)
against a real chat-completions server on 127.0.0.1 (tests/openai_server.py) and the local
`random` adapter: the prompt and request sent, the cache key the answers are stored under
(so a re-run asks nothing), the budget, failed calls as error verdicts, and the params file
named in every configuration error. How the check uses the verdicts is in
test_contamination_embed_boundaries.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from openai_server import FakeOpenAI

from bench_kit.audit.contamination_judge import JUDGE_PROMPT, Verdict, judge_pairs
from bench_kit.errors import ConfigError
from bench_kit.models.adapters.chance import VERSION as RANDOM_VERSION
from bench_kit.models.cache import CallCache, cache_key


def _models(url: str) -> dict[str, Any]:
    return {"judge": {"adapter": "openai", "model": "judge-model", "base_url": url,
                      "backoff_s": 0.0, "max_retries": 0, "concurrency": 1}}


def _judge_params(tmp_path: Path, url: str, **model: Any) -> dict[str, Any]:
    models = _models(url)
    models["judge"].update(model)
    return {"models": models, "eval": {"cache": str(tmp_path / "calls.sqlite")}}


def test_judge_request_prompt_and_cache_key(tmp_path):
    pairs = [("Which planet? [scenario:verdict]", "What planet?"),
             ("Which moon? [scenario:verdict]", "What moon?")]
    with FakeOpenAI() as server:
        server.verdicts = ["Yes, the same.", "No."]
        params = _judge_params(tmp_path, server.url)
        verdicts = judge_pairs(params, "judge", pairs)
        assert [v.rephrase for v in verdicts] == [True, False]
        assert [v.response for v in verdicts] == ["Yes, the same.", "No."]
        body = server.requests[0]["body"]
        # at most 16 tokens (the model's 512 is not used), temperature 0
        assert body["max_tokens"] == 16 and body["temperature"] == 0.0
        assert server.prompt_of(body) == JUDGE_PROMPT.format(item=pairs[0][0],
                                                             reference=pairs[0][1])
        assert server.prompt_of(body).endswith(
            "Question A: Which planet? [scenario:verdict]\nQuestion B: What planet?")
        # the answers are stored under this key: a re-run asks nothing
        with CallCache(tmp_path / "calls.sqlite") as cache:
            key = cache_key({"purpose": "audit.contamination.judge", "adapter": "openai",
                             "identity": {"model": "judge-model"},
                             "prompt": server.prompt_of(body), "temperature": 0.0})
            assert cache.get(key).response == "Yes, the same."
        assert judge_pairs(params, "judge", pairs) == verdicts and server.count() == 2
        # a model allowing fewer than 16 tokens keeps its own limit
        server.verdicts = ["yes"]
        judge_pairs(_judge_params(tmp_path, server.url, max_tokens=8), "judge",
                    [("Which star? [scenario:verdict]", "What star?")])
        assert server.requests[-1]["body"]["max_tokens"] == 8


def test_judge_failed_call_is_an_error_verdict_and_no_pairs_ask_nothing(tmp_path):
    with FakeOpenAI() as server:
        params = _judge_params(tmp_path, server.url)
        [failed] = judge_pairs(params, "judge", [("a [scenario:503]", "b")])
        assert failed.rephrase is None and failed.response is None
        assert failed.error == "HTTP 503 (gave up after 1 attempts)"
        assert judge_pairs(params, "judge", []) == [] and server.count() == 1
        assert not (tmp_path / "calls.sqlite").exists() or server.count() == 1


def test_judge_unknown_model_names_the_params_file(tmp_path):
    with pytest.raises(ConfigError, match=r"^my.yaml: .*no model named 'nobody'"):
        judge_pairs(_judge_params(tmp_path, "http://127.0.0.1:9/v1"), "nobody", [("a", "b")],
                    source="my.yaml")
    # checked before anything is asked, even with no pairs
    with pytest.raises(ConfigError):
        judge_pairs(_judge_params(tmp_path, "http://127.0.0.1:9/v1"), "nobody", [])


def test_a_disabled_judge_is_refused_before_anything_is_asked(tmp_path):
    with FakeOpenAI() as server:
        params = _judge_params(tmp_path, server.url, enabled=False)
        for pairs in ([("a", "b")], []):
            with pytest.raises(ConfigError, match=r"^my.yaml: models.judge: model 'judge' is "
                                                  r"disabled"):
                judge_pairs(params, "judge", pairs, source="my.yaml")
        assert server.count() == 0


def test_judge_settings_errors_name_the_params_file(tmp_path):
    models = _models("http://127.0.0.1:9/v1")
    for eval_section, message in [
            ({"cache": 5}, r"^my.yaml: eval.cache: expected a file path"),
            ({"cache": str(tmp_path / "c.sqlite"), "budget": {"max_requests": -1}},
             r"^my.yaml: eval.budget.max_requests: ")]:
        with pytest.raises(ConfigError, match=message):
            judge_pairs({"models": models, "eval": eval_section}, "judge", [("a", "b")],
                        source="my.yaml")
    # without a source: params.yaml
    with pytest.raises(ConfigError, match=r"^params.yaml: .*no model named 'nobody'"):
        judge_pairs({"models": models}, "nobody", [("a", "b")])


def test_judge_budget_leaves_the_rest_unasked(tmp_path):
    with FakeOpenAI() as server:
        server.verdicts = ["yes", "yes"]
        params = _judge_params(tmp_path, server.url)
        params["eval"]["budget"] = {"max_requests": 1}
        first, second = judge_pairs(params, "judge", [("a [scenario:verdict]", "b"),
                                                      ("c [scenario:verdict]", "d")])
        assert server.count() == 1 and first.rephrase is True
        assert second.rephrase is None and second.error == ("budget exhausted (max_requests 1 "
                                                            "reached)")


def test_a_local_judge_is_asked_a_yes_no_question(tmp_path):
    # the `random` adapter answers in the form of the request's task: "Yes." / "No." for
    # yesno (a vocabulary word for any other task, which would parse as no verdict)
    params = {"models": {"judge": {"adapter": "random", "model": "r", "seed": 3}},
              "eval": {"cache": str(tmp_path / "c.sqlite")}}
    verdicts = judge_pairs(params, "judge", [("a", "b"), ("c", "d")])
    assert [(v.rephrase, v.response) for v in verdicts] == [(False, "No."), (False, "No.")]
    # cached under the adapter's name and identity
    with CallCache(tmp_path / "c.sqlite") as cache:
        key = cache_key({"purpose": "audit.contamination.judge", "adapter": "random",
                         "identity": {"local": RANDOM_VERSION, "seed": 3},
                         "prompt": JUDGE_PROMPT.format(item="a", reference="b"),
                         "temperature": 0.0})
        assert cache.get(key).response == "No."


def test_verdict_evidence_without_a_response():
    assert Verdict(True).evidence("m") == {"judge": "m", "judge_verdict": "rephrase",
                                           "judge_response": ""}
