"""What the explorer's pages show, as data: no rendering here.

compression: the compression curve and the collapse step of a training run.
mistakes: the common mistakes (merge order, no end-of-word marker, longest match, other text).
segments: how texts split into tokens, and tokens shown as text.
stability: runs on 1%, 10%, 50% of a corpus against the full run.
minimal: BPE's cut of each corpus word beside a shortest cut in the same vocabulary.
stats: a text's bytes, characters, words and tokens (the language tax).
undertrained: under-trained token candidates (never produced on a corpus; unreachable alone).
vocabulary: the vocabulary table, a token's life story, BPE-dropout.
Greedy longest match lives in `bpe_core.analysis.longest_match` (imported from there, not re-exported).
"""
from .compression import Curve, collapse_step, compression_curve
from .minimal import MinimalReport, WordSplit, minimal_segmentation, minimal_vs_bpe, shortest_split
from .mistakes import (
    Mismatch,
    TryIt,
    around_first_difference,
    greedy_rows,
    marker_rows,
    mismatch,
    order_rows,
    tokens_per_word,
    try_it_yourself,
    with_extra,
    wrong_orders,
)
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
    token_segments,
    token_text,
    visible_whitespace,
)
from .stability import Divergence, FractionStability, Stability, stability, stability_from_counts
from .stats import TextStats, text_stats
from .undertrained import RareToken, Unreachable, rare_tokens, token_counts, unreachable_tokens
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
    "Curve",
    "Divergence",
    "DropoutDistribution",
    "DropoutOutcome",
    "FractionStability",
    "LifeStory",
    "MinimalReport",
    "Mismatch",
    "RareToken",
    "Stability",
    "TextStats",
    "TryIt",
    "Unreachable",
    "VocabRow",
    "WordSplit",
    "around_first_difference",
    "boundaries",
    "bytes_text",
    "collapse_step",
    "compare_segmentations",
    "compression_curve",
    "display_token",
    "dropout_distribution",
    "greedy_rows",
    "hex_bytes",
    "life_story",
    "marker_rows",
    "minimal_segmentation",
    "minimal_vs_bpe",
    "mismatch",
    "nearly_unused",
    "order_rows",
    "rare_tokens",
    "shortest_split",
    "split_characters",
    "stability",
    "stability_from_counts",
    "text_stats",
    "token_bytes_of",
    "token_count_curve",
    "token_counts",
    "token_segments",
    "token_text",
    "token_usage",
    "tokens_per_word",
    "try_it_yourself",
    "unreachable_tokens",
    "visible_whitespace",
    "vocabulary_table",
    "with_extra",
    "wrong_orders",
]
