"""The embedding contamination check on its edges (bench_kit/audit/contamination_embed.py),
fast: the vectors are given by hand through a real `/v1/embeddings` server on 127.0.0.1
(the `openai` embedding backend), the judge of the review band is a real chat-completions
server (tests/openai_server.py). The vectors are chosen so that every cosine is exact in
float32 (norms that are powers of two): e0 against (3, 2, 1, 1, 1) / 4 is exactly 0.75,
against (1, 1, 1, 1) / 2 exactly 0.5, against (1, 3, 2, 1, 1) / 4 exactly 0.25; a threshold
set to such a value is met exactly (>= vs >). The judge's own requests are in
test_contamination_judge_boundaries.py, the end-to-end audits with the real model in
test_contamination.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import make_item
from embedding_server import FakeEmbeddings
from openai_server import FakeOpenAI

from bench_kit.audit import contamination_embed as ce
from bench_kit.audit.content import TEMPLATE_ASK
from bench_kit.audit.reference import build_reference, open_reference
from bench_kit.audit.registry import AuditContext, spec_of
from bench_kit.audit.stage import list_checks
from bench_kit.errors import ConfigError
from bench_kit.types import Item

list_checks()  # registers the built-in checks

DIM = 16


def vec(**parts: float) -> list[float]:
    """A DIM-long vector from `e3=2.0`-style components."""
    out = [0.0] * DIM
    for name, value in parts.items():
        out[int(name[1:])] = value
    return out


class Vectors(FakeEmbeddings):
    """`/v1/embeddings` (model `vec`) answering each input with the vector of the longest
    key of `table` it contains; an input matching no key fails the test's request."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table
        super().__init__(model="vec")

    def vectors_of(self, texts: list[str]) -> Any:
        return np.array([self.table[max((k for k in self.table if k in text), key=len)]
                         for text in texts], dtype="float32")


def _models(url: str) -> dict[str, Any]:
    return {"judge": {"adapter": "openai", "model": "judge-model", "base_url": url,
                      "backoff_s": 0.0, "max_retries": 0, "concurrency": 1}}


def _context(tmp_path: Path, items: list[dict], refs: list[dict], vectors: Vectors,
             judge_url: str | None = None) -> AuditContext:
    source = tmp_path / "ref_src.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in refs), encoding="utf-8")
    build_reference([source], tmp_path / "ref.jsonl")
    params: dict[str, Any] = {"embed": {"backend": "openai", "model": "vec", "cache": None,
                                        "base_url": vectors.url, "max_retries": 0,
                                        "backoff_s": 0.0}}
    if judge_url:
        params["models"] = _models(judge_url)
        params["eval"] = {"cache": str(tmp_path / "calls.sqlite")}
    return AuditContext(items=[Item.model_validate(row) for row in items], root=tmp_path,
                        references=open_reference([tmp_path / "ref.jsonl"]), params=params)


def _run(ctx: AuditContext, **settings: Any) -> dict[str, Any]:
    spec = spec_of("contamination.embedding")
    params = spec.params(contamination={"cache_dir": None, **settings})
    return {f.id: f for f in spec.run(ctx, params)}


def _open(id_: str, question: str, **kw: Any) -> dict:
    return make_item(id=id_, question=question, task="open", answers=["x"], **kw)


# Cosines only: the combined thresholds at 2.0 cannot be reached (at most 0.8 + 0.5 + 0.15)
COSINE_ONLY = {"rephrase": 0.75, "review": 0.5, "rephrase_combined": 2.0,
               "review_combined": 2.0}

# Each item and its reference row in their own dimensions (cross cosines 0); each pair
# shares one name (Zanzibar, Lhasa, Quito), so the specific-token rule keeps the severity.
BAND_ITEMS = [_open("on_rephrase", "Which river flows past Zanzibar town?"),
              _open("on_review", "Which mountain overlooks Lhasa valley?"),
              _open("below", "Which volcano stands near Quito airport?")]
BAND_REFS = [{"id": "r_rephrase", "question": "What river runs by Zanzibar?"},
             {"id": "r_review", "question": "What mountain towers over Lhasa?"},
             {"id": "r_below", "question": "What volcano is close to Quito?"}]
