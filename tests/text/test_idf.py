"""The one IDF table (bench_kit.text.idf): scikit-learn's smoothed IDF as the reference,
the postings index, and the cap on the table's size at its edges."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from bench_kit.text.idf import Idf, postings

DOCS = [["bar", "chart", "bar"], ["bar", "pie"], ["pie", "pie", "line"], ["axis"], []]


def test_weights_equal_scikit_learns_smoothed_idf() -> None:
    sklearn_text = pytest.importorskip("sklearn.feature_extraction.text")
    reference = sklearn_text.TfidfVectorizer(analyzer=lambda doc: doc, smooth_idf=True)
    reference.fit(DOCS)
    idf = Idf.fit(DOCS)
    expected = dict(zip(reference.get_feature_names_out(), reference.idf_))
    assert sorted(expected) == sorted(idf.frequency)
    for term, weight in expected.items():
        assert idf(term) == pytest.approx(float(weight), rel=1e-15), term
    # a term no document holds weighs as if one (smoothing) document held it: the most
    assert idf("unseen") == math.log(6 / 1) + 1 > max(idf(t) for t in expected)
    assert "unseen" not in idf and "bar" in idf and 3 not in idf


def test_weights_worked_by_hand() -> None:
    # 5 documents; smoothed IDF = ln((1 + 5) / (1 + df)) + 1, df = documents holding the term
    idf = Idf.fit(DOCS)
    assert idf("bar") == pytest.approx(math.log(6 / 3) + 1)    # in documents 0 and 1
    assert idf("pie") == pytest.approx(math.log(6 / 3) + 1)    # twice in document 2: df 2
    assert idf("chart") == pytest.approx(math.log(6 / 2) + 1)  # document 0 only
    assert idf("axis") == idf("line") == pytest.approx(math.log(6 / 2) + 1)
    assert idf.documents == 5


def test_postings_list_each_document_once_in_order() -> None:
    assert postings(DOCS) == {"bar": [0, 1], "chart": [0], "pie": [1, 2], "line": [2],
                              "axis": [3]}
    assert postings([]) == {}


def test_a_table_at_the_cap_is_kept_whole_and_one_past_it_drops_the_rarest() -> None:
    counts = Counter({"a": 3, "b": 2, "c": 1, "d": 1})
    assert Idf(5, counts, max_terms=4).frequency == counts  # exactly at the cap
    capped = Idf(5, Counter(counts), max_terms=3)
    # one past: of the two held by one document, the one sorting last ("d") goes
    assert capped.frequency == Counter({"a": 3, "b": 2, "c": 1})
    assert capped("d") == capped("unseen") == math.log(6) + 1
    assert capped("c") == math.log(6 / 2) + 1 and capped.documents == 5


def test_counting_cuts_the_table_back_whenever_it_doubles() -> None:
    # 7 documents of their own term each, then "a" in every other: with a cap of 2 the
    # table is cut whenever it holds 5 terms, so it never grows past 2 x the cap
    documents = [[f"t{k}", "a"] if k % 2 else [f"t{k}"] for k in range(7)]
    idf = Idf.fit(documents, max_terms=2)
    assert idf.documents == 7 and len(idf.frequency) == 2
    assert idf.frequency["a"] == 3  # every document holding "a" counted: it was never cut
    uncapped = Idf.fit(documents)
    assert uncapped.frequency["a"] == 3 and len(uncapped.frequency) == 8



def test_the_cut_while_counting_happens_and_costs_an_early_term_its_count() -> None:
    # cap 1: the table is cut when it holds 3 terms. After z, y, a (one document each) the
    # cut keeps the first by (-count, term): "a"; z, seen again last, starts over at 1 and
    # ties with "a", which sorts first. Cut only at the end, z (2 documents) would win.
    documents = [["z"], ["y"], ["a"], ["z"]]
    assert Idf.fit(documents, max_terms=1).frequency == Counter({"a": 1})
    assert Idf.fit(documents).frequency["z"] == 2  # uncapped: z in two documents
    parts = [(1, Counter({term: 1})) for [term] in documents]
    assert Idf.merged(parts, max_terms=1).frequency == Counter({"a": 1})
    assert Idf.merged(parts, max_terms=1).documents == 4


def test_the_cut_comes_when_the_table_passes_twice_the_cap_not_before() -> None:
    # cap 2: z, y, x make 3 terms, not past 2 x 2, so no cut and every count is exact: z in
    # 3 documents; the end cut keeps z and, of x and y (1 each), x. A cut at 3 terms would
    # have dropped z (1 then, and last by name) again at each of its documents.
    documents = [["z"], ["y"], ["x"], ["z"], ["z"]]
    parts = [(1, Counter({term: 1})) for [term] in documents]
    assert Idf.fit(documents, max_terms=2).frequency == Counter({"z": 3, "x": 1})
    assert Idf.merged(parts, max_terms=2).frequency == Counter({"z": 3, "x": 1})
    # cap 1: cut at 3 terms (z, a, b) to "a"; z counts again from there (2) and wins the
    # end cut. A cut at 2 terms would keep "a" every time: Counter({"a": 1}).
    documents = [["z"], ["a"], ["b"], ["z"], ["z"]]
    parts = [(1, Counter({term: 1})) for [term] in documents]
    assert Idf.fit(documents, max_terms=1).frequency == Counter({"z": 2})
    assert Idf.merged(parts, max_terms=1).frequency == Counter({"z": 2})


def test_a_term_is_in_the_table_when_one_document_holds_it() -> None:
    # held by one document: in; a part's count of 0 (a term no document holds): not in
    idf = Idf.merged([(2, Counter({"once": 1, "never": 0, "twice": 2}))])
    assert ("once" in idf, "twice" in idf, "never" in idf, 1 in idf) == (True, True, False,
                                                                         False)


def test_a_corpus_counted_in_parts_equals_one_count_and_keeps_the_cap() -> None:
    whole = Idf.fit(DOCS)
    parts = [(2, Counter({"bar": 2, "chart": 1, "pie": 1})),
             (3, Counter({"pie": 1, "line": 1, "axis": 1}))]
    merged = Idf.merged(parts)
    assert (merged.documents, merged.frequency) == (whole.documents, whole.frequency)
    # cut whenever the sum holds more than 2 x 1 terms, then to the cap itself
    capped = Idf.merged(parts, max_terms=1)
    assert capped.frequency == Counter({"bar": 2}) and capped.documents == 5
