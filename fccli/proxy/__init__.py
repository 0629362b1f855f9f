"""`fc proxy`: a local server an agent points its base URL at. Each request is forwarded as it
came, and every model request is recorded as a step of a trace, as `fc run` writes them.

    target.py         where `--to` sends what, and what line to give the agent
    conversations.py  which trace a request continues, or that it starts one
    recorder.py       one step's files and manifest record, the checks before forwarding
    app.py            the ASGI app: forwarding, streams teed to the recorder, fc's own errors
"""
