"""fccli/core/models.py, built_held_first: a deferred model is built after the models it holds,
so that their schemas are made once, and it validates as pydantic's own build does."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from fccli.core.models import HOLDS, _Model


def test_a_model_is_built_after_the_models_it_holds_and_says_the_same_errors() -> None:
    class Leaf(_Model):
        x: int

    class Holder(_Model):
        leaf: Leaf
        leaves: list[Leaf] | None = None

    class PlainLeaf(BaseModel):
        model_config = ConfigDict(extra="forbid")
        x: int

    class PlainHolder(BaseModel):
        model_config = ConfigDict(extra="forbid")
        leaf: PlainLeaf
        leaves: list[PlainLeaf] | None = None

    HOLDS[Holder] = (Leaf,)
    try:
        assert not Leaf.__pydantic_complete__ and not Holder.__pydantic_complete__
        assert Holder.model_validate({"leaf": {"x": 1}}).leaf.x == 1
        assert Leaf.__pydantic_complete__  # built first, on its own
        bad = {"leaf": {"x": "one"}, "leaves": [{"x": 2}, {"y": 3}], "z": 0}
        with pytest.raises(ValidationError) as ours:
            Holder.model_validate(bad)
        with pytest.raises(ValidationError) as plain:
            PlainHolder.model_validate(bad)
        assert ours.value.errors() == plain.value.errors()
    finally:
        del HOLDS[Holder]
