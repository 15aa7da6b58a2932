"""The tagger tags a batch in blocks of about 2,048 words (features, then
decoding, buffers kept per thread): the tags, path scores and search steps
are those of tagging every sentence alone and of the whole-batch path that
several threads take, on EWT text across many blocks, with a sentence longer
than a block and empty sentences among them."""

import numpy as np
import pytest

from conjunct.tagging import PerceptronTagger
from conjunct.tagging.io import read_tagged


@pytest.fixture(scope="module")
def tagged(shared_data):
    words, tags = read_tagged(shared_data / "ud_english_ewt/en_ewt-ud-dev.conllu", tag_field="upos")
    tagger = PerceptronTagger(n_iter=1).fit(words[:300], tags[:300])
    test = words[300:1300]
    long = [w for s in test[:300] for w in s]  # one sentence of more words than a block holds
    assert len(long) > 2048 and sum(map(len, test)) > 3 * 2048
    return tagger, test[:200] + [long] + [[]] + test[200:] + [[]]


@pytest.mark.parametrize("decoder", ["staggered-column", "viterbi"])
def test_blocks_equal_whole_batch_and_single_sentences(tagged, decoder):
    tagger, sentences = tagged
    blocks = tagger.decode(sentences, decoder=decoder)
    whole = tagger.decode(sentences, decoder=decoder, n_jobs=2)
    assert blocks.tags == whole.tags
    np.testing.assert_array_equal(blocks.scores, whole.scores)
    np.testing.assert_array_equal(blocks.iterations, whole.iterations)
    alone = [tagger.decode([s], decoder=decoder) for s in sentences[195:205]]
    assert [a.tags[0] for a in alone] == blocks.tags[195:205]
    assert [float(a.scores[0]) for a in alone] == [float(x) for x in blocks.scores[195:205]]
    assert blocks.tags[201] == [] and len(blocks.tags[200]) > 2048
    # A second pass over the same batch (the buffers reused) gives the same.
    assert tagger.decode(sentences, decoder=decoder).tags == blocks.tags
