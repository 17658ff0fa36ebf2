"""A tokenizer's report card: the measures research judges tokenizers by, for any tokenizer.

`report_card` measures one tokenizer on a reference text (and the parallel set's languages);
`MEASURES` says what each figure is and where it comes from; `checks` gives the sanity checks.
`python -m bpe_core report` and the explorer's Report card page are built on these.
"""
from .card import Fairness, LanguageRow, ReportCard, VocabularyChecks, fairness, report_card, vocabulary_checks
from .checks import CHECKS, FAIL, NOT_CHECKED, PASS, WARN, Check, checks
from .digits import DigitGrouping, digit_grouping
from .formulas import DEFAULT_ALPHA, distribution, efficiency, gini, renyi_entropy
from .measures import MEASURES, Measure, measure, values
from .profile import RoundTrip, TextProfile, profile
from .residue import IntermediateToken, Residue, inside_counts, residue

__all__ = [
    "CHECKS", "DEFAULT_ALPHA", "FAIL", "MEASURES", "NOT_CHECKED", "PASS", "WARN", "Check", "DigitGrouping",
    "Fairness", "IntermediateToken", "LanguageRow", "Measure", "ReportCard", "Residue", "RoundTrip", "TextProfile",
    "VocabularyChecks", "checks", "digit_grouping", "distribution", "efficiency", "fairness", "gini", "inside_counts",
    "measure", "profile", "renyi_entropy", "report_card", "residue", "values", "vocabulary_checks",
]
