"""fc's pytest plugin (entry point `pytest11`): the `fc_traces` fixture, `--fc-record`, the
markers and the guard against real providers (docs/testing.md).

pytest loads this module in every run of an environment where fc is installed: it imports
pytest alone, and the rest of fc inside the fixture and the hooks, when a test uses them.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

_CALL_PASSED = pytest.StashKey[bool]()
_TRACES = pytest.StashKey[Any]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fc", "fc: LLM traces played back to an agent under test")
    group.addoption(
        "--fc-record",
        action="store_true",
        default=False,
        help="record the traces of tests using fc_traces through fc proxy from the real "
        "provider (its key set), in place of the old ones",
    )
    group.addoption(
        "--fc-base-url",
        default=None,
        metavar="URL",
        help="with --fc-record: where the provider is, when not at its own address",
    )
    parser.addini(
        "fc_traces_dir",
        "where fc_traces keeps traces, beside each test file (default: traces)",
        default="traces",
    )
    parser.addini("fc_provider", "the provider --fc-record records from (e.g. openai)", default="")
    parser.addini(
        "fc_guard",
        "refuse the real providers' hosts in every test, not only in those using fc_traces",
        type="bool",
        default=False,
    )
    parser.addini("fc_provider_hosts", "more hosts the guard refuses (patterns)", type="linelist")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fc_traces(path=None, provider=None, edited=(), ignore=(), all_played=True, expect=()): "
        "where the test's traces are, what does not count when the agent's requests are "
        "matched, the fc expect rules checked once it has run",
    )
    config.addinivalue_line(
        "markers", "fc_allow_providers: the test may reach the real providers' hosts"
    )
    config.addinivalue_line(
        "markers", "fc_offline: refuse the real providers' hosts in this test (fc_guard: in all)"
    )


@pytest.fixture
def fc_traces(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Serve the test's recorded traces (fc serve, in this process, on a free port), or with
    `--fc-record` record them through fc proxy; the SDKs' base URL variables point at it."""
    import os

    from fccli.core.errors import FcError
    from fccli.i18n import language, language_from_environment, localized, set_language
    from fccli.testing.session import SetupError, opened, setup_from

    spoken = language()  # fc's words in the test's report: FC_LANG, else the locale
    set_language(language_from_environment(os.environ))
    request.addfinalizer(lambda: set_language(spoken))
    node = request.node
    marker = node.get_closest_marker("fc_traces")
    options: dict[str, Any] = dict(marker.kwargs) if marker else {}
    given = (marker.args[0] if marker and marker.args else None) or options.pop("path", None)
    config = request.config
    setup = setup_from(
        Path(str(node.path)).parent,
        _where(node, given, config.getini("fc_traces_dir")),
        bool(config.getoption("fc_record")),
        options,
        config.getini,
        config.getoption("fc_base_url"),
    )
    try:
        traces = opened(setup)
    except SetupError as e:
        cannot = str(e)
    except FcError as e:  # a trace fc cannot play, a URL it cannot use: fc's own line
        cannot = f"fc: {localized(e.message)}"
    else:
        cannot = ""
    if cannot:
        pytest.fail(cannot, pytrace=False)
    if node.get_closest_marker("fc_allow_providers"):
        traces.guard.hosts = []
    for name, value in traces.env.items():
        monkeypatch.setenv(name, value)
    node.stash[_TRACES] = traces
    try:
        yield traces
    finally:
        traces.close(keep=node.stash.get(_CALL_PASSED, False))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    """Fail a test whose agent sent what the traces do not hold, or reached a real provider."""
    guard = None
    traces = item.stash.get(_TRACES, None)
    if traces is None and not _guarded(item):
        return (yield)
    if traces is None:
        from fccli.testing.network import Guard, provider_hosts

        hosts = item.config.getini("fc_provider_hosts") or []
        guard = Guard([*provider_hosts(), *hosts]).__enter__()
    error: BaseException | None = None
    try:
        result = yield
    except BaseException as e:
        error = e
    finally:
        if guard is not None:
            guard.__exit__()
    problems = traces.problems() if traces is not None else []
    said = guard.problem() if guard is not None else None
    problems += [said] if said else []
    if problems:
        item.stash[_CALL_PASSED] = False
        if error is not None:  # most often the SDK's error for fc's refusal: said in one line
            first = (str(error).strip().splitlines() or [""])[0][:200]
            problems.append(f"({type(error).__name__}: {first})")
        raise pytest.fail.Exception("\n\n".join(problems), pytrace=False) from None
    if error is not None:
        raise error
    item.stash[_CALL_PASSED] = True
    return result


def _guarded(item: pytest.Item) -> bool:
    if item.get_closest_marker("fc_allow_providers"):
        return False
    return bool(item.get_closest_marker("fc_offline") or item.config.getini("fc_guard"))


def _where(node: Any, given: Any, folder: str) -> Path:
    """The test's traces: `given` beside the test file, else `<fc_traces_dir>/<module>/<test>`."""
    here = Path(str(node.path)).parent
    if given:
        return here / Path(given)
    name = re.sub(r"[^\w.-]+", "-", node.name).strip("-")
    return here / folder / Path(str(node.path)).stem / name
