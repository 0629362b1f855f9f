"""Wire formats: one module per format, pure functions both ways. Imports `core` only."""
