"""The real providers, as data (ARCHITECTURE.md, habit 4: a provider is configuration, not a mapper).

DeepSeek, OpenAI and Ollama share the chat wire module; Anthropic has its own; OpenAI is also
reached in its Responses format (`--api responses`), DeepSeek in Anthropic's and Responses. What differs
(endpoint, key variable, default model, what each supports) is written down here once, read by
the HTTP provider, `fc run`'s checks and `fc providers`.
"""

from __future__ import annotations

from typing import NamedTuple

from fccli.core.errors import UsageError
from fccli.i18n import Msg


# A NamedTuple, not a dataclass: start-up.
class Profile(NamedTuple):
    name: str
    wire_format: str
    default_model: str
    base_url: str
    path: str
    """Appended to the base URL: the endpoint that takes the request body."""
    key_env: str | None
    auth: str | None
    """How the key travels: `bearer` (Authorization header), `x-api-key`, `aws` (a bearer key
    when its variable is set, else AWS credentials signed with SigV4), or None (no key)."""
    thinking: str
    """What `--thinking / --no-thinking` does, in words; empty when the provider has no switch."""
    tool_choices: tuple[str, ...]
    """tool_choice values accepted (and in thinking mode, where limited)."""
    strict: str
    parallel_control: str
    streaming: str = Msg(
        "SSE chunks, call fragments by index, usage last (include_usage), data: [DONE]"
    )
    """How --stream answers arrive, in words."""
    strict_base_url: str | None = None
    """Where strict mode lives, when it is a beta on another base URL (DeepSeek)."""
    extra_headers: tuple[tuple[str, str], ...] = ()
    strict_headers: tuple[tuple[str, str], ...] = ()
    other_models: tuple[str, ...] = ()
    """Other model names the provider serves, for `fc providers` (`-m` takes any name)."""
    efforts: tuple[str, ...] = ()
    """The `--effort` levels the provider takes; empty: it has no effort setting."""
    effort_field: str = ""
    """Where `--effort` goes on the wire, in words (chat: reasoning_effort)."""
    effort_is_thinking: bool = False
    """`--effort` is the strength of thinking mode, so it contradicts `--no-thinking` (DeepSeek)."""
    forcing_needs_no_thinking: bool = False
    """Thinking is on unless `--no-thinking`, and then a forcing `--tool-choice` is refused
    (DeepSeek in the Anthropic format; in chat its dialect knows it)."""
    api: str = "chat"
    """The API (`--api`) this profile speaks: chat, anthropic or responses."""
    model_in_url: bool = False
    """The model's name goes in the path (`{model}` in `path`), not the body (Gemini); a stream
    is asked for by the path too (`stream_path`)."""
    stream_path: str = ""
    """The endpoint of a streamed answer, where it is not `path` (Gemini's streamGenerateContent)."""
    has_strict: bool = True
    """The provider has a strict mode (`--strict`) and a switch for parallel calls
    (`--no-parallel`); Gemini has neither, and fc refuses them rather than drop them."""
    otel_name: str = ""
    """The provider's `gen_ai.provider.name` in OpenTelemetry, where it is not its own name."""
    signing_name: str = ""
    """With `auth` `aws`: the service a SigV4 signature is for (providers/aws.py)."""
    price_id: str | None = ""
    """The provider's id in genai-prices' table (fc's cost), where it is not its own name; None
    where its models have no price (Ollama runs them on your own machine)."""


