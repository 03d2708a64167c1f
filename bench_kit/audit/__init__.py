"""bench_kit.audit."""
