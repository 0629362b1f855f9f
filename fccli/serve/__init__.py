"""`fc serve TRACE…`: a local server that answers as the provider recorded in the traces.

recordings.py  the traces read into steps to play back
match.py       the step a request is, or which came closest and what differs
app.py         the ASGI application around them
start.py       read the traces, bind, say where to point the agent, serve until Ctrl-C
launch.py      an ASGI app run on host:port with fc's own lines (fc proxy's too)
"""
