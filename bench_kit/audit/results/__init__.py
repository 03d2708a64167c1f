"""Model-based audits: what the scores of several models say about the items
(docs/AUDIT_METHODS.md).

`run.audit_results` reads `scores/<bench>/<model>/<mode>.jsonl` for every model and writes
`model_findings.jsonl` (the Finding contract of the data audits), `model_summary.json` and a
per-item table. Each analysis lives in its own module: `panel` (blind panel, MG/ML),
`disagreement`, `difficulty` (Rasch fit), `robustness`, `sensitivity`, `error_layers`,
`expansion` (candidate golds) and `quarantine`.
"""
