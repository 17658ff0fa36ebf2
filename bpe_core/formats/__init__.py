"""Reading and writing tokenizer files: our JSON, Hugging Face, GPT-2 and tiktoken."""
from ._common import dump_json
from .detect import Format, detect_and_parse, detect_format, load_any, load_bytes
from .gpt2 import dumps_gpt2, load_gpt2, save_gpt2
from .huggingface import dumps_hf, from_hf_dict, load_hf, save_hf, to_hf_dict
from .ours import dumps as dumps_tokenizer
from .ours import from_json_dict, load_tokenizer, save_tokenizer, to_json_dict

__all__ = [
    "Format",
    "detect_and_parse",
    "detect_format",
    "dump_json",
    "dumps_gpt2",
    "dumps_hf",
    "dumps_tokenizer",
    "from_hf_dict",
    "from_json_dict",
    "load_any",
    "load_bytes",
    "load_gpt2",
    "load_hf",
    "load_tokenizer",
    "save_gpt2",
    "save_hf",
    "save_tokenizer",
    "to_hf_dict",
    "to_json_dict",
]
