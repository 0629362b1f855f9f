"""A headless Chromium driven over the Chrome DevTools Protocol, with nothing to install but the
browser: the protocol runs over a pair of pipes (`--remote-debugging-pipe`: commands in on fd 3,
answers and events out on fd 4, each message JSON ended by a NUL byte), so no websocket client
is needed.

One browser per test session; each page gets its own tab. A page records, from before its
first script runs, every request it makes (Network.requestWillBeSent) and every
Content-Security-Policy violation (an injected script or handler the policy stopped).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TIMEOUT = 20.0

_WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


def started_or_skipped() -> Iterator[Browser]:
    """A browser for a module's tests, closed after them (a fixture's body), or the tests
    skipped where no Chromium can be found."""
    executable = find_chromium()
    if executable is None:
        pytest.skip(
            "no Chromium on this machine (chromium, chromium-browser or google-chrome on PATH); "
            ".ci/run installs Debian's chromium package"
        )
    browser = Browser(executable)
    yield browser
    browser.close()


def find_chromium() -> str | None:
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    def __init__(self, executable: str) -> None:
        self.profile = tempfile.TemporaryDirectory(prefix="fc-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        args = [
            executable,
            "--headless",
            "--no-sandbox",  # tests may run as root (CI containers), where the sandbox refuses
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={self.profile.name}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        devnull = os.open(os.devnull, os.O_RDWR)
        self.pid = os.posix_spawn(
            executable,
            args,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, to_browser_r, 3),
                (os.POSIX_SPAWN_DUP2, from_browser_w, 4),
                (os.POSIX_SPAWN_DUP2, devnull, 1),
                (os.POSIX_SPAWN_DUP2, devnull, 2),
            ],
        )
        for fd in (to_browser_r, from_browser_w, devnull):
            os.close(fd)
        self._buffer = b""
        self._ids = 0
        self.events: list[dict[str, Any]] = []

    # ---- the protocol

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> Any:
        self._ids += 1
        message: dict[str, Any] = {"id": self._ids, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._ids:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str, session: str) -> dict[str, Any]:
        while True:
            for k, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self.events.pop(k)
            self.events.append(self._read())

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_browser], [], [], max(left, 0))
            if not ready:
                raise BrowserError(f"no answer from Chromium in {TIMEOUT:.0f} s")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise BrowserError("Chromium closed the pipe (it exited)")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    # ---- pages

    def open(self, path: Path, *, scripts: bool = True) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        page = Page(self, target, session)
        for domain in ("Page", "Network", "Runtime"):
            page.call(f"{domain}.enable")
        if not scripts:
            page.call("Emulation.setScriptExecutionDisabled", {"value": True})
        page.call("Page.addScriptToEvaluateOnNewDocument", {"source": _WATCH_VIOLATIONS})
        url = path.resolve().as_uri()
        page.url = url
        page.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired", session)
        return page

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.send("Browser.close")
        for fd in (self._to_browser, self._from_browser):
            os.close(fd)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if os.waitpid(self.pid, os.WNOHANG) != (0, 0):
                break
            time.sleep(0.05)
        else:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        self.profile.cleanup()


class Page:
    def __init__(self, browser: Browser, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session
        self.url = ""

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self.browser.send(method, params, self.session)

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able)."""
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def requests(self) -> list[str]:
        """Every URL the page asked for, besides itself."""
        self.call("Runtime.evaluate", {"expression": "0"})  # let pending events arrive first
        return [
            e["params"]["request"]["url"]
            for e in self.browser.events
            if e.get("sessionId") == self.session
            and e.get("method") == "Network.requestWillBeSent"
            and e["params"]["request"]["url"] != self.url
        ]

    def errors(self) -> list[str]:
        """Uncaught script errors of the page."""
        return [
            str(e["params"]["exceptionDetails"].get("text"))
            for e in self.browser.events
            if e.get("sessionId") == self.session and e.get("method") == "Runtime.exceptionThrown"
        ]

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})
        self.browser.events = [e for e in self.browser.events if e.get("sessionId") != self.session]
