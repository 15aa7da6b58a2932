"""Task pipelines that call conjunct's classifiers once per decision."""

