"""Which model a trace is priced as, and the provider's id in genai-prices' table."""

from __future__ import annotations

from dataclasses import dataclass

from fccli.i18n import Msg

DEMO = "demo"
"""The offline demo provider's name, as a manifest records it."""


@dataclass(frozen=True)
class Target:
    """The model a step is priced as, where genai-prices can look it up."""

    model: str
    """The name looked up in the table (it matches dated and aliased names too)."""
    provider_id: str | None
    """The provider's id in the table; None: found from the model's name."""
    basis: Msg | None = None
    """Why it is not the model that answered (the demo, --price-model); None when it is."""


@dataclass(frozen=True)
class NoTarget:
    """A trace fc cannot price: no model named, or a provider whose models have no price."""

    model: str
    why: Msg


def price_target(
    provider: str | None, model: str | None, price_model: str | None = None
) -> Target | NoTarget:
    """Return the model and provider a step of `provider`'s `model` is priced as."""
    # The profiles are read once a step is priced: importing a renderer loads no provider
    # (render shows what it is given; tests/render/test_show.py).
    from fccli.providers.profiles import DEMO_STANDS_IN_FOR, PROFILES

    if price_model:
        return Target(
            price_model,
            None,
            Msg("priced as {model} (--price-model)", model=price_model),
        )
    if provider == DEMO:
        stands_in = PROFILES[DEMO_STANDS_IN_FOR]
        return Target(
            stands_in.default_model,
            stands_in.name,
            Msg(
                "the demo model priced as {model}, the model it stands in for",
                model=stands_in.default_model,
            ),
        )
    if not model:
        return NoTarget("?", Msg("price unknown: the trace names no model"))
    profile = PROFILES.get(provider or "")
    if profile is None:
        return Target(model, None)  # a provider fc has no profile of: the model's name decides
    if profile.price_id is None:
        return NoTarget(
            model,
            Msg(
                "price unknown for {model} ({provider} runs it on your machine)",
                model=model,
                provider=profile.name,
            ),
        )
    return Target(model, profile.price_id or profile.name)
