"""The built site: the MkDocs plugin (plugin.py) and the features it wires, each a plain function
of the page model, the record and the strings; the search index, the notebooks, the printable PDF."""