PROFILES: dict[str, Profile] = {
    "deepseek": Profile(
        name="deepseek",
        wire_format="deepseek",
        # The pricing page (api-docs.deepseek.com, quick_start/pricing, read 2026-12-01):
        # deepseek-flash is DeepSeek-V4.1-Flash; deepseek-v4-flash still answers, served by it.
        default_model="deepseek-flash",
        base_url="https://api.deepseek.com",
        path="/chat/completions",
        key_env="DEEPSEEK_API_KEY",
        auth="bearer",
        thinking=Msg('on by default; --no-thinking sends {"type": "disabled"}'),
        tool_choices=("auto", "none", "required", Msg("NAME (thinking mode: auto, none only)")),
        # api-docs.deepseek.com, guides/function_calling: strict mode is a beta at /beta.
        strict=Msg("yes (beta: fc switches to https://api.deepseek.com/beta)"),
        parallel_control="parallel_tool_calls: false",
        strict_base_url="https://api.deepseek.com/beta",
        other_models=("deepseek-v4-pro",),
        # guides/thinking_mode: the effort of thinking mode, low | high | max.
        efforts=("low", "high", "max"),
        effort_field="reasoning_effort",
        effort_is_thinking=True,
    ),
    "openai": Profile(
        name="openai",
        wire_format="openai",
        default_model="gpt-4.1-mini",
        base_url="https://api.openai.com/v1",
        path="/chat/completions",
        key_env="OPENAI_API_KEY",
        auth="bearer",
        thinking="",
        tool_choices=("auto", "none", "required", "NAME"),
        strict=Msg("yes (function.strict: true)"),
        parallel_control="parallel_tool_calls: false",
        # OpenAI's reasoning models take reasoning_effort up to high; there is no max.
        efforts=("low", "high"),
        effort_field=Msg("reasoning_effort (reasoning models)"),
    ),
    "ollama": Profile(
        name="ollama",
        wire_format="openai",
        default_model="qwen3",
        base_url="http://localhost:11434/v1",
        path="/chat/completions",
        key_env=None,
        auth=None,
        thinking="",
        tool_choices=("auto", "none", "required", Msg("NAME (as far as the server honours them)")),
        strict=Msg("sent; the server may ignore it"),
        parallel_control=Msg(
            "{field} (the server may ignore it)", field="parallel_tool_calls: false"
        ),
        efforts=("low", "high"),
        effort_field=Msg("{field} (the server may ignore it)", field="reasoning_effort"),
        price_id=None,
    ),
    "mistral": Profile(
        name="mistral",
        wire_format="mistral",
        # docs.mistral.ai/getting-started/models: a small model with function calling.
        default_model="mistral-small-latest",
        base_url="https://api.mistral.ai/v1",
        path="/chat/completions",
        key_env="MISTRAL_API_KEY",
        auth="bearer",
        thinking="",
        tool_choices=("auto", "none", "required", "NAME"),
        strict=Msg("yes (function.strict: true)"),
        parallel_control="parallel_tool_calls: false",
        other_models=("mistral-large-latest", "magistral-medium-latest"),
    ),
    "anthropic": Profile(
        name="anthropic",
        wire_format="anthropic",
        default_model="claude-haiku-4-5",
        base_url="https://api.anthropic.com",
        path="/v1/messages",
        key_env="ANTHROPIC_API_KEY",
        auth="x-api-key",
        thinking=Msg('off by default; --thinking sends {"type": "enabled", "budget_tokens": 2048}'),
        tool_choices=("auto", "none", "required (any)", Msg("NAME (thinking on: auto, none only)")),
        strict=Msg("yes (tool strict: true, structured-outputs beta header)"),
        parallel_control="tool_choice.disable_parallel_tool_use: true",
        streaming=Msg("SSE events: content_block_delta (input_json_delta for calls), message_stop"),
        extra_headers=(("anthropic-version", "2023-06-01"),),
        # Strict tool use came as the structured-outputs beta (docs.claude.com, structured outputs).
        strict_headers=(("anthropic-beta", "structured-outputs-2025-11-13"),),
        # docs.claude.com, effort: output_config.effort, low | medium | high | max.
        efforts=("low", "high", "max"),
        effort_field="output_config.effort",
        api="anthropic",
    ),
    "gemini": Profile(
        name="gemini",
        wire_format="gemini",
        # ai.google.dev/gemini-api/docs/models: a fast model with thinking and tools.
        default_model="gemini-2.5-flash",
        base_url="https://generativelanguage.googleapis.com",
        # The model goes in the path; the key in x-goog-api-key (never `?key=`, which would
        # put it in every URL fc writes or prints).
        path="/v1beta/models/{model}:generateContent",
        stream_path="/v1beta/models/{model}:streamGenerateContent?alt=sse",
        model_in_url=True,
        key_env="GEMINI_API_KEY",
        auth="x-goog-api-key",
        thinking=Msg(
            "model's default; --thinking sends thinkingConfig.includeThoughts (thought "
            "summaries come back), --no-thinking thinkingBudget: 0"
        ),
        tool_choices=(
            "auto (AUTO)",
            "none (NONE)",
            "required (ANY)",
            "NAME (ANY + allowedFunctionNames)",
        ),
        strict=Msg("no: parametersJsonSchema is followed as given (fc refuses --strict)"),
        parallel_control=Msg(
            "none: Gemini has no switch for parallel calls (fc refuses --no-parallel)"
        ),
        streaming=Msg(
            "SSE: each data: line a whole GenerateContentResponse chunk; calls arrive whole"
        ),
        other_models=("gemini-2.5-pro", "gemini-3-pro-preview"),
        # ThinkingConfig.thinkingLevel (Gemini 3): LOW, HIGH.
        efforts=("low", "high"),
        effort_field="generationConfig.thinkingConfig.thinkingLevel (Gemini 3)",
        api="gemini",
        has_strict=False,
        otel_name="gcp.gemini",
        price_id="google",
    ),
    "bedrock": Profile(
        name="bedrock",
        wire_format="bedrock",
        # docs.aws.amazon.com/bedrock, "Supported foundation models": a small model that calls
        # tools, served on demand in most regions.
        default_model="amazon.nova-lite-v1:0",
        # The region from $AWS_REGION (or $AWS_DEFAULT_REGION), as the AWS SDKs read it.
        base_url="https://bedrock-runtime.{region}.amazonaws.com",
        path="/model/{model}/converse",
        stream_path="/model/{model}/converse-stream",
        model_in_url=True,
        # A Bedrock API key, sent as a bearer token; without it, SigV4 (providers/aws.py).
        key_env="AWS_BEARER_TOKEN_BEDROCK",
        auth="aws",
        signing_name="bedrock",
        thinking="",
        tool_choices=("auto", "required (any)", "NAME (tool)"),
        strict=Msg("toolSpec.strict, where the model takes it (fc refuses --strict)"),
        parallel_control=Msg(
            "none: Bedrock has no switch for parallel calls (fc refuses --no-parallel)"
        ),
        streaming=Msg(
            "AWS event stream (binary frames with CRCs): contentBlockDelta (toolUse.input in "
            "pieces), messageStop, metadata"
        ),
        other_models=("anthropic.claude-3-5-haiku-20241022-v1:0", "deepseek.r1-v1:0"),
        # ConverseRequest.outputConfig.effort (botocore's service model).
        efforts=("low", "high"),
        effort_field="outputConfig.effort",
        api="bedrock",
        has_strict=False,
        otel_name="aws.bedrock",
        # genai-prices names Bedrock's table `aws`.
        price_id="aws",
    ),
}

