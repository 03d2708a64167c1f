"""Model adapters, registered by name in `ADAPTERS` (params: `models.<name>.adapter`).

Importing this package is cheap: httpx, torch and the OCR engine load on first use.
"""

from __future__ import annotations

# Registration happens on import; these modules import their heavy libraries lazily.
from bench_kit.models.adapters import (  # noqa: E402
                                                anthropic,
                                                chance,
                                                gemini,
                                                ocr,
                                                ollama,
                                                openai_compat,
                                                prior,
                                                text_only,
)
from bench_kit.models.adapters.contract import (
                                                Adapter,
                                                AdapterContext,
                                                ImageInput,
                                                ModelRequest,
                                                ModelResponse,
)
from bench_kit.models.adapters.registry import ADAPTERS, build_adapter

__all__ = ["ADAPTERS", "Adapter", "AdapterContext", "ImageInput", "ModelRequest",
           "ModelResponse", "anthropic", "build_adapter", "chance", "gemini", "ocr", "ollama",
           "openai_compat", "prior", "text_only"]