BAND_VECTORS = {"zanzibar town": vec(e0=1), "runs by zanzibar": vec(e0=3, e1=2, e2=1, e3=1, e4=1),
                "lhasa valley": vec(e5=1), "towers over lhasa": vec(e5=1, e6=1, e7=1, e8=1),
                "quito airport": vec(e9=1), "close to quito": vec(e9=1, e10=3, e11=2, e12=1,
                                                                  e13=1)}


def test_cosine_bands_are_inclusive(tmp_path):
    with Vectors(BAND_VECTORS) as vectors:
        ctx = _context(tmp_path, BAND_ITEMS, BAND_REFS, vectors)
        found = _run(ctx, **COSINE_ONLY)
    # 0.75 = rephrase: a rephrase (warn); 0.5 = review: review (info); 0.25: nothing
    assert set(found) == {"on_rephrase", "on_review"}
    rephrase, review = found["on_rephrase"], found["on_review"]
    assert rephrase.severity == "warn" and rephrase.evidence["verdict"] == "rephrase"
    assert rephrase.evidence["cosine"] == 0.75 and rephrase.evidence["ref_id"] == "r_rephrase"
    assert review.severity == "info" and review.evidence["verdict"] == "review"
    assert review.evidence["cosine"] == 0.5
    assert review.message.endswith(ce.REVIEW_ASK)
    assert not rephrase.message.endswith(ce.REVIEW_ASK)
    # the message, the evidence and the notes name the embedder
    assert list(found) == ["on_rephrase", "on_review"]          # by item id, not by text
    assert rephrase.message == ("rephrase: nearest reference 'r_rephrase' (ref_src.jsonl) at "
                                "cosine 0.750, combined 0.867 (shares river, zanzibar)")
    assert rephrase.evidence["model"] == "openai:vec"
    assert ctx.notes["contamination.embedding"]["embedder"] == "openai:vec"
    # IDF over the 3 reference rows: a token in one row ln(4/2) + 1 = 1.6931, a token in
    # none ln(4/1) + 1 = 2.3863; Zanzibar (a name) counts twice. Item: river 1.6931, flow,
    # past, town 2.3863 each, zanzibar 3.3863 = 12.2383; reference: river, run 1.6931 each,
    # zanzibar 3.3863 = 6.7726; shared (both sides) 2 * 1.6931 + 2 * 3.3863 = 10.1589;
    # overlap 10.1589 / 19.0108 = 0.5344, combined 0.8 * 0.75 + 0.5 * 0.5344 = 0.8672
    pair = rephrase.evidence
    assert pair["overlap"] == 0.5344 and pair["combined"] == 0.8672
    assert rephrase.score == 0.8672 and pair["score"] == 0.8672
    assert pair["numbers"] is None and pair["contrasts"] == []
    # equal IDF: alphabetical
    assert pair["shared_rare"] == ["river", "zanzibar"]
    assert "combined 0.867 (shares river, zanzibar)" in rephrase.message


def test_the_score_is_the_combined_score_clamped_to_0_1(tmp_path):
    # "capital", "zanzibar" on both sides: overlap 1, combined 0.8 * 0.75 + 0.5 = 1.1 -> 1;
    # left/right differ and nothing is shared: 0.8 * 0.25 - 0.4 = -0.2 -> 0
    items = [_open("high", "What is the capital of Zanzibar?"),
             _open("low", "Which left door?")]
    refs = [{"id": "r_high", "question": "Zanzibar capital"},
            {"id": "r_low", "question": "Which right window?"}]
    table = {"capital of zanzibar": vec(e0=1), "zanzibar capital": vec(e0=3, e1=2, e2=1, e3=1,
                                                                       e4=1),
             "left door": vec(e5=1), "right window": vec(e5=1, e6=3, e7=2, e8=1, e9=1)}
    with Vectors(table) as vectors:
        found = _run(_context(tmp_path, items, refs, vectors), rephrase=1.0, review=0.25,
                     rephrase_combined=2.0, review_combined=2.0)
    high, low = found["high"], found["low"]
    assert high.evidence["combined"] == 1.1 and high.score == 1.0 and high.evidence["score"] == 1.0
    assert low.evidence["combined"] == -0.2 and low.score == 0.0 and low.evidence["score"] == 0.0
    assert low.evidence["contrasts"] == ["position"]
    assert low.message == ("review: nearest reference 'r_low' (ref_src.jsonl) at cosine "
                           "0.250, combined -0.200" + ce.REVIEW_ASK)


