"""Wrote parser_malt.cjt and expected.json with the English parser of before
the feature engine (per-word id caches in Python, no feature keys in the
file): a 6-sentence malt model and its parses of 12 EWT dev sentences.
tests/test_english_features.py loads the file with today's parser, which
reads the keys from the feature names, and checks the parses are the same:

    python make.py EWT_DIR OUT_DIR    (EWT_DIR: the UD English EWT folder of the corpora)
"""
import json
import sys

from conjunct.tasks.english import EnglishDependencyParser, read_ud_english

base, out = sys.argv[1] + "/", sys.argv[2]
train = read_ud_english(base + "en_ewt-ud-train.conllu")[:6]
dev = read_ud_english(base + "en_ewt-ud-dev.conllu")[:12]
p = EnglishDependencyParser(degree=2, n_iter=1, method="pkb").fit(train)
p.save(out + "/parser_malt.cjt")
json.dump({"sentences": [[s.forms, s.upos, s.xpos] for s in dev], "parses": p.parse(dev)}, open(out + "/expected.json", "w"))
