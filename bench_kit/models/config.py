"""Typed settings of one model (`models.<name>` in params.yaml) and of the eval section.

This is the one loader of the top-level `models:` section, read by `eval run`, `eval
judge`, the LLM paraphraser (`variants.paraphraser`) and the contamination judge
(`audit.contamination.judge`). A params.yaml of the old layout, with the models under
`eval.models`, is still read, with a one-line deprecation notice (docs/EVAL.md).
"""

from __future__ import annotations

import difflib
import os
import warnings
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
)

from bench_kit.errors import BenchKitWarning, ConfigError
from bench_kit.models.retry import DEFAULT_MAX_WAIT_S
from bench_kit.models.transport import DEFAULT_HTTP_CLIENT
from bench_kit.params import DEFAULT_PARAMS, section

if TYPE_CHECKING:
    from bench_kit.models.budget import BudgetParams
    from bench_kit.models.imageprep import ImagePrep

DEFAULT_CACHE = ".bench_kit/cache.sqlite"
MODELS_KEY = "models"
OLD_MODELS_KEY = "eval.models"


class ParamsDeprecation(BenchKitWarning):
    """A params.yaml key that still works but has moved; the CLI prints it as one line."""


_WARNED: set[str] = set()


class ModelConfig(BaseModel):
    """One entry of `models`. Keys are read from the environment, never stored here.

    Prices are USD per 1M tokens. `backoff_s` is the first retry delay (doubled per attempt,
    with jitter); a server's `Retry-After` takes precedence up to `max_wait_s` (a longer
    request fails the call at once, to be asked again by a re-run). `max_side` (pixels) and
    `max_bytes` (encoded bytes) limit each image sent (see bench_kit.models.imageprep).
    `http_client` (aiohttp | httpx) is the HTTP library of the HTTP adapters.
    `max_response_bytes` caps a reply body (read in chunks; a larger reply is an error) and
    `max_answer_chars` an answer's text (a longer one is cut, `truncated: true`, with its
    full length in `meta.answer_chars`).
    `max_images` (None = any number) and `supports_images` (False for a text-only
    endpoint) say which items the model can take; the runner writes the others as
    `unsupported:` predictions without calling it (see `unsupported_reason`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    # the params key the entry was read from (`models`, or `eval.models` in old files)
    _key: str = PrivateAttr(default=MODELS_KEY)

    adapter: str = Field(min_length=1)
    model: str | None = None
    base_url: str | list[str] | None = None
    api_key_env: str | None = None
    concurrency: int = Field(default=4, ge=1, le=1024)
    max_tokens: int = Field(default=512, ge=1)
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    price_input: float = Field(default=0.0, ge=0.0)
    price_output: float = Field(default=0.0, ge=0.0)
    timeout_s: float = Field(default=120.0, gt=0.0)
    max_retries: int = Field(default=5, ge=0, le=50)
    backoff_s: float = Field(default=1.0, ge=0.0)
    max_wait_s: float = Field(default=DEFAULT_MAX_WAIT_S, ge=0.0, le=3600.0)
    enabled: bool = True
    seed: int = 0
    max_side: int | None = Field(default=None, ge=16)
    http_client: str = DEFAULT_HTTP_CLIENT
    max_bytes: int | None = Field(default=None, ge=1024)
    max_images: int | None = Field(default=None, ge=1)
    supports_images: bool = True
    max_response_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    max_answer_chars: int = Field(default=200_000, ge=100)
    # Scale of the boxes this model writes: pixel | norm1 (0-1) | norm1000 (Qwen-VL grid) |
    # auto (decided per box; see bench_kit.scoring.extract.boxes and docs/SCORING.md).
    box_format: Literal["auto", "pixel", "norm1", "norm1000"] = "auto"

    @field_validator("base_url")
    @classmethod
    def _urls_not_empty(cls, value: str | list[str] | None) -> str | list[str] | None:
        urls = [value] if isinstance(value, str) else (value or [])
        if value is not None and (not urls or not all(u.strip() for u in urls)):
            raise ValueError("must be a URL or a non-empty list of URLs")
        return value

    @property
    def base_urls(self) -> list[str]:
        """`base_url` as a list (several URLs = load-balanced replicas)."""
        if self.base_url is None:
            return []
        urls = [self.base_url] if isinstance(self.base_url, str) else self.base_url
        return [u.rstrip("/") for u in urls]

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """USD cost of one call from the per-1M-token prices."""
        return round((tokens_in * self.price_input + tokens_out * self.price_output) / 1e6, 10)

    def image_prep(self) -> "ImagePrep | None":
        """The image limits of this model (None when it sets none)."""
        from bench_kit.models.imageprep import ImagePrep

        if self.max_side is None and self.max_bytes is None:
            return None
        return ImagePrep(max_side=self.max_side, max_bytes=self.max_bytes)

    def unsupported_reason(self, n_images: int) -> str | None:
        """Why this model cannot take a request with `n_images` images (None if it can).

        >>> ModelConfig(adapter="openai", max_images=1).unsupported_reason(3)
        '3 images, model takes at most 1'
        """
        if n_images and not self.supports_images:
            return f"{n_images} image{'s' if n_images > 1 else ''}, model takes none " \
                   f"(supports_images: false)"
        if self.max_images is not None and n_images > self.max_images:
            return f"{n_images} images, model takes at most {self.max_images}"
        return None

    def api_key(self) -> str | None:
        """The API key from the environment variable named by `api_key_env` (None if unset)."""
        if not self.api_key_env:
            return None
        return os.environ.get(self.api_key_env) or None


class PromptParams(BaseModel):
    """`eval.prompts`: optional template override per task, and the version label."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str | None = None
    mc: str | None = None
    yesno: str | None = None
    numeric: str | None = None
    open: str | None = None
    grounding: str | None = None
    checklist: str | None = None

    def overrides(self) -> dict[str, str]:
        """The task templates given in params (task -> template)."""
        return {k: v for k, v in self.model_dump().items() if k != "version" and v is not None}