def test_a_rephrase_sharing_nothing_specific_is_demoted_and_a_template_is_info(tmp_path):
    # cosine 0.75 = rephrase, but no token in common: the text cannot show a copy (info);
    # "tpl" has the same text as another item with another image: a template (info)
    items = [_open("bare", "Which left door?"),
             make_item(id="tpl", question="Which river passes Zanzibar town?", task="open",
                       answers=["x"], image="a.png"),
             make_item(id="tpl_other", question="Which river passes Zanzibar town?",
                       task="open", answers=["x"], image="b.png")]
    refs = [{"id": "r_bare", "question": "Which right window?"},
            {"id": "r_tpl", "question": "What river runs by Zanzibar?"}]
    table = {"left door": vec(e0=1), "right window": vec(e0=3, e1=2, e2=1, e3=1, e4=1),
             "zanzibar town": vec(e5=1), "runs by zanzibar": vec(e5=3, e6=2, e7=1, e8=1, e9=1)}
    with Vectors(table) as vectors:
        found = _run(_context(tmp_path, items, refs, vectors), **COSINE_ONLY)
    bare = found["bare"]
    assert bare.severity == "info" and bare.evidence["verdict"] == "rephrase"
    assert bare.evidence["text_cannot_show"].startswith("generic question")
    assert bare.evidence["severity_without_rule"] == "warn"
    tpl = found["tpl"]
    assert tpl.severity == "info" and tpl.evidence["severity_without_template"] == "warn"
    assert tpl.evidence["template_siblings"] == 1
    assert tpl.message.endswith(" (shares river, zanzibar)" + TEMPLATE_ASK)


def test_the_message_names_four_shared_tokens(tmp_path):
    question = "Which Oslo Bergen Tromso Narvik Alta?"      # five names, all shared
    with Vectors({"oslo bergen": vec(e0=1), "alta narvik": vec(e0=3, e1=2, e2=1, e3=1,
                                                               e4=1)}) as vectors:
        [found] = _run(_context(tmp_path, [_open("q", question)],
                                [{"id": "r", "question": "Alta Narvik Tromso Bergen Oslo"}],
                                vectors), **COSINE_ONLY).values()
    # equal IDF: alphabetical; six kept in the evidence, four in the message
    assert found.evidence["shared_rare"] == ["alta", "bergen", "narvik", "oslo", "tromso"]
    assert found.message.endswith("(shares alta, bergen, narvik, oslo)")


def test_a_higher_review_threshold_drops_the_pair_and_the_rephrase_threshold_moves(tmp_path):
    with Vectors(BAND_VECTORS) as vectors:
        ctx = _context(tmp_path, BAND_ITEMS, BAND_REFS, vectors)
        # review 0.25: the third pair joins the band; rephrase 0.5: the second is a rephrase
        found = _run(ctx, rephrase=0.5, review=0.25, rephrase_combined=2.0,
                     review_combined=2.0)
    assert {k: f.evidence["verdict"] for k, f in found.items()} == {
        "on_rephrase": "rephrase", "on_review": "rephrase", "below": "review"}


# Same content tokens on both sides (stop words differ), no numbers, no contrasts: the
# overlap is exactly 1, so combined = 0.8 * cosine + 0.5 (cosine 0.5 -> 0.9, 0.25 -> 0.7).
COMBINED_ITEMS = [_open("strong", "What is the capital of Zanzibar?"),
                  _open("weak", "Which currency does Lhasa use?")]
COMBINED_REFS = [{"id": "r_strong", "question": "Zanzibar capital"},
                 {"id": "r_weak", "question": "Lhasa currency use"}]
