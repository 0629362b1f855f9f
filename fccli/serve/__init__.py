"""`fc serve TRACE…`: a local server that answers as the provider recorded in the traces.

recordings.py reads the traces into steps to play back, match.py finds the step a request is
(or says which came closest and what differs); app.py is the ASGI application around them.
"""
