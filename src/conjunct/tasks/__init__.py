"""Task pipelines that call conjunct's classifiers once per decision."""
from . import bunsetsu, english  # noqa: F401,E402  (import registers the tasks, so models load by task name)
