"""Providers: configuration over the wire formats (endpoint, key, default model, quirks as data)."""
