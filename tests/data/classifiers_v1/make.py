"""Writes the classifier files of this folder and the margins they give:
`python make.py OUT` with the conjunct version whose files should keep
loading (these were written at commit d1d359e, before compiling moved
into one C++ call)."""
import sys

import numpy as np
import scipy.sparse as sp

import conjunct

out = sys.argv[1]
rng = np.random.default_rng(42)


def csr(n, F, p):
    return sp.csr_matrix((rng.random((n, F)) < p).astype(float))


S = csr(40, 25, 0.25)
binary = conjunct.KernelModel(S, rng.normal(size=40), 0.3, degree=3)
multi = conjunct.KernelModel(S, np.where(rng.random((40, 3)) < 0.4, rng.normal(size=(40, 3)), 0.0), rng.normal(size=3), degree=2,
                             decision="ovo", classes=["a", "b", "c"])
linear = conjunct.ConjunctiveLinearModel([[0], [1, 2], [0, 3, 4], [5]], rng.normal(size=(4, 1)), 0.1)
X = csr(30, 25, 0.25)
specs = {
    "pkb": (binary, "pkb", {}), "pki": (multi, "pki", {}), "pke": (binary, "pke", {}), "pke_multi": (multi, "pke", {"dense_features": 4}),
    "split": (binary, "split", {"common_features": 6}), "fstrie": (binary, "fstrie", {"events": X, "max_nodes": 40}),
    "fstrie_split": (multi, "fstrie", {"events": X, "base": "split", "common_features": 5}),
    "linear_pke": (linear, "pke", {}), "linear_fstrie": (linear, "fstrie", {"events": X[:, :6]}),
}
expected = {"X": X.toarray().astype(np.int8)}
for name, (model, method, params) in specs.items():
    clf = model.compile(method, **params)
    clf.save(f"{out}/{name}.cjt")
    Xm = X if name != "linear_fstrie" else X[:, :6]
    expected[name] = clf.decision_function(Xm)
    expected[name + "_labels"] = clf.predict(Xm)
np.savez_compressed(f"{out}/expected.npz", **expected)
print("ok", len(specs))
