"""`fc proxy`: a local server an agent points its base URL at. Each request is forwarded as it
came, and every model request is recorded as a step of a trace, as `fc run` writes them.

    target.py         where `--to` sends what, and what line to give the agent
    app.py            the ASGI app: forwarding only, fc's own errors, facts for the journal
    facts.py          what the event loop hands the journal
    journal.py        the journal's transports: a child process (fc proxy), a thread (tests)
    scribe.py         the journal's work: each request read, matched, checked, recorded
    conversations.py  which trace a request continues, or that it starts one
    recorder.py       one step's files and manifest record
"""