COMBINED_VECTORS = {"capital of zanzibar": vec(e0=1), "zanzibar capital": vec(e0=1, e1=1, e2=1,
                                                                              e3=1),
                    "currency does lhasa": vec(e5=1),
                    "lhasa currency": vec(e5=1, e6=3, e7=2, e8=1, e9=1)}


def test_combined_bands_are_inclusive(tmp_path):
    with Vectors(COMBINED_VECTORS) as vectors:
        ctx = _context(tmp_path, COMBINED_ITEMS, COMBINED_REFS, vectors)
        found = _run(ctx, rephrase=1.0, review=1.0, rephrase_combined=0.9,
                     review_combined=0.7)
        assert found["strong"].evidence["combined"] == 0.9
        assert found["strong"].evidence["overlap"] == 1.0
        assert found["strong"].evidence["verdict"] == "rephrase (evidence)"
        assert found["strong"].severity == "warn" and found["strong"].score == 0.9
        assert found["weak"].evidence["combined"] == 0.7
        assert found["weak"].evidence["verdict"] == "review"
        assert found["weak"].severity == "info"
        # just above each: the strong pair is review only, the weak one is not flagged
        found = _run(ctx, rephrase=1.0, review=1.0, rephrase_combined=0.91,
                     review_combined=0.71)
    assert {k: f.evidence["verdict"] for k, f in found.items()} == {"strong": "review"}


def test_the_lexical_candidate_beats_a_closer_vector_on_the_combined_score(tmp_path):
    # the embedding top-1 (cosine 0.75) shares no token with the item; the second row
    # (cosine 0.5) shares both content tokens: combined 0.6 against 0.8 * 0.5 + 0.5 = 0.9
    # (the lexical row first: row 0 is a candidate like any other)
    items = [_open("q", "What is the capital of Zanzibar?")]
    refs = [{"id": "same_words", "question": "Zanzibar capital"},
            {"id": "close_vector", "question": "Which harbour hosts ferries?"}]
    table = {"capital of zanzibar": vec(e0=1),
             "harbour hosts": vec(e0=3, e1=2, e2=1, e3=1, e4=1),
             "zanzibar capital": vec(e0=1, e5=1, e6=1, e7=1)}
    with Vectors(table) as vectors:
        found = _run(_context(tmp_path, items, refs, vectors), rephrase=1.0, review=1.0,
                     rephrase_combined=0.9, review_combined=0.5)
    assert found["q"].evidence["ref_id"] == "same_words"
    assert found["q"].evidence["cosine"] == 0.5 and found["q"].evidence["combined"] == 0.9


def test_the_judge_decides_only_the_review_band(tmp_path):
    items = [*BAND_ITEMS[:2],
             make_item(id="on_review_no", question="Which lake lies beside Quito airport?",
                       task="mc", choices={"B": "Cotopaxi", "A": "Cuicocha"}, answers=["A"])]
    refs = [*BAND_REFS[:2], {"id": "r_no", "question": "What lake is close to Quito?",
                             "choices": ["Cuicocha", "Titicaca"]}]
    table = {**BAND_VECTORS, "lies beside quito": vec(e9=1),
             "lake is close to quito": vec(e9=1, e10=1, e11=1, e12=1)}
    with Vectors(table) as vectors, FakeOpenAI() as judge:
        judge.verdicts = ["Yes.", "no"]
        ctx = _context(tmp_path, items, [{**r, "question": r["question"] + " [scenario:verdict]"}
                                         for r in refs], vectors, judge.url)
        found = _run(ctx, judge="judge", **COSINE_ONLY)
        # two review pairs asked, in item-id order of the review list; the rephrase not
        assert judge.count() == 2
        prompts = [judge.prompt_of(r["body"]) for r in judge.requests]
    assert found["on_rephrase"].evidence["verdict"] == "rephrase"
    assert "judge" not in found["on_rephrase"].evidence
    yes, no = found["on_review"], found["on_review_no"]
    assert yes.evidence["verdict"] == "rephrase (judge)" and yes.severity == "warn"
    assert yes.evidence["judge"] == "judge" and yes.evidence["judge_verdict"] == "rephrase"
    assert no.evidence["verdict"] == "review" and no.severity == "info"
    assert no.evidence["judge_verdict"] == "different" and no.evidence["judge_response"] == "no"
    # the judge sees the item's question and the reference's original text with its options
    assert "Question A: Which mountain overlooks Lhasa valley?\n" in prompts[0]
    assert "Question A: Which lake lies beside Quito airport? (A) Cuicocha (B) Cotopaxi\n" \
        in prompts[1]
    assert prompts[1].endswith("Question B: What lake is close to Quito? [scenario:verdict] "
                               "Cuicocha Titicaca")


