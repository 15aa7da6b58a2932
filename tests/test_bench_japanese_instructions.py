"""bench_japanese_instructions.py reads callgrind_annotate's inclusive counts
into the Japanese pipeline's stages (the profile itself needs valgrind and a
full model, so it is not run here)."""

from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

# The layout of `callgrind_annotate --inclusive=yes` (Valgrind 3.19), symbols kept.
ANNOTATED = """\
--------------------------------------------------------------------------------
Ir                   
--------------------------------------------------------------------------------
1,000,000 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                 file:function
--------------------------------------------------------------------------------
1,000,000 (100.0%)  ./Modules/_operator.c:_operator_call [/lib/libpython3.11.so.1.0]
  400,000 (40.00%)  ???:conjunct::(anonymous namespace)::segment_range(conjunct::JapaneseSegmenter const&, char const*) [/x/_core.so]
  300,000 (30.00%)  ???:conjunct::Classifier::predict(conjunct::Span<int>, conjunct::Decision const&, bool) const [/x/_core.so]
  250,000 (25.00%)  ???:conjunct::decode_batch(conjunct::ChainModel const&, conjunct::CsrView, int) [/x/_core.so]
  240,000 (24.00%)  ???:conjunct::decode_batch(conjunct::ChainModel const&, conjunct::CsrView, int)::{lambda(unsigned long, unsigned long)#1}::operator()(unsigned long, unsigned long) const [/x/_core.so]
  100,000 (10.00%)  ???:conjunct::BoundaryFeaturizer::text(std::basic_string_view<char>, conjunct::BoundaryFeaturizer::Gaps) const [/x/_core.so]
   60,000 ( 6.00%)  ???:conjunct::sassano_parse(conjunct::BunsetsuFeaturizer const&, long, long) [/x/_core.so]
   50,000 ( 5.00%)  ???:conjunct::TokenFeatures::prepare(conjunct::TokenBatch const&, conjunct::TokenFeatures::Prepared&) const [/x/_core.so]
   40,000 ( 4.00%)  ???:conjunct::TokenFeatures::extract_range(conjunct::TokenBatch const&, unsigned long) const [/x/_core.so]
   30,000 ( 3.00%)  ???:conjunct::yamcha_chunk(conjunct::Classifier const&, conjunct::Decision const&, bool) [/x/_core.so]
   20,000 ( 2.00%)  ???:conjunct::ChunkFeaturizer::sentence(conjunct::ChunkTokens const&, long, long) const [/x/_core.so]
"""


@pytest.fixture
def script(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_japanese_instructions

    return bench_japanese_instructions


def test_stages_are_read_from_their_functions_inclusive_counts(script):
    total, rows = script.parse_annotate(ANNOTATED)
    assert total == 1_000_000 and len(rows) == 12
    stages = script.stage_counts(total, rows)
    assert list(stages)[:2] == ["segmenter: boundary features", "segmenter: decisions"]
    assert stages["segmenter: boundary features"] == 100_000
    assert stages["segmenter: decisions"] == 300_000  # the loop minus its features
    assert stages["tagger: decoding"] == 250_000  # the function, not its lambda
    assert stages["tagger: word attributes"] == 50_000 and stages["tagger: feature ids"] == 40_000
    assert stages["bunsetsu chunker: features"] == 20_000 and stages["bunsetsu chunker: decisions"] == 30_000
    assert stages["bunsetsu parser (features and decisions)"] == 60_000
    assert sum(stages.values()) == total
    assert stages["the rest (stages' buffers, Python strings and objects)"] == 150_000


def test_a_core_without_symbols_is_named_as_the_cause(script):
    stripped = "\n".join(line for line in ANNOTATED.splitlines() if "sassano_parse" not in line)
    with pytest.raises(SystemExit, match="KEEP_SYMBOLS"):
        script.stage_counts(*script.parse_annotate(stripped))
