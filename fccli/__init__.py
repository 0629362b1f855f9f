"""fc: make LLM tool calling visible.

The model only states an intent; the program executes. fc runs the whole round trip and writes
every request and response, in its internal content-block format and in the provider's wire
format, as numbered JSON files.
"""

__version__ = "0.1.0"