def test_a_candidate_is_either_the_vector_or_the_lexical_neighbour(tmp_path):
    # no reference row shares a token with the item (no lexical candidate): only the
    # embedding top-1 (cosine 0.75, left/right contrast: 0.6 - 0.4 = 0.2) is scored, not
    # the last row (cosine 0.5, combined 0.4 > 0.2, but not a candidate)
    items = [_open("q", "Which left door?")]
    refs = [{"id": "top", "question": "Which right window?"},
            {"id": "last", "question": "Which garden gate?"}]
    table = {"left door": vec(e0=1), "right window": vec(e0=3, e1=2, e2=1, e3=1, e4=1),
             "garden gate": vec(e0=1, e5=1, e6=1, e7=1)}
    with Vectors(table) as vectors:
        found = _run(_context(tmp_path, items, refs, vectors), rephrase=1.0, review=0.75,
                     rephrase_combined=2.0, review_combined=2.0)
    assert found["q"].evidence["ref_id"] == "top" and found["q"].evidence["combined"] == 0.2


def test_a_bad_embed_section_names_the_params_file(tmp_path):
    with Vectors(BAND_VECTORS) as vectors:
        ctx = _context(tmp_path, BAND_ITEMS, BAND_REFS, vectors)
        ctx.params["embed"]["bogus"] = 1
        ctx.params_source = "my.yaml"
        with pytest.raises(ConfigError, match=r"^my.yaml: embed.bogus: unknown key"):
            _run(ctx, **COSINE_ONLY)


def test_an_unknown_judge_names_the_params_file(tmp_path):
    with Vectors(BAND_VECTORS) as vectors, FakeOpenAI() as judge:
        ctx = _context(tmp_path, BAND_ITEMS, BAND_REFS, vectors, judge.url)
        ctx.params_source = "my.yaml"
        with pytest.raises(ConfigError, match=r"^my.yaml: .*no model named 'nobody'"):
            _run(ctx, judge="nobody", **COSINE_ONLY)


def test_embeddings_are_cached_under_corpus_texts_and_model(tmp_path):
    seen: list[tuple] = []
    cache = str(tmp_path / "cache")
    with Vectors(BAND_VECTORS) as vectors:
        ctx = _context(tmp_path, BAND_ITEMS, BAND_REFS, vectors)
        ctx.progress = lambda *a: seen.append(a)
        first = _run(ctx, cache_dir=cache, **COSINE_ONLY)
        assert seen == [("embedding reference", 3, 3), ("embedding items", 3, 3)]
        assert len(vectors.inputs) == 6
        again = _run(_context(tmp_path, BAND_ITEMS, BAND_REFS, vectors), cache_dir=cache,
                     **COSINE_ONLY)
        assert len(vectors.inputs) == 6                    # nothing encoded again
        assert {k: f.evidence for k, f in again.items()} == {
            k: f.evidence for k, f in first.items()}
        # another reference: its rows encoded, the items' vectors reused
        other = [*BAND_REFS[:2], {"id": "r_new", "question": "What volcano is close to Quito?"
                                                           " Today"}]
        _run(_context(tmp_path, BAND_ITEMS, other, vectors), cache_dir=cache, **COSINE_ONLY)
        assert len(vectors.inputs) == 9
        # other items: the items encoded, the reference's vectors reused
        _run(_context(tmp_path, BAND_ITEMS[:2], other, vectors), cache_dir=cache,
             **COSINE_ONLY)
        assert len(vectors.inputs) == 11
    # another embedding model: everything encoded again
    with Vectors(BAND_VECTORS) as renamed:
        renamed.model = "vec2"
        ctx = _context(tmp_path, BAND_ITEMS, BAND_REFS, renamed)
        ctx.params["embed"]["model"] = "vec2"
        _run(ctx, cache_dir=cache, **COSINE_ONLY)
        assert len(renamed.inputs) == 6


