"""bench_kit.report."""
