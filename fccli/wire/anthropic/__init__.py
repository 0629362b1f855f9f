"""The Anthropic Messages format: codec, stream assembler, declaration."""

ID_PATTERN = r"^[a-zA-Z0-9_-]+$"
"""Anthropic refuses a tool_use id outside this pattern. Here, not in codec.py, so that fc check
can hold any history to it without importing Anthropic's codec."""
