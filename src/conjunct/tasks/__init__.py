"""Task pipelines that call conjunct's classifiers once per decision.

One package per task -- ``bunsetsu`` (Japanese bunsetsu dependency parsing),
``english`` (UD English arc-eager parsing), ``chunk`` (CoNLL-2000 chunking),
``segment`` (Japanese word segmentation) -- each split by role (reader,
features, oracle, runner, metrics, pipeline), over what they share:
:class:`~conjunct.tasks.base.TaskPipeline` and
:class:`~conjunct.tasks.runner.Runner`. Nothing here is imported until it is
used; a saved pipeline loads its task's package by the task's name.
"""
