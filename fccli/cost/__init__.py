"""What a step and a trace cost in US dollars, from genai-prices' table (pydantic's, bundled).

    target.py   which model a trace is priced as: its own, the one the demo stands in for,
                or `--price-model`; the provider's id in the table
    price.py    one step's usage priced (input, output, cache reads and writes, reasoning,
                tiers, time-of-day prices), what the prompt cache saved; "price unknown" as a value
    trace.py    every step of a manifest priced, and the total
    money.py    a price as fc writes it: `$0.000071` on screen, a number in JSON

fc's internal usage counts every input token in `input_tokens`, those read from or written to
the cache included (each format's codec adds Anthropic's parts back together), as genai-prices
counts them, so a step is priced from its internal usage whatever its wire format.

genai-prices is imported inside price.py's functions only: `--help` and the commands that price
nothing never load it.
"""
