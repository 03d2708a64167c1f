"""bench_kit: build, audit, version and evaluate vision-language-model benchmarks."""

import logging

__version__ = "0.1.0"

# Every module logs to `logging.getLogger(__name__)` (a child of this one). Quiet by default:
# nothing is printed unless the application configures logging (`bench-kit --verbose`).
logging.getLogger(__name__).addHandler(logging.NullHandler())
