"""Shared fixtures (running the real `fc` entry point in a clean environment), the hypothesis
profiles, and the parallel run by default."""

from __future__ import annotations

import gc
import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support.inprocess import run_in_process

REPO = Path(__file__).resolve().parent.parent

# `ci`, the default: twenty examples per property (each CI run draws new ones).
# `FC_HYPOTHESIS=deep` before a release: hundreds. No deadline: a property that runs fc is slow on a busy machine, not wrong.
settings.register_profile(
    "ci", max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("FC_HYPOTHESIS", "ci"))


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Run on every core (`-n auto`, work stealing) unless told otherwise: the README's
    `python -m pytest` and `.ci/run` run the same thing. Serial where pytest-xdist is missing
    (or `-p no:xdist`), with `--collect-only`, and as an explicit `-n` says."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    if config.option.collectonly:
        return
    if config.option.numprocesses is None:
        config.option.numprocesses = "auto"
    if config.option.dist == "no":
        config.option.dist = "worksteal"


def pytest_collection_finish(session: pytest.Session) -> None:
    """Spare the collector the heap of the run: freeze what collection made (the modules under
    test, the SDKs they import: objects by the hundred thousand, none garbage), and collect less
    often than every 700 allocations, as fc's own process does (fccli/commands/entry.py)."""
    gc.freeze()
    gc.set_threshold(10_000, 50, 50)


