"""Reading and writing tokenizer files: our JSON, Hugging Face, GPT-2 and tiktoken."""
