"""`random`: seeded chance — the floor every real model must beat.

The generator is seeded from the config seed, the item id and the rotation, so an item's
guess never depends on which other items run or in what order.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from bench_kit.models.adapters.contract import ModelRequest, ModelResponse
from bench_kit.models.adapters.local_common import (
    VOCABULARY,
    LocalAdapter,
    say_box,
    say_checklist,
    say_choice,
    say_value,
    say_yesno,
)
from bench_kit.models.adapters.registry import ADAPTERS

VERSION = "random/1"


def item_rng(seed: int, item_id: str, rotation: int) -> random.Random:
    """A generator that depends only on (seed, item id, rotation)."""
    digest = hashlib.sha256(f"{seed}|{item_id}|{rotation}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def random_box(rng: random.Random, width: int, height: int) -> tuple[int, int, int, int]:
    """A box with at least one pixel of extent, inside a width x height image."""
    x1, y1 = rng.randrange(0, max(width - 1, 1)), rng.randrange(0, max(height - 1, 1))
    x2, y2 = rng.randint(x1 + 1, max(width, x1 + 1)), rng.randint(y1 + 1, max(height, y1 + 1))
    return x1, y1, x2, y2


@ADAPTERS.register("random")
class RandomAdapter(LocalAdapter):
    """Uniform guesses: a letter, yes/no, 0-10, a box inside the image, a vocabulary word."""

    per_item = True
    offload = False

    def identity(self) -> dict[str, Any]:
        """Algorithm version and seed."""
        return {"local": VERSION, "seed": self.config.seed}

    def answer(self, request: ModelRequest) -> ModelResponse:
        """A seeded guess in the answer form of the item's task."""
        rng = item_rng(self.config.seed, request.item_id, request.rotation)
        task = request.task
        if task == "mc" and request.choices:
            text = say_choice(rng.choice(sorted(request.choices)))
        elif task == "yesno":
            text = say_yesno(rng.random() < 0.5)
        elif task == "numeric":
            text = say_value(str(rng.randint(0, 10)))
        elif task == "grounding":
            text = (say_box(random_box(rng, *request.image_size)) if request.image_size
                    else "I cannot locate it without the image.")
        elif task == "checklist":
            text = say_checklist([(rng.random() < 0.5, "a guess")
                                  for _ in request.checks or []])
        else:
            text = say_value(rng.choice(VOCABULARY))
        return ModelResponse(text=text)
