"""The rare-token match of `contamination.embedding` through a per-partition token index.

The local check (`contamination_rephrase.lexical_candidates`) scores every reference row
that shares any content token with an item, so its cost is rows × items when common
tokens are shared by most rows. A partitioned reference stores each row's content tokens
and entities (`tokens`, `entities`: `text_features` of the row, computed at build time),
so a worker can answer the same question — per item, the first row of highest
`weighted_overlap` — by looking tokens up, rarest first, and stopping when no unseen row
can reach the best overlap found so far:

a row whose shared tokens all lie in the item's remaining (commoner) tokens R scores at
most `(A_R + min(W_b, X_R)) / (W_a + W_b)`, with A_R the item's weight of R, X_R the
largest weight any row of the partition gives R's tokens, W_a and W_b the two rows' total
weights (the Dice overlap grows with the shared weight, at most min(W_b, X_R) on the
row's side). Rows whose bound is below the best are never scored; the rest are scored by
the local `weighted_overlap` itself, and ties go to the first row, so the answer equals
the scan's (tests/audit/test_rare_tokens.py compares both).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from bench_kit.audit.contamination_rephrase import (
    Idf,
    TextFeatures,
    text_features,
    weighted_overlap,
)

# Bounds are summed in another order than weighted_overlap sums; only a row whose bound is
# below the best by more than this is skipped.
_SLACK = 1e-9


def row_features(original: str | None, question: str) -> TextFeatures:
    """The features the local check computes for a reference row (its original text)."""
    return text_features(original or question)


def token_columns(rows: Sequence[dict[str, Any]]) -> dict[str, list[list[str]]]:
    """The `tokens` and `entities` columns of a partition (sorted, per row)."""
    features = [row_features(row.get("original"), row["question"]) for row in rows]
    return {"tokens": [sorted(f.tokens) for f in features],
            "entities": [sorted(f.entities) for f in features]}


def document_counts(table: Any) -> tuple[int, dict[str, int]]:
    """(rows, token -> rows holding it) from a partition's `tokens` column."""
    import pyarrow.compute as pc

    counts = pc.value_counts(pc.list_flatten(table.column("tokens")))
    return table.num_rows, dict(zip(counts.field("values").to_pylist(),
                                    counts.field("counts").to_pylist()))


class TokenIndex:
    """Inverted lists of one partition's tokens, with the weights the bounds need."""

    def __init__(self, table: Any, idf: Idf, boost: float) -> None:
        import numpy as np
        import pyarrow.compute as pc

        tokens = table.column("tokens").combine_chunks()
        encoded = pc.list_flatten(tokens).dictionary_encode()
        self.codes = np.asarray(encoded.indices, dtype=np.int64)
        parents = np.asarray(pc.list_parent_indices(tokens), dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(np.bincount(
            parents, minlength=table.num_rows))]).astype(np.int64)
        self.code = {token: n for n, token in enumerate(encoded.dictionary.to_pylist())}
        idf_of = np.array([idf(token) for token in self.code], dtype=np.float64)
        entities = table.column("entities").combine_chunks()
        entity_keys = np.array(
            [row * len(self.code) + self.code[token] for row, token in
             zip(np.asarray(pc.list_parent_indices(entities)).tolist(),
                 pc.list_flatten(entities).to_pylist())], dtype=np.int64)
        is_entity = np.isin(parents * len(self.code) + self.codes, entity_keys)
        self.weights = idf_of[self.codes] * np.where(is_entity, boost, 1.0)
        self.row_weight = np.bincount(parents, self.weights, minlength=table.num_rows)
        self.max_weight = np.zeros(len(self.code))
        np.maximum.at(self.max_weight, self.codes, self.weights)
        order = np.argsort(self.codes, kind="stable")  # rows ascending within each token
        self.rows = parents[order]
        self.starts = np.searchsorted(self.codes[order], np.arange(len(self.code) + 1))

    def postings(self, token: str) -> Any:
        """The rows holding `token`, ascending."""
        code = self.code[token]
        return self.rows[self.starts[code]:self.starts[code + 1]]

    def shared_weight(self, rows: Any, codes: Any, weights: Any) -> Any:
        """Per row of `rows`: the summed weight (item's + row's) of the tokens it shares with
        an item of token `codes` (sorted) and `weights` — the numerator of the overlap."""
        import numpy as np

        lengths = self.offsets[rows + 1] - self.offsets[rows]
        owner = np.repeat(np.arange(len(rows)), lengths)
        flat = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths) \
            + np.repeat(self.offsets[rows], lengths)
        found = np.searchsorted(codes, self.codes[flat]).clip(max=len(codes) - 1)
        hit = codes[found] == self.codes[flat]
        return np.bincount(owner, np.where(hit, weights[found] + self.weights[flat], 0.0),
                           minlength=len(rows))


