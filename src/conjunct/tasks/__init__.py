"""Task pipelines that call conjunct's classifiers once per decision."""
from . import bunsetsu, chunk, english, segment  # noqa: F401,E402  (import registers the tasks, so models load by task name)
