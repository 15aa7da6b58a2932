"""The subcommands of the ``conjunct`` command line: one module per command,
each with ``register(subparsers)`` and ``run(args)``."""

# Order of appearance in ``conjunct --help``.
COMMANDS = ["convert", "compile", "predict", "info", "train", "tag", "parse", "chunk", "segment", "analyze", "demo"]
