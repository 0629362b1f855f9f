"""MCP servers as a run's tools, their JSON-RPC kept in the trace.

servers.py   what --mcp names: a command line (stdio) or a URL (streamable HTTP)
stdio.py     the server's process, every line in and out kept
http.py      a streamable HTTP server, every message in and out kept
wiretap.py   the ordered record of one server's traffic (mcp-<server>.jsonl)
client.py    the SDK's ClientSession per server, on an event loop of their own
tools.py     the servers' tools offered to the model, run by tools/call
demo.py      `fc mcp demo`: a server built on the SDK's MCPServer, for offline runs
errors.py    the SDK is an extra: say how to install it
"""
