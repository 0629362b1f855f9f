"""`fc proxy`: a local server an agent points its base URL at. Each request is forwarded as it
came, and every model request is recorded as a step of a trace, as `fc run` writes them.

    start.py          from the options to a running server
    settings.py       what the proxy was asked to do
    target.py         where `--to` sends what, and what line to give the agent
    app.py            the ASGI app: forwarding only, fc's own errors, facts for the journal
    upstreams.py      one connection to the upstream per request in flight
    facts.py          what the event loop hands the journal
    bursts.py         when the journal records: in the lulls between bursts
    journal.py        the journal's transports: a child process (fc proxy), a thread (tests)
    child.py          the journal's process: its lean entry, and the pipe's inbox
    handler.py        the journal's work: each request read, matched, checked, recorded
    conversations.py  which trace a request continues, or that it starts one
    step.py           one forwarded step, written by trace/recorder.py
"""

import sys

# httpx imports its command-line client (click, pygments' lexers, rich's tables) where those are
# installed, as they are beside fc; fc proxy, which holds its modules for as long as it runs,
# never calls it (docs/performance.md). `None` here makes that import fail as httpx expects.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
