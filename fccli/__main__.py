"""`python -m fccli` is `fc`."""

from fccli.commands.entry import console

console()
