"""`python -m fccli` is `fc`."""

from fccli.cli.entry import console

console()
