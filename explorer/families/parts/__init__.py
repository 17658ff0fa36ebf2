"""A tokenizer read from a file into parts in the explorer: how the pages draw it."""
