"""bpe_core: an exact, incremental, traceable byte pair encoding engine.

>>> from bpe_core import train
>>> tok = train("low low lower newest widest", merges=5)
>>> tok.encode("lowest").tokens
['low', 'e', 'st</w>']
"""
from .builtin import Builtin, builtin_info, builtin_names, is_builtin, load_builtin
from .counting import CountProgress, count_partition, count_sources, merge_counts, reduce_counts
from .counts_file import CountsHeader, check_compatible, read_counts, write_counts
from .dask_counting import count_on_dask
from .encoder import MergeStep, RankTable, encode_ranked, encode_replay
from .hierarchy import MergeNode, merge_tree
from .model import Encoding, Tokenizer
from .settings import EOW, UNK, BPEError, Settings
from .sources import DEFAULT_PARTITION_BYTES, Partition, cut_pieces, expand_sources, plan_partitions, read_texts
from .trainer import DEFAULT_MERGES, MAX_MERGES, MAX_TOKEN_LENGTH, Merge, TrainResult, check_target
from .training import first_merges, train, train_from_counts

__all__ = [
    "CountProgress",
    "CountsHeader",
    "DEFAULT_PARTITION_BYTES",
    "Partition",
    "check_compatible",
    "count_partition",
    "count_sources",
    "count_on_dask",
    "cut_pieces",
    "expand_sources",
    "merge_counts",
    "plan_partitions",
    "read_counts",
    "read_texts",
    "reduce_counts",
    "write_counts",
    "BPEError",
    "Builtin",
    "DEFAULT_MERGES",
    "MAX_MERGES",
    "MAX_TOKEN_LENGTH",
    "EOW",
    "Encoding",
    "Merge",
    "MergeNode",
    "MergeStep",
    "RankTable",
    "Settings",
    "Tokenizer",
    "TrainResult",
    "UNK",
    "builtin_info",
    "builtin_names",
    "check_target",
    "encode_ranked",
    "encode_replay",
    "is_builtin",
    "load_builtin",
    "merge_tree",
    "train",
    "train_from_counts",
    "first_merges",
]