DEMO_STANDS_IN_FOR = "deepseek"
"""The provider whose default model the offline demo stands in for (it writes DeepSeek's format):
fc's cost prices a demo trace as that model."""

API_NAMES = ("chat", "anthropic", "responses", "gemini", "bedrock", "native")
"""The values of `--api`: the wire format a provider is spoken to in."""

DEEPSEEK_ANTHROPIC = PROFILES["anthropic"]._replace(
    # The same models in the Anthropic Messages format (api-docs.deepseek.com,
    # guides/anthropic_api): Anthropic's profile at https://api.deepseek.com/anthropic with
    # DeepSeek's key (as x-api-key), thinking on by default (a `thinking` block in every
    # answer, `{"type": "disabled"}` turns it off), its effort in output_config.effort.
    name="deepseek",
    default_model="deepseek-flash",
    base_url="https://api.deepseek.com/anthropic",
    key_env="DEEPSEEK_API_KEY",
    thinking=Msg('on by default; --no-thinking sends {"type": "disabled"}'),
    tool_choices=("auto", "none", "required (any)", Msg("NAME (thinking mode: auto, none only)")),
    strict=Msg("not documented for this endpoint: fc sends it; the server may ignore it"),
    strict_headers=(),
    other_models=("deepseek-v4-pro",),
    effort_is_thinking=True,
    forcing_needs_no_thinking=True,
)

OPENAI_RESPONSES = PROFILES["openai"]._replace(
    # OpenAI's Responses API (platform.openai.com/docs/api-reference/responses), the one its own
    # SDK and agents default to: the same key and base URL, `/responses` for the endpoint, and a
    # reasoning model by default, whose reasoning items travel back with the calls.
    wire_format="responses",
    default_model="gpt-5-mini",
    path="/responses",
    thinking=Msg(
        'reasoning models reason unasked; --no-thinking sends reasoning {"effort": "none"}'
    ),
    tool_choices=("auto", "none", "required", "NAME"),
    strict=Msg(
        "yes (tool strict: true; fc writes strict: false otherwise, as omitted means strict)"
    ),
    parallel_control="parallel_tool_calls: false",
    streaming=Msg(
        "SSE events: response.output_item.added, function_call_arguments.delta by "
        "item_id, output_item.done, response.completed"
    ),
    other_models=("gpt-5", "gpt-4.1-mini"),
    efforts=("low", "high"),
    effort_field="reasoning.effort",
    api="responses",
)

