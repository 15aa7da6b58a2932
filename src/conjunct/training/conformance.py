"""Which of scikit-learn's ``check_estimator`` checks cannot apply to the
estimators, and why: pass :func:`expected_failed_checks` as
``check_estimator(est, expected_failed_checks=expected_failed_checks(est))``
(or to ``parametrize_with_checks``). ``tests/test_sklearn_conformance.py``
checks that every listed check does fail and every other one passes;
``benchmarks/sklearn_conformance.py`` writes the table in the README."""

from __future__ import annotations

from typing import Dict

__all__ = ["expected_failed_checks"]

_CONTINUOUS = ("feeds continuous random values as features; with binarize=False features must be 0 or 1 "
               "and other values are refused with that advice (binarize=True takes non-zero as active)")

# Checks whose data are all continuous features (with binarize=False every one stops at the binary check).
_CONTINUOUS_CHECKS = (
    "check_all_zero_sample_weights_error", "check_classifier_data_not_an_array", "check_classifiers_classes",
    "check_classifiers_train", "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object",
    "check_estimator_sparse_array", "check_estimator_sparse_matrix", "check_estimator_sparse_tag",
    "check_estimators_dtypes", "check_estimators_fit_returns_self", "check_estimators_nan_inf",
    "check_estimators_overwrite_params", "check_estimators_partial_fit_n_features", "check_estimators_pickle",
    "check_f_contiguous_array_estimator", "check_fit2d_1feature", "check_fit2d_predict1d", "check_fit_check_is_fitted",
    "check_fit_idempotent", "check_fit_score_takes_y", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_n_features_in", "check_n_features_in_after_fitting",
    "check_pipeline_consistency", "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    "check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data",
    "check_sample_weights_list", "check_sample_weights_not_an_array", "check_sample_weights_not_overwritten",
    "check_sample_weights_pandas_series", "check_sample_weights_shape", "check_supervised_y_2d",
)

_BLOBS = ("learns Gaussian blobs in 2 continuous coordinates and asks for 83% accuracy: as binary presence "
          "features (binarize=True) every coordinate is active in every example, so the classes look the same")
_WEIGHTS = ("online learning: a weight scales the example's step in every epoch, which is not the model "
            "trained on the example repeated or removed (the shuffled order and the number of rounds "
            "differ); weights of 1 give exactly the unweighted model (tests/test_sklearn_conformance.py)")


def expected_failed_checks(estimator) -> Dict[str, str]:
    """Checks of ``sklearn.utils.estimator_checks`` that cannot apply to
    ``estimator`` (a :class:`PAClassifier` or :class:`L1LogLinearClassifier`), with the reason.

    Parameters
    ----------
    estimator : PAClassifier or L1LogLinearClassifier

    Returns
    -------
    dict of str to str
        Check name -> why it cannot pass.
    """
    weights = {"check_sample_weight_equivalence_on_dense_data": _WEIGHTS,
               "check_sample_weight_equivalence_on_sparse_data": _WEIGHTS}
    if getattr(estimator, "binarize", False):
        return {"check_classifiers_train": _BLOBS, **weights}
    failing = dict.fromkeys(_CONTINUOUS_CHECKS, _CONTINUOUS)
    if hasattr(estimator, "predict_proba"):
        failing["check_decision_proba_consistency"] = _CONTINUOUS
    return failing