def _item_weight(item: TextFeatures, idf: Idf, boost: float) -> Callable[[str], float]:
    return lambda token: idf(token) * (boost if token in item.entities else 1.0)


def indexed_lexical_candidates(items: Sequence[TextFeatures], table: Any, idf: Idf,
                               boost: float) -> list[tuple[int, float]]:
    """`lexical_candidates(items, <the partition's rows>, idf, boost)`, through the index:
    for each item the row (index, overlap) of largest IDF overlap, first row on ties.

    Rows are scored with numpy (a sum in another order than `weighted_overlap`'s); the rows
    within `_SLACK` of the best are then scored by `weighted_overlap` itself."""
    import numpy as np

    index = TokenIndex(table, idf, boost)
    originals = table.column("original").to_pylist()
    questions = table.column("question").to_pylist()
    out = []
    for item in items:
        weight = _item_weight(item, idf, boost)
        total = sum(weight(t) for t in item.tokens)
        shared = sorted((t for t in item.tokens if t in index.code),
                        key=lambda t: (-weight(t), t))  # rarest (heaviest) first
        codes = np.array(sorted(index.code[t] for t in shared), dtype=np.int64)
        by_code = {index.code[t]: weight(t) for t in shared}
        code_weights = np.array([by_code[c] for c in codes.tolist()])
        rest_item = [0.0] * (len(shared) + 1)  # A_R and X_R of shared[j:]
        rest_ref = [0.0] * (len(shared) + 1)
        for j in range(len(shared) - 1, -1, -1):
            rest_item[j] = rest_item[j + 1] + weight(shared[j])
            rest_ref[j] = rest_ref[j + 1] + float(index.max_weight[index.code[shared[j]]])
        best = 0.0
        scored_rows, scored_values = [], []
        seen = np.zeros(table.num_rows, dtype=bool)
        for j, token in enumerate(shared):
            a_rest, x_rest = rest_item[j], rest_ref[j]
            if best > 0 and (a_rest + x_rest) / (total + x_rest) < best - _SLACK:
                break  # no unseen row can reach the best
            rows = index.postings(token)
            rows = rows[~seen[rows]]
            seen[rows] = True  # a row skipped here is below the best for good
            if best > 0:
                w_b = index.row_weight[rows]
                rows = rows[(a_rest + np.minimum(w_b, x_rest)) / (total + w_b)
                            >= best - _SLACK]
            if len(rows):
                values = index.shared_weight(rows, codes, code_weights) / \
                    (total + index.row_weight[rows])
                best = max(best, float(values.max()))
                scored_rows.append(rows)
                scored_values.append(values)
        best_row, best_value = -1, 0.0
        if best > 0:
            rows = np.concatenate(scored_rows)
            near = np.sort(rows[np.concatenate(scored_values) >= best - _SLACK])
            for row in near.tolist():  # the local check's own score, first row on ties
                value = weighted_overlap(item, row_features(originals[row], questions[row]),
                                         idf, boost)
                if value > best_value:
                    best_row, best_value = row, value
        out.append((best_row, best_value))
    return out