DEEPSEEK_RESPONSES = OPENAI_RESPONSES._replace(
    # The same models in the Responses format (DeepSeek answers in chat, Anthropic's Messages
    # and Responses). Its path beside chat's at the API's root, as DeepSeek serves
    # OpenAI's paths there; thinking on by default, `reasoning.effort` low | high | max, and
    # `none` turning it off (as `{"type": "disabled"}` does in chat).
    name="deepseek",
    default_model="deepseek-flash",
    base_url="https://api.deepseek.com",
    key_env="DEEPSEEK_API_KEY",
    thinking=Msg('on by default; --no-thinking sends reasoning {"effort": "none"}'),
    strict=Msg("not documented for this endpoint: fc sends it; the server may ignore it"),
    other_models=("deepseek-v4-pro",),
    efforts=("low", "high", "max"),
    effort_is_thinking=True,
)

OLLAMA_NATIVE = PROFILES["ollama"]._replace(
    # Ollama's own API (docs/api.md of ollama/ollama, POST /api/chat): at the server's root, not
    # under /v1; arguments as objects, calls with or without ids, an NDJSON stream, and the
    # settings the OpenAI-compatible endpoint has no field for (`options.num_ctx`...).
    wire_format="ollama-native",
    base_url="http://localhost:11434",
    path="/api/chat",
    thinking=Msg("model's default; --thinking sends think: true, --no-thinking think: false"),
    tool_choices=(
        Msg("auto (nothing sent)"),
        Msg("none (no tool offered)"),
        Msg("NAME (that tool offered alone)"),
    ),
    strict=Msg("no: the format has no strict mode (fc refuses --strict)"),
    parallel_control=Msg("none: no switch for parallel calls (fc refuses --no-parallel)"),
    streaming=Msg("NDJSON: one whole ChatResponse a line, calls whole, done: true last"),
    efforts=("low", "high"),
    effort_field="think",
    api="native",
    has_strict=False,
)

VARIANTS: dict[tuple[str, str], Profile] = {
    # OpenAI's first: a Responses file goes to OpenAI unless -p says otherwise (provider_of_format).
    ("openai", "responses"): OPENAI_RESPONSES,
    ("deepseek", "anthropic"): DEEPSEEK_ANTHROPIC,
    ("deepseek", "responses"): DEEPSEEK_RESPONSES,
    ("ollama", "native"): OLLAMA_NATIVE,
}
"""Profiles reached with `--api` other than a provider's own."""


def apis_of(name: str) -> tuple[str, ...]:
    """Return the `--api` values a provider takes: its own first."""
    own = PROFILES[name].api
    return (own, *(api for (n, api) in VARIANTS if n == name))


def profile_for(name: str, api: str | None = None) -> Profile:
    """Return the profile of provider `name` spoken to in `api` (None: its own format)."""
    profile = PROFILES[name]
    if api is None or api == profile.api:
        return profile
    variant = VARIANTS.get((name, api))
    if variant is not None:
        return variant
    if api not in API_NAMES:
        raise UsageError(
            Msg("unknown --api {api!r}", api=api),
            hint=Msg("known: {names}", names=", ".join(API_NAMES)),
        )
    raise UsageError(
        Msg(
            "--api {api}: fc speaks to {name} in {apis} only",
            api=api,
            name=name,
            apis=" or ".join(apis_of(name)),
        ),
        hint=Msg(
            "-p deepseek --api anthropic reaches DeepSeek in the Anthropic format; "
            "-p openai --api responses reaches OpenAI's Responses API; "
            "-p ollama --api native reaches Ollama's own /api/chat"
        ),
    )


def provider_of_format(fmt: str) -> str:
    """Return the provider a file of format `fmt` goes to by default: the one whose own format it is
    (`deepseek`, `openai`, `anthropic`), else the one reaching it through `--api` (Responses:
    openai); the format's name when none does (the caller says it is unknown)."""
    if fmt in PROFILES:
        return fmt
    for (name, _), profile in VARIANTS.items():
        if profile.wire_format == fmt:
            return name
    return fmt
