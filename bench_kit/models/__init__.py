"""bench_kit.models."""