def _eval_section(params: dict[str, Any], source: str) -> dict[str, Any]:
    node = params.get("eval")
    if node is None:
        return {}
    if not isinstance(node, dict):
        raise ConfigError(f"{source}: eval: expected a mapping")
    return node


def cache_path(params: dict[str, Any], source: str = DEFAULT_PARAMS) -> str:
    """`eval.cache`: where the SQLite call cache lives (default .bench_kit/cache.sqlite)."""
    value = _eval_section(params, source).get("cache", DEFAULT_CACHE)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{source}: eval.cache: expected a file path")
    return value


def prompt_params(params: dict[str, Any], source: str = DEFAULT_PARAMS) -> PromptParams:
    """`eval.prompts` validated; an unknown task name is a ConfigError naming the key."""
    _eval_section(params, source)
    return section(params, "eval.prompts", PromptParams, source=source, unknown="unknown task")


def budget_params(params: dict[str, Any], source: str = DEFAULT_PARAMS) -> "BudgetParams":
    """`eval.budget` (max_cost USD, max_requests) validated; absent = unlimited."""
    from bench_kit.models.budget import BudgetParams

    _eval_section(params, source)
    return section(params, "eval.budget", BudgetParams, source=source)


def models_section(params: dict[str, Any],
                   source: str = DEFAULT_PARAMS) -> tuple[dict[str, Any], str]:
    """The models mapping and the key it was found under: `models`, or `eval.models` in a
    params.yaml of the old layout (read with a ParamsDeprecation warning).

    Raises:
        ConfigError: both keys are set, or the section is not a mapping.
    """
    top = params.get(MODELS_KEY)
    old = _eval_section(params, source).get("models")
    if top is not None and old:
        raise ConfigError(f"{source}: both `models:` and `eval.models:` are set; keep only "
                          "the top-level `models:` section")
    key = MODELS_KEY
    if old is not None and top is None:
        if source not in _WARNED:  # once per params file, however many models are read
            _WARNED.add(source)
            warnings.warn(f"{source}: `eval.models` is deprecated: move the block to a "
                          "top-level `models:` section (and `eval.models.NAME` in dvc.yaml "
                          "params to `models.NAME`)", ParamsDeprecation, stacklevel=3)
        top, key = old, OLD_MODELS_KEY
    models = top or {}
    if not isinstance(models, dict):
        raise ConfigError(f"{source}: {key}: expected a mapping of name -> settings")
    return models, key