@pytest.fixture
def one_omp_thread():
    """faiss on one OpenMP thread: its thread pool does not survive a fork (mutation testing
    forks a process per mutant after running this test once), and 300 rows need no more."""
    faiss = pytest.importorskip("faiss")
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    yield
    faiss.omp_set_num_threads(threads)


def test_a_large_reference_goes_through_the_faiss_index_saved_in_the_cache(tmp_path,
                                                                           one_omp_thread):
    # 300 rows (faiss needs at least 256 to train its 256 lists): row 7 at cosine 0.75,
    # the others in dimensions the item does not use
    items = [_open("q", "Which river flows past Zanzibar town?")]
    refs = [{"id": f"r{k}", "question": f"Filler question {k} end"} for k in range(300)]
    refs[7] = {"id": "r7", "question": "What river runs by Zanzibar?"}
    table = {f"question {k} end": vec(**{f"e{6 + k % 10}": 1.0, f"e{6 + (k + 3) % 10}": 0.5})
             for k in range(300)}
    table.update({"zanzibar town": vec(e0=1), "runs by zanzibar": vec(e0=3, e1=2, e2=1,
                                                                      e3=1, e4=1)})
    cache = tmp_path / "cache"
    with Vectors(table) as vectors:
        ctx = _context(tmp_path, items, refs, vectors)
        found = _run(ctx, cache_dir=str(cache), index_exact_below=300, index_nprobe=8,
                     **COSINE_ONLY)
        notes = ctx.notes["contamination.embedding"]
        assert notes["method"] == "faiss" and notes["nprobe"] == 8 and notes["corpus"] == 300
        assert found["q"].evidence["ref_id"] == "r7" and found["q"].evidence["cosine"] == 0.75
        assert len(list(cache.glob("ivf-*.faiss"))) == 1
        # another corpus of the same size: its own index, not the first one's
        refs[7] = {"id": "r7", "question": "What river runs by Zanzibar today?"}
        table["runs by zanzibar today"] = table["runs by zanzibar"]
        ctx = _context(tmp_path, items, refs, vectors)
        _run(ctx, cache_dir=str(cache), index_exact_below=300, index_nprobe=8, **COSINE_ONLY)
        assert len(list(cache.glob("ivf-*.faiss"))) == 2
    # another embedder over the same corpus: its own index too
    with Vectors(table) as renamed:
        renamed.model = "vec2"
        ctx = _context(tmp_path, items, refs, renamed)
        ctx.params["embed"]["model"] = "vec2"
        _run(ctx, cache_dir=str(cache), index_exact_below=300, index_nprobe=8, **COSINE_ONLY)
        assert len(list(cache.glob("ivf-*.faiss"))) == 3
    with Vectors(table) as vectors:
        # 299 rows: below index_exact_below, exact search
        ctx = _context(tmp_path, items, refs[:299], vectors)
        _run(ctx, cache_dir=None, index_exact_below=300, **COSINE_ONLY)
        assert ctx.notes["contamination.embedding"]["method"] == "exact"


def test_without_a_judge_nothing_is_asked_and_review_stays_info(tmp_path):
    with Vectors(BAND_VECTORS) as vectors, FakeOpenAI() as judge:
        ctx = _context(tmp_path, BAND_ITEMS, BAND_REFS, vectors, judge.url)
        found = _run(ctx, **COSINE_ONLY)
        assert judge.count() == 0
    assert found["on_review"].severity == "info" and "judge" not in found["on_review"].evidence


def test_no_items_or_no_reference_rows_find_nothing(tmp_path):
    with Vectors(BAND_VECTORS) as vectors:
        assert _run(_context(tmp_path, [_open("q", "?")], BAND_REFS, vectors)) == {}
        assert vectors.inputs == []  # nothing encoded when no item has text
