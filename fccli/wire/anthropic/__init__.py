"""The Anthropic Messages format: codec, stream assembler, declaration."""

ID_PATTERN = r"^[a-zA-Z0-9_-]+$"
"""Anthropic refuses a tool_use id outside this pattern. Here, not in codec.py, so that the
internal format (which Anthropic's providers' rules hold) declares it without the codec."""
