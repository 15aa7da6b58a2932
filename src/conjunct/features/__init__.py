"""The feature engine's Python side: template specs and the keys a model file
stores (``spec``), feature indices (``index``: strings <-> ids, counts,
frequency ranks) and their file checks (``checks``), and binary feature
matrices from what users pass (``matrices``)."""
