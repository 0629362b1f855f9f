"""Reading a manifest typed (core/manifest.py): lenient as the readers were with its JSON."""

from __future__ import annotations

from fccli.core.manifest import Manifest, read_manifest


def test_a_value_of_another_type_is_read_as_missing_and_the_rest_kept() -> None:
    manifest = read_manifest(
        {
            "status": 7,
            "question": "杭州？",
            "options": {"max_steps": "8", "stream": "true", "retries": True, "effort": "high"},
            "steps": [{"step": 1, "harness_bug": "drop-results: x"}, {"x": 2}, {"step": "3"}],
            "error": {"step": 1, "attempts": 3, "kind": "ProviderError"},
            "from_a_newer_fc": {"kept": True},
        }
    )
    assert manifest.status is None and manifest.question == "杭州？"
    assert manifest.options is not None
    assert (manifest.options.max_steps, manifest.options.stream, manifest.options.retries) == (
        None,
        None,
        None,
    )
    assert manifest.options.effort == "high"
    assert [s.step for s in manifest.steps] == [1]  # a step without its number is left out
    assert manifest.harness_bugs() == {1: "drop-results"}
    assert manifest.error is not None and manifest.error.attempts is None
    assert manifest.error.kind == "ProviderError"
    assert manifest.to_json_dict()["from_a_newer_fc"] == {"kept": True}


def test_what_is_not_a_manifest_reads_as_an_empty_one() -> None:
    for data in ([1], "x", None, {"steps": 5}, {"options": []}):
        assert read_manifest(data).to_json_dict() == Manifest().to_json_dict()


def test_the_json_read_is_not_changed() -> None:
    data = {"options": {"max_steps": "8"}, "steps": [{"x": 1}]}
    read_manifest(data)
    assert data == {"options": {"max_steps": "8"}, "steps": [{"x": 1}]}
