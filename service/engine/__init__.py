"""The Gnau engine: plain Python, no web framework (RULES.md is the specification)."""
