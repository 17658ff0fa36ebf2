"""The production tokenizers built in, offline (GPT-2, cl100k_base, o200k_base, Llama 3, Qwen 3).

>>> builtin_names()
['gpt2', 'cl100k_base', 'o200k_base', 'llama3', 'qwen3']
>>> builtin_info("o200k_base").title
'GPT-4o (o200k_base)'

The loading lives in `bpe_core.formats.builtin`, beside the file readers it uses, so that
`formats.load_any` can resolve a built-in's name without an import cycle.
"""
from .formats.builtin import (
    Builtin,
    builtin_info,
    builtin_names,
    cache_dir,
    forget_loaded,
    is_builtin,
    let_go_unused,
    load_builtin,
)

__all__ = [
    "Builtin", "builtin_info", "builtin_names", "cache_dir", "forget_loaded", "is_builtin", "let_go_unused",
    "load_builtin",
]