# What a test starts beside fc in-process, as markers (pyproject.toml) that
# `-m "not process and not server and not browser"` leaves out. A module marks itself
# (`pytestmark`); the fake provider marks the tests that take it; the tables below mark the
# modules, and the tests of mostly in-process modules, that do not mark themselves.
_MARKED_FIXTURES = {"fake_provider": ("server",)}
_MARKED_MODULES: dict[str, tuple[str, ...]] = {
    "tests/commands/test_process.py": ("process",),
    "tests/commands/test_signals_and_pipes.py": ("process", "server"),
    "tests/commands/test_startup.py": ("process",),
    "tests/commands/test_terminal_escapes.py": ("server",),
    "tests/docs/test_benchmarks.py": ("process",),
    "tests/docs/test_docs_mcp.py": ("process",),
    "tests/mcp/test_record.py": ("process", "server"),
    "tests/mcp/test_run_mcp.py": ("process", "server"),
    "tests/providers/test_fake_provider.py": ("server",),
    "tests/providers/test_providers_http.py": ("process", "server"),
    "tests/providers/test_unbounded_bodies.py": ("server",),
    "tests/proxy/test_i18n_proxy.py": ("process", "server"),
    "tests/proxy/test_proxy.py": ("server",),
    "tests/proxy/test_proxy_backlog.py": ("process",),
    "tests/proxy/test_proxy_errors.py": ("process", "server"),
    "tests/proxy/test_proxy_node.py": ("process", "server"),
    "tests/proxy/test_proxy_readme.py": ("process", "server"),
    "tests/render/test_show_html_browser.py": ("browser",),
    "tests/replay/test_replay_http.py": ("server",),
    "tests/run/test_responses_run.py": ("server",),
    "tests/run/test_run_memory.py": ("process", "server"),
    "tests/run/test_stream_run.py": ("process", "server"),
    "tests/send/test_curl_send.py": ("process", "server"),
    "tests/serve/test_serve.py": ("process", "server"),
    "tests/trace/test_one_writer.py": ("process",),
}
_MARKED_TESTS: dict[str, tuple[str, ...]] = {
    "tests/commands/test_cli_run.py::test_ctrl_c_exits_130_at_once_and_the_trace_keeps_what_it_had": (
        "process",
    ),
    "tests/commands/test_help_formats.py::test_the_fake_providers_banner_exports_what_every_format_needs": (
        "process",
    ),
    "tests/docs/test_docs_deepseek_formats.py::test_the_fake_provider_runs_by_hand_as_the_page_says": (
        "process",
    ),
    "tests/docs/test_docs_deepseek_formats.py::test_the_page_runs_and_its_files_are_where_it_says": (
        "server",
    ),
    "tests/export/test_export_otel.py::test_429_and_503_are_retried": ("server",),
    "tests/export/test_export_otel.py::test_a_failure_part_way_says_what_arrived": ("server",),
    "tests/export/test_export_otel.py::test_a_partial_success_is_reported": ("server",),
    "tests/export/test_export_otel.py::test_a_failed_run_whose_export_fails_keeps_the_runs_exit": (
        "server",
    ),
    "tests/export/test_export_otel.py::test_a_replay_whose_export_fails_exits_0": ("server",),
    "tests/export/test_export_otel.py::test_a_run_whose_export_fails_exits_0_warns_once_and_notes_it": (
        "server",
    ),
    "tests/export/test_export_otel.py::test_a_server_that_is_not_there_is_exit_3": ("server",),
    "tests/export/test_export_otel.py::test_an_endpoint_without_a_path_gets_v1_traces": ("server",),
    "tests/export/test_export_otel.py::test_an_http_error_is_exit_3_with_the_status_and_first_line": (
        "server",
    ),
    "tests/export/test_export_otel.py::test_an_unreadable_trace_is_exit_2_and_nothing_is_sent": (
        "server",
    ),
    "tests/export/test_export_otel.py::test_json_over_http": ("server",),
    "tests/export/test_export_otel.py::test_protobuf_over_http_to_a_receiver": ("server",),
    "tests/export/test_export_otel.py::test_replay_exports_its_new_trace": ("server",),
    "tests/export/test_export_otel.py::test_run_exports_its_trace_when_it_closes": ("server",),
    "tests/export/test_export_otel.py::test_the_page_s_commands_do_what_it_says": (
        "process",
        "server",
    ),
    "tests/export/test_export_otel.py::test_the_standard_variables_and_headers": ("server",),
    "tests/providers/test_deepseek.py::test_curl_of_a_demo_file_runs_as_printed_with_deepseeks_model": (
        "process",
    ),
    "tests/proxy/test_proxy_upstreams.py::test_requests_one_after_another_go_through_one_client": (
        "server",
    ),
    "tests/render/test_show.py::test_colour_on_a_terminal_and_never_with_no_color": ("process",),
    "tests/render/test_show.py::test_renderers_import_no_wire_provider_or_transport": ("process",),
    "tests/replay/test_replay.py::test_an_editor_saving_nothing_new_sends_the_results_as_they_were": (
        "process",
    ),
    "tests/replay/test_replay.py::test_an_editor_that_breaks_the_json_keeps_the_work": ("process",),
    "tests/replay/test_replay.py::test_an_editor_that_fails_replays_nothing": ("process",),
    "tests/replay/test_replay.py::test_an_emptied_editor_document_cancels_with_the_promised_words": (
        "process",
    ),
    "tests/replay/test_replay.py::test_edit_flipping_is_error_is_honoured": ("process",),
    "tests/replay/test_replay.py::test_edit_opens_the_results_in_the_editor": ("process",),
    "tests/serve/test_server_launch.py::test_a_port_in_use_is_one_line_and_exit_2": ("server",),
    "tests/serve/test_server_launch.py::test_an_app_runs_in_a_thread_and_stops": ("server",),
    "tests/trace/test_examples.py::test_example_trace_against_the_fake_provider_rebuilds_identically": (
        "server",
    ),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of the tables and of the fixtures above; an entry that names no test of
    a module that was collected is stale (a test renamed or moved), and stops the run."""
    unmatched = set(_MARKED_TESTS)
    collected = set()
    for item in items:
        module = item.nodeid.split("::")[0]
        collected.add(module)
        test = item.nodeid.split("[")[0]
        unmatched.discard(test)
        kinds = {
            *_MARKED_MODULES.get(module, ()),
            *_MARKED_TESTS.get(test, ()),
            *(k for f in item.fixturenames for k in _MARKED_FIXTURES.get(f, ())),
        }
        for kind in sorted(kinds):
            item.add_marker(kind)
    stale = sorted(t for t in unmatched if t.split("::")[0] in collected)
    stale += sorted(m for m in _MARKED_MODULES if not (REPO / m).is_file())
    if stale:
        raise pytest.UsageError(f"tests/conftest.py marks tests that are not there: {stale}")


# Variables that would change fc's choices; a developer's shell may have them set.
_FC_VARS = (
    "FC_PROVIDER",
    "FC_BASE_URL",
    "FC_DEBUG",
    "DEEPSEEK_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
)


# Variables that choose fc's language: the tests speak English unless they ask for Chinese.
_LANGUAGE_VARS = ("FC_LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _FC_VARS + _LANGUAGE_VARS}
    env["LANG"] = "C.UTF-8"
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "100"
    env.update(extra)
    return env


_MADE = itertools.count()


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's `tmp_path`, named after the test as pytest names it, with a count of this
    process's own in place of pytest's number (see `_state_home`)."""
    name = re.sub(r"[\W]", "_", request.node.name)[:30]
    return tmp_path_factory.mktemp(f"{name}-{next(_MADE)}", numbered=False)


@pytest.fixture
def _state_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where fc remembers each directory's last trace (fccli/trace/last.py) during a test: its
    own, neither the developer's nor another test's. Named, not numbered: pytest finds a
    numbered directory's next number by listing every directory the run made so far (every
    test's, quadratic over the run)."""
    return tmp_path_factory.mktemp(f"state-{next(_MADE)}", numbered=False)


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch, _state_home: Path):
    for name in _FC_VARS + _LANGUAGE_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(_state_home))
    yield
    from fccli import i18n

    i18n.set_language("en")  # an in-process `fc --lang zh ...` leaves it chosen


@pytest.fixture
def fc(tmp_path: Path):
    """Run `fc ARGS...` as a user would, in a temporary working directory.

    In-process by default (tests/support/inprocess.py: the same `main()`, its own argv, environment,
    cwd and streams); `process=True` starts a real `python -m fccli` for what only a process
    shows: start-up imports, signals, broken pipes, the exit status as the shell sees it.
    `terminal=True`: stdout is a terminal to Rich (in-process only), COLUMNS its width.
    """

    def run(
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        input: str | None = None,
        process: bool = False,
        terminal: bool = False,
    ):
        if not process:
            return run_in_process(
                list(args),
                cwd=cwd or tmp_path,
                env=env or clean_env(),
                input=input,
                terminal=terminal,
            )
        return subprocess.run(
            [sys.executable, "-m", "fccli", *args],
            cwd=cwd or tmp_path,
            env=env or clean_env(),
            capture_output=True,
            text=True,
            input=input,
            timeout=60,
        )

    return run


@pytest.fixture
def fake_provider():
    """A started fake LLM provider (tests/support/fake_provider.py) on 127.0.0.1, stopped afterwards."""
    from tests.support.fake_provider import FakeProvider

    with FakeProvider() as server:
        yield server
