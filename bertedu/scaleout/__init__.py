"""Scale-out: several processes (``torchrun``, DDP) and corpora larger than memory (tokenized shards on disk). The
course runs on one CPU without it; docs/scaling.md shows it at work (notebook 06)."""
