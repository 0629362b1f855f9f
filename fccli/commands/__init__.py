"""Typer only: one module per command, each parsing options and calling one function below."""
