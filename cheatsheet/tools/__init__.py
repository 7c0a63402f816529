"""The contributor tools behind `python -m cheatsheet`: stubs, the Chinese lint, the translation
status, the API-docs table."""
