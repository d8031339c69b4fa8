"""Training BERT: the pretraining data and batches, the optimizer and schedule, the loop and its checkpoints, the
held-out evaluations, the loss-curve diagnostic, and fine-tuning with its data and metrics (notebooks 03, 04, 06,
07). Uses :mod:`bertedu.core`, and :mod:`bertedu.scaleout` where a run spans processes or reads its corpus from
shards."""
