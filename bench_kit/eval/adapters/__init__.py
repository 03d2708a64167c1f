"""bench_kit.eval.adapters."""
