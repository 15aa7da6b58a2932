"""The models: labels and decision rules (``labels``), the two model types
(``kernel``: KernelModel, ``linear``: ConjunctiveLinearModel, on ``base``)
and the compiled classifiers they make (``classifiers``, its file checks in
``classifier_checks``)."""
