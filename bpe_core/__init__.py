"""bpe_core: an exact, incremental, traceable byte pair encoding engine.

>>> from bpe_core import train
>>> tok = train("low low lower newest widest", merges=5)
>>> tok.encode("lowest").tokens
['low', 'e', 'st</w>']
"""
import importlib
from typing import TYPE_CHECKING, Any

# Each public name -> the module that defines it, imported on first use (PEP 562), so that
# `import bpe_core` costs almost nothing and a command pays only for what it uses.
_HOME = {
    "Builtin": "builtin",
    "builtin_info": "builtin",
    "builtin_names": "builtin",
    "is_builtin": "builtin",
    "load_builtin": "builtin",
    "CountProgress": "counting",
    "count_partition": "counting",
    "count_sources": "counting",
    "merge_counts": "counting",
    "reduce_counts": "counting",
    "CountsHeader": "counts_file",
    "check_compatible": "counts_file",
    "read_counts": "counts_file",
    "write_counts": "counts_file",
    "count_on_dask": "dask_counting",
    "MergeStep": "encoder",
    "RankTable": "encoder",
    "encode_ranked": "encoder",
    "encode_replay": "encoder",
    "MergeNode": "hierarchy",
    "merge_tree": "hierarchy",
    "Encoding": "model",
    "Tokenizer": "model",
    "EOW": "settings",
    "UNK": "settings",
    "BPEError": "settings",
    "Settings": "settings",
    "DEFAULT_PARTITION_BYTES": "sources",
    "Partition": "sources",
    "cut_pieces": "sources",
    "expand_sources": "sources",
    "plan_partitions": "sources",
    "read_texts": "sources",
    "DEFAULT_MERGES": "trainer",
    "MAX_MERGES": "trainer",
    "MAX_TOKEN_LENGTH": "trainer",
    "Merge": "trainer",
    "TrainResult": "trainer",
    "check_target": "trainer",
    "first_merges": "training",
    "train": "training",
    "train_from_counts": "training",
}

if TYPE_CHECKING:  # the names as type checkers and editors see them
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


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # found once: the next access is an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME])


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
