"""The Gemini API format (generateContent): codec, stream assembler, declaration."""

FAMILY = "gemini"
"""The layout family of this format alone: contents of parts (wire/base.py). Here, not in
format.py, so that fc check can tell it without importing Gemini's format."""
