"""BPE in the explorer: what the pages draw of it (`player`: the Watch page)."""
