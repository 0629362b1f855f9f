"""The Gemini API format (generateContent): codec, stream assembler, declaration."""