def model_names(params: dict[str, Any], source: str = DEFAULT_PARAMS) -> list[str]:
    """Names configured under `models`, in file order."""
    return list(models_section(params, source)[0])


def load_model_config(params: dict[str, Any], name: str,
                      source: str = DEFAULT_PARAMS) -> ModelConfig:
    """Validate `models.<name>`.

    Raises:
        ConfigError: unknown model name (with a suggestion), unknown key or bad value, each
            naming the full key path, e.g. `params.yaml: models.gpt.colour: unknown key`.
    """
    models, key = models_section(params, source)
    names = list(models)
    if name not in names:
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise ConfigError(f"{source}: {key}: no model named '{name}'{hint} "
                          f"(configured: {', '.join(names) or 'none'})")
    node = models[name]
    where = f"{source}: {key}.{name}"
    if not isinstance(node, dict):
        raise ConfigError(f"{where}: expected a mapping of settings")
    known = list(ModelConfig.model_fields)
    for field in node:
        if field not in ModelConfig.model_fields:
            close = difflib.get_close_matches(str(field), known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ConfigError(f"{where}.{field}: unknown key{hint}")
    try:
        config = ModelConfig.model_validate(node)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"] if not isinstance(p, int)) or "(entry)"
        if first["loc"] and first["loc"][0] == "base_url":
            loc = "base_url"
        raise ConfigError(f"{where}.{loc}: {first['msg']}") from exc
    config._key = key
    return config


def check_runnable(config: ModelConfig, name: str, source: str = DEFAULT_PARAMS) -> None:
    """Refuse a disabled model or a missing API key before any call is made."""
    where = f"{source}: {config._key}.{name}"
    if not config.enabled:
        raise ConfigError(f"{where}: model '{name}' is disabled (enabled: false); "
                          f"set enabled: true to run it")
    if config.api_key_env and config.api_key() is None:
        raise ConfigError(f"{where}.api_key_env: environment variable {config.api_key_env} "
                          f"is not set; export it to run '{name}'")


def model_statuses(params: dict[str, Any], source: str = DEFAULT_PARAMS) -> list[dict[str, Any]]:
    """One row per configured model: name, adapter, served model, enabled, the key's
    environment variable and whether it is set (never the key), concurrency, prices, and
    `problem` (the ConfigError text) for an entry that does not validate."""
    rows: list[dict[str, Any]] = []
    for name in model_names(params, source):
        try:
            config = load_model_config(params, name, source)
        except ConfigError as exc:
            rows.append({"name": name, "adapter": None, "model": None, "enabled": False,
                         "api_key_env": None, "key": "n/a", "concurrency": None,
                         "price_input": None, "price_output": None, "problem": str(exc)})
            continue
        key = "not needed" if not config.api_key_env else \
            "present" if config.api_key() is not None else "missing"
        rows.append({"name": name, "adapter": config.adapter, "model": config.model,
                     "enabled": config.enabled, "api_key_env": config.api_key_env,
                     "key": key, "concurrency": config.concurrency,
                     "price_input": config.price_input, "price_output": config.price_output,
                     "problem": None})
    return rows


def model_box_format(params: dict[str, Any], name: str, source: str = DEFAULT_PARAMS) -> str:
    """The `box_format` of model `name`, or "auto" when no model of that name is configured
    (predictions of any origin can be scored)."""
    if name not in model_names(params, source):
        return "auto"
    return load_model_config(params, name, source).box_format
