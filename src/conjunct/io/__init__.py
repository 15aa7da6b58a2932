"""Reading and writing: text input, feature data, corpora and token streams, the
HTML picture of an analysis, other tools' model files, and conjunct's own model
file (the container, the registry of kinds with load / save / pickling, and the
shared checks every kind's sections pass before an object is built)."""
