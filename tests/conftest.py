import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("CONJUNCT_SHARED_DATA", ROOT.parent / "shared" / "data"))

settings.register_profile(
    "default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile("thorough", deadline=None, max_examples=500, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data beside the project; tests that need it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real corpora not found at {SHARED_DATA} (set CONJUNCT_SHARED_DATA)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def ewt_sentences(shared_data):
    """EWT train and dev as DepSentences, read once for every test module
    (tests slice them; nothing in the library mutates a DepSentence)."""
    from conjunct.tasks.english import read_ud_english

    base = shared_data / "ud_english_ewt"
    return read_ud_english(base / "en_ewt-ud-train.conllu"), read_ud_english(base / "en_ewt-ud-dev.conllu")
