"""Ollama's native chat format (`/api/chat`): codec, NDJSON stream assembler, history view,
declaration."""
