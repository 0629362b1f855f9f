"""What the `fc_traces` fixture runs: fc serve playing a test's traces in a thread of the test's
process, or (`--fc-record`) fc proxy recording them from the real provider; what the agent
sent; what went wrong, said once the test has run (plugin.py fails the test with it).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fccli.core.controls import escape_controls
from fccli.i18n import Msg, _, localized
from fccli.serve.app import Player
from fccli.serve.guard import Guard as HostGuard
from fccli.serve.match import Matcher, Miss
from fccli.serve.recordings import Recorded
from fccli.testing.meaning import Edits, Mismatch, meaning, report
from fccli.testing.network import Guard, provider_hosts
from fccli.trace.names import MANIFEST
from fccli.wire.registry import get_format

if TYPE_CHECKING:
    from fccli.expect import Step

PLACEHOLDER_KEY = "fc-traces-no-key"
"""The key set for an SDK that wants one while traces are played (none is needed)."""


@dataclass
class Setup:
    """What the test asked for: its marker, the ini options, the command line."""

    where: Path
    """The folder of the test's traces (or one trace directory, when played)."""
    record: bool = False
    provider: str = ""
    """The provider `--fc-record` records from (the marker's `provider`, else `fc_provider`)."""
    base_url: str | None = None
    """Where the provider is, when not at its own address (`--fc-base-url`)."""
    edits: Edits = field(default_factory=Edits)
    all_played: bool = True
    """Fail a test whose agent did not ask for every recorded step."""
    hosts: list[str] = field(default_factory=list)
    """More hosts the guard refuses (`fc_provider_hosts`)."""
    here: Path = Path()
    """The test file's folder: relative paths of rules files start there."""
    expect: list[str] = field(default_factory=list)
    """`fc expect` rules files checked once the test has run (the marker's `expect`)."""


@dataclass
class Sent:
    """One request the agent sent, and what answered it."""

    number: int
    shown: str
    """`POST /v1/chat/completions`."""
    body: Any
    step: str | None = None
    """The label of the step that answered (a Msg); None when none did."""
    recorded: Recorded | None = None
    """The step that answered."""


class SetupError(Exception):
    """The fixture cannot start: a line for the test's failure."""


def trace_dirs(where: Path) -> list[Path]:
    """The traces under `where`: itself when it is one, else its trace directories in order."""
    if (where / MANIFEST).is_file():
        return [where]
    if not where.is_dir():
        return []
    return sorted(p for p in where.iterdir() if (p / MANIFEST).is_file())


