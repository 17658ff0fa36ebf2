"""What the explorer's pages show, as data: no rendering here.

Greedy longest match lives in `bpe_core.analysis.longest_match` (imported from there, not re-exported).
"""
from .segments import (
    Column,
    ComparedToken,
    Comparison,
    boundaries,
    bytes_text,
    compare_segmentations,
    display_token,
    hex_bytes,
    split_characters,
    token_bytes_of,
    visible_whitespace,
)
from .vocabulary import (
    DropoutDistribution,
    DropoutOutcome,
    LifeStory,
    VocabRow,
    dropout_distribution,
    life_story,
    nearly_unused,
    token_count_curve,
    token_usage,
    vocabulary_table,
)

__all__ = [
    "Column",
    "ComparedToken",
    "Comparison",
    "DropoutDistribution",
    "DropoutOutcome",
    "LifeStory",
    "VocabRow",
    "boundaries",
    "bytes_text",
    "compare_segmentations",
    "display_token",
    "dropout_distribution",
    "hex_bytes",
    "life_story",
    "nearly_unused",
    "split_characters",
    "token_bytes_of",
    "token_count_curve",
    "token_usage",
    "visible_whitespace",
    "vocabulary_table",
]
