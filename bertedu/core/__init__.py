"""BERT itself: the configuration, the layers, the model and its heads, the losses, the tokenizer and the masking,
in Hugging Face's names (notebooks 01-05). Nothing here imports the training loop, the scale-out or the teaching
machinery: a reader sees BERT and nothing else."""