class FcTraces:
    """The object a test gets from the `fc_traces` fixture.

    `url` is the local server's root; `base_url(fmt)` the base URL an SDK of that wire format
    takes (`openai` → `…/v1`); `env` the SDK variables the fixture has set (OPENAI_BASE_URL...);
    `requests` what the agent sent; `edited(*tools)` says results of those tools were changed
    on purpose; `expect(rules)` checks `fc expect` rules against the traces."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.recording = setup.record
        self._sent: list[Sent] = []
        self.env: dict[str, str] = {}
        self.lines: list[str] = []
        """What the server said, one line per request."""
        self._lock = threading.Lock()
        self._server: Any = None
        self._proxy: Any = None
        self._out: Path | None = None
        self._player: WatchingPlayer | None = None
        self.guard = Guard([*provider_hosts(), *setup.hosts])

    # starting and stopping

    def start(self) -> FcTraces:
        from fccli.serve.launch import InThread, bind

        bound = bind("127.0.0.1", 0)
        self.url = bound.url
        try:
            if self.recording:
                app = self._recorder()
                self.env = dict(line.split("=", 1) for line in app.target.agent_lines(self.url))
                roots = [*app.target.roots.values(), app.target.default_root]
                self.guard.allowed |= {urlsplit(r).hostname or "" for r in roots}
            else:
                app = self._player_app()
            self._server = InThread(app, bound).start()
        except BaseException:
            bound.sock.close()
            raise
        self.guard.__enter__()
        return self

    def _player_app(self) -> Any:
        from fccli.providers.profiles import PROFILES, provider_of_format
        from fccli.serve.app import make_app
        from fccli.serve.recordings import load_recordings

        paths = trace_dirs(self.setup.where)
        if not paths:
            raise SetupError(
                _(
                    "fc: no traces in {where}: record them once with `pytest --fc-record` "
                    "(with the provider's key set)",
                    where=str(self.setup.where),
                )
            )
        recordings = load_recordings(paths)
        matcher = Matcher(recordings, lambda fmt, body: meaning(fmt, body, self.setup.edits))
        self._player = WatchingPlayer(recordings, self._say, matcher, self)
        for fmt in dict.fromkeys(r.format for r in recordings):
            sdk = get_format(fmt).sdk_base_url
            if sdk is not None:
                self.env[sdk[0]] = self.url + sdk[1]
            profile = PROFILES.get(provider_of_format(fmt))
            if profile is not None and profile.key_env and not os.environ.get(profile.key_env):
                self.env[profile.key_env] = PLACEHOLDER_KEY
        app = make_app(recordings, self._say, HostGuard(), self._player)
        return app

    def _recorder(self) -> Any:
        from fccli.providers.profiles import PROFILES
        from fccli.proxy.start import ProxyOptions, build
        from fccli.render.console import make_console

        provider = self.setup.provider
        if provider not in PROFILES:
            raise SetupError(
                _(
                    "fc: --fc-record needs the provider to record from: "
                    "@pytest.mark.fc_traces(provider=...) or the fc_provider ini option "
                    "(one of {known})",
                    known=", ".join(PROFILES),
                )
            )
        key = PROFILES[provider].key_env
        if key and not os.environ.get(key):
            raise SetupError(
                _(
                    "fc: --fc-record records from {provider}, which needs {key}; it is not set",
                    provider=provider,
                    key=key,
                )
            )
        self._out = Path(tempfile.mkdtemp(prefix="fc-record-"))
        self._screen = io.StringIO()
        options = ProxyOptions(to=provider, out=self._out, port=0, base_url=self.setup.base_url)
        app, _out = build(options, make_console(file=self._screen, width=120))
        self._proxy = app
        return app

    def close(self, keep: bool) -> None:
        """Stop the server and the guard; when recording and `keep`, put the new traces in
        place of the old ones."""
        self.guard.__exit__()
        if self._server is not None:
            self._server.stop()
            self._server = None
        out = self._out
        if out is None:
            return
        try:
            if keep and trace_dirs(out):
                where = self.setup.where
                for old in trace_dirs(where) if where.is_dir() else []:
                    shutil.rmtree(old)
                where.mkdir(parents=True, exist_ok=True)
                for new in trace_dirs(out):
                    shutil.move(str(new), str(where / new.name))
        finally:
            shutil.rmtree(out, ignore_errors=True)
            self._out = None

    # what the test uses

    def base_url(self, fmt: str) -> str:
        """The base URL an SDK of wire format `fmt` takes (its path after the server's root)."""
        sdk = get_format(fmt).sdk_base_url
        return self.url + (sdk[1] if sdk else "")

    def edited(self, *tools: str) -> None:
        """Say the results of these tools (`*`: of every tool) were changed on purpose: they do
        not count when a request is matched."""
        self.setup.edits.tools.update(tools)
        if self._player is not None:
            self._player.matcher.index()

    @property
    def requests(self) -> list[Sent]:
        """What the agent sent, in order (recording: as the traces so far hold it)."""
        if self._out is None:
            with self._lock:
                return list(self._sent)
        from fccli.trace.reader import read_trace

        self.flush()
        sent: list[Sent] = []
        for path in trace_dirs(self._out):
            for step in read_trace(path).steps:
                if "wire_request" in step.files:
                    body = _parsed(step.files["wire_request"].read_bytes())
                    label = Msg("step {step} of {trace}", step=step.number, trace=path.name)
                    sent.append(Sent(len(sent) + 1, "", body, label))
        return sent

    def expect(self, rules: str | Path) -> None:
        """Check `fc expect` rules (a TOML file, beside the test file when relative, or the
        rules' text) against what the agent did; broken rules fail the test, one line each.

        Played: the steps in the order the agent asked for them, each the request it sent and
        the answer it got. Recorded: each trace written so far."""
        broken = self.broken(rules)
        if broken:
            import pytest

            pytest.fail("\n".join(broken), pytrace=False)

    def broken(self, rules: str | Path) -> list[str]:
        """Say each broken rule of `rules` in one line (`fc expect`'s), after a first line."""
        from fccli.core.errors import FcError
        from fccli.expect import evaluate, evaluate_steps, load_rules

        if isinstance(rules, str) and "\n" in rules:
            text, source = rules, "<rules>"
        else:
            path = self.setup.here / Path(rules)
            text, source = path.read_text("utf-8"), str(rules)
        try:
            loaded = load_rules(text, source=source)
            if self._out is not None:
                self.flush()
                found = [b for trace in trace_dirs(self._out) for b in evaluate(trace, loaded)]
            else:
                found = evaluate_steps(self._steps(), loaded)
        except FcError as e:
            return [_("fc expect: {error}", error=localized(e.message))]
        if not found:
            return []
        lines = [
            _(
                "fc expect: {n} of {total} rule(s) broken in {source}",
                n=len(found),
                total=len(loaded),
                source=source,
            )
        ]
        for b in found:
            place = f"{b.file} {b.place}" if b.file and b.place else b.file or b.place or ""
            if b.step is not None and place:
                where = _(" at step {step}, {place}", step=b.step, place=place)
            elif b.step is not None:
                where = _(" at step {step}", step=b.step)
            else:
                where = _(" at {place}", place=place) if place else ""
            lines.append(escape_controls(f"✗ {b.rule}{where}: {localized(b.message)}"))
        return lines

    def _steps(self) -> list[Step]:
        """What was played, as steps: the request the agent sent, the answer it got."""
        from fccli.expect import Step

        steps: list[Step] = []
        for sent in self.requests:
            recorded = sent.recorded
            if recorded is None or not isinstance(sent.body, dict):
                continue
            codec = get_format(recorded.format)
            request = response = None
            try:
                request = codec.from_wire_request(sent.body)
                if recorded.response is not None and recorded.status == 200:
                    response = codec.from_wire_response(json.loads(recorded.response.read()))
            except Exception:  # a step fc cannot read is one without it, as fc show reads it
                pass
            steps.append(Step(len(steps) + 1, request, response))
        return steps

    def flush(self) -> None:
        """Wait until everything recorded so far is written (recording)."""
        if self._proxy is not None:
            self._proxy.flush()

    # what went wrong

    def note(self, sent: Sent) -> None:
        with self._lock:
            self._sent.append(sent)

    def _say(self, line: str) -> None:
        with self._lock:
            self.lines.append(line)

    def problems(self) -> list[str]:
        """Say what went wrong while the test ran: requests no step means, refusals, steps
        never asked for, nothing recorded, a real provider reached for."""
        found = []
        reached = self.guard.problem()
        if reached:
            found.append(reached)
        if self.recording:
            self.flush()
            if self._out is not None and not trace_dirs(self._out):
                found.append(
                    _(
                        "fc: nothing was recorded: the agent sent no request through fc proxy "
                        "(point it at fc_traces.base_url(...), or the variables the fixture "
                        "sets: {names})",
                        names=", ".join(self.env) or "-",
                    )
                )
            return found or self._expected()
        player = self._player
        if player is None:
            return found + self._expected()
        found += [report(miss) for miss in player.mismatches]
        found += [escape_controls(line) for line in player.refusals]
        if not found and self.setup.all_played:
            never = [r for r in player.recordings if id(r) not in player.played]
            if never:
                found.append(
                    _(
                        "fc: the agent did not ask for {steps} of the traces: it stopped before "
                        "them (@pytest.mark.fc_traces(all_played=False) allows it)",
                        steps=", ".join(localized(r.label) for r in never),
                    )
                )
        return found or self._expected()

    def _expected(self) -> list[str]:
        return ["\n".join(lines) for rules in self.setup.expect if (lines := self.broken(rules))]


class WatchingPlayer(Player):
    """fc serve's player, keeping what it played and refused for the test's report."""

    def __init__(
        self,
        recordings: list[Recorded],
        say: Callable[[str], None],
        matcher: Matcher,
        traces: FcTraces,
    ) -> None:
        super().__init__(recordings, say, matcher)
        self.recordings = recordings
        self.traces = traces
        self.played: set[int] = set()
        self.mismatches: list[Mismatch] = []
        self.refusals: list[str] = []
        self._misses: list[str] = []
        self._count = 0
        self._lock = threading.Lock()

    def _find(
        self, raw: bytes, fmt: Any, path: str, formats: list[str]
    ) -> tuple[Recorded | Miss, bool] | Msg:
        found = super()._find(raw, fmt, path, formats)
        with self._lock:
            self._count += 1
            number = self._count
        shown = escape_controls(f"POST {path}")
        body = _parsed(raw)
        if isinstance(found, tuple):
            step, _stream = found
            if isinstance(step, Miss):
                with self._lock:
                    self._misses.append(step.message)
                    self.mismatches.append(self._mismatch(number, shown, fmt.name, body, step))
                self.traces.note(Sent(number, shown, body))
            else:
                with self._lock:
                    self.played.add(id(step))
                self.traces.note(Sent(number, shown, body, step.label, step))
        return found

    def _mismatch(self, number: int, shown: str, fmt: str, body: Any, miss: Miss) -> Mismatch:
        closest = miss.closest
        if closest is None or not isinstance(body, dict):
            return Mismatch(number, shown, fmt, {}, said=miss.message)
        edits = self.traces.setup.edits
        return Mismatch(
            number,
            shown,
            closest.format,
            meaning(closest.format, body, edits),
            closest.label,
            meaning(closest.format, closest.request, edits),
        )

    def _refuse(
        self, fmt: Any, status: int, shown: str, message: str, mask: Callable[[str], str] = str
    ) -> Any:
        with self._lock:
            if not any(message is m for m in self._misses):
                self.refusals.append(
                    _(
                        "fc: {request} was refused: HTTP {status}: {why}",
                        request=shown,
                        status=status,
                        why=mask(localized(message)),
                    )
                )
        return super()._refuse(fmt, status, shown, message, mask)


def _parsed(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def opened(setup: Setup) -> FcTraces:
    """Start the fixture's server for `setup` (a SetupError says why it cannot)."""
    return FcTraces(setup).start()


def setup_from(
    here: Path,
    where: Path,
    record: bool,
    options: dict[str, Any],
    ini: Callable[[str], Any],
    base_url: str | None,
) -> Setup:
    """Build the setup from the marker's options, the ini options and the command line."""
    edits = Edits(set(_names(options.get("edited", ()))), set(_names(options.get("ignore", ()))))
    return Setup(
        where=where,
        record=record,
        provider=str(options.get("provider") or ini("fc_provider") or ""),
        base_url=base_url,
        edits=edits,
        all_played=bool(options.get("all_played", True)),
        hosts=list(ini("fc_provider_hosts") or []),
        here=here,
        expect=_names(options.get("expect", ())),
    )


def _names(value: str | Iterable[str]) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value]
