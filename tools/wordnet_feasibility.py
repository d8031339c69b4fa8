"""What pretraining a mini-BERT on WordNet costs and reaches on one CPU thread: issue 42's phase-1 measurements.

    python tools/wordnet_feasibility.py padding                 # padding share of the batches, packed or not
    python tools/wordnet_feasibility.py throughput              # tokens/s of the pretraining step per shape
    python tools/wordnet_feasibility.py run NAME KEY=VALUE ...  # one recipe -> runs/wordnet/NAME (+ cost.json)
    python tools/wordnet_feasibility.py score [NAME ...]        # masked words: runs, unigram and Kneser–Ney
    python tools/wordnet_feasibility.py copying NAME [train]    # examples alone and after their header
    python tools/wordnet_feasibility.py supersense NAME pretrained|scratch FRACTION SEED LR   # fine-tune, dev
    python tools/wordnet_feasibility.py supersense-rules FRACTION SEED   # majority, lemma, TF-IDF + LR, dev

Needs ``make wordnet`` (build/wordnet/) and the corpus as shards with an 8,000-token vocabulary::

    python -m bertedu.training.shards --corpus build/wordnet/corpus.txt --output build/wordnet-shards/v8000 \
        --vocab-size 8000

Everything trains with the course's own step (:func:`bertedu.training.pretrain.train_step`, through
:func:`~bertedu.training.pretrain.pretrain` for the recipes) on one thread; times are CPU seconds of this process
(``time.process_time``), so that other programs on a shared machine slow the wall clock, not the figures (they
still cost some cache). Scores are on the *dev* items (``mlm_examples_dev.tsv``, ``mlm_definitions_dev.tsv``) and
on ``data/wordnet/everyday_mlm.tsv``; the test files stay unread for notebook 12. Results go to
``build/wordnet-feasibility/*.json``; ``score`` prints the table of data/wordnet/README.md.

``supersense`` fine-tunes BERT-tiny on supersense in context (``build/wordnet/supersense_in_context``, read as
sentence pairs: the sentence, the target word) from the checkpoint runs/wordnet/NAME or from random weights with its
configuration (``scratch``), on a ``label_budget`` share of the training items, and prints dev accuracy, also on the
polysemous slice; ``supersense-rules`` scores the cheap rules on the same share (scikit-learn for TF-IDF + logistic
regression: ``pip install scikit-learn``). One JSON line each.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import math
import os
import sys
import time
from pathlib import Path

import torch

from bertedu.core.embeddings import BertEmbeddings
from bertedu.core.model import BertForPreTraining, BertPreTrainedModel
from bertedu.course.ngram_lm import KneserNeyLM, UnigramRule, corpus_word_lists, masked_word_rule_scores
from bertedu.training.checkpoint import load_checkpoint
from bertedu.training.data import read_corpus
from bertedu.training.evalsets import MaskedWordItem, load_masked_word_items
from bertedu.training.pretrain import (
    PretrainingConfig,
    model_config,
    objective_batch,
    pretrain,
    pretraining_batches,
    recipe_optimizer,
    train_step,
)
from bertedu.training.probes import candidate_mask, masked_word_probabilities
from bertedu.training.shards import ShardedCorpus

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "build" / "wordnet"
SHARDS = ROOT / "build" / "wordnet-shards" / "v8000"
RUNS = ROOT / "runs" / "wordnet"
RESULTS = ROOT / "build" / "wordnet-feasibility"
ITEM_FILES = {
    "examples": BUILT / "mlm_examples_dev.tsv",
    "definitions": BUILT / "mlm_definitions_dev.tsv",
    "everyday": ROOT / "data" / "wordnet" / "everyday_mlm.tsv",
}
#: The base of every recipe here: the corpus as shards, the fused attention kernel, one thread.
BASE = dict(
    corpus=str(SHARDS),
    attn_implementation="sdpa",
    num_threads=1,
    eval_every=0,
    log_every=50,
    dropout=0.0,
    packing=True,
)


def config(**settings) -> PretrainingConfig:
    return PretrainingConfig(**{**BASE, **settings})


def padding_share(settings: dict, batches: int = 200) -> dict:
    """Over the first ``batches`` batches of a run with ``settings``: the share of padding in the batches (each is
    padded to its longest row), the real tokens per row, and their share of ``max_length`` (a row's room)."""
    cfg = config(**settings)
    corpus = ShardedCorpus(SHARDS)
    stream = pretraining_batches(cfg, corpus, corpus.tokenizer)
    real = total = rows = 0
    for _ in range(batches):
        _, batch = next(stream)
        real += int(batch["attention_mask"].sum())
        total += batch["attention_mask"].numel()
        rows += batch["attention_mask"].size(0)
    return {
        "padding_share": 1 - real / total,
        "tokens_per_row": real / rows,
        "share_of_max_length": real / (rows * cfg.max_length),
    }


def throughput(settings: dict, steps: int = 30, warm: int = 5) -> dict:
    """CPU seconds per step and real (not padding) tokens per CPU second of the course's train_step."""
    cfg = config(**settings, steps=steps + warm)
    corpus = ShardedCorpus(SHARDS)
    torch.manual_seed(0)
    model = BertForPreTraining(
        model_config(cfg, corpus.tokenizer.vocab_size).replace(attn_implementation="sdpa")
    )
    optimizer, scheduler = recipe_optimizer(model, cfg)
    params = [p for p in model.parameters() if p.requires_grad]
    stream = pretraining_batches(cfg, corpus, corpus.tokenizer)
    tokens = seconds = 0.0
    for step in range(steps + warm):
        _, batch = next(stream)
        start = time.process_time()
        train_step(model, objective_batch(batch, cfg), optimizer, scheduler, params, 1.0, step)
        if step >= warm:
            seconds += time.process_time() - start
            tokens += int(batch["attention_mask"].sum())
    return {
        "cpu_s_per_step": seconds / steps,
        "tokens_per_cpu_s": tokens / seconds,
        "load": os.getloadavg()[0],
    }


def sinusoid_positions() -> None:
    """An experiment, not BERT: every model built from now on starts its position embeddings as the sinusoids of
    Vaswani et al. (2017), scaled to the norm of a word embedding at initialisation (``0.02 * sqrt(H)``), instead of
    N(0, 0.02) noise: is the plateau the time attention needs to find positions?"""
    original = BertPreTrainedModel.post_init

    def post_init(self) -> None:
        original(self)
        for module in self.modules():
            if isinstance(module, BertEmbeddings):
                table = module.position_embeddings.weight  # (P, H)
                P, H = table.shape
                position = torch.arange(P, dtype=torch.float32)[:, None]
                frequency = torch.exp(torch.arange(0, H, 2, dtype=torch.float32) * (-math.log(10000.0) / H))
                with torch.no_grad():
                    table[:, 0::2] = torch.sin(position * frequency)
                    table[:, 1::2] = torch.cos(position * frequency)
                    table.mul_(self.config.initializer_range * math.sqrt(H) / math.sqrt(H / 2))

    BertPreTrainedModel.post_init = post_init


def run(name: str, settings: dict) -> dict:
    """Pretrain the recipe ``settings`` into runs/wordnet/NAME; its cost goes to NAME/cost.json."""
    stop_after = settings.pop("stop_after", None)  # the first steps of a longer run (its schedule unchanged)
    if settings.pop("position_init", None) == "sinusoid":
        sinusoid_positions()
    cfg = config(**settings)
    start, wall = time.process_time(), time.perf_counter()
    result = pretrain(cfg, RUNS / name, progress=False, stop_after=stop_after)
    cost = {
        "name": name,
        "settings": settings,
        "cpu_minutes": (time.process_time() - start) / 60,
        "wall_minutes": (time.perf_counter() - wall) / 60,
        "load": os.getloadavg()[0],
        "final_train": result.final_train_record,
        "steps_done": result.step,
        "tokens_seen": result.step * cfg.batch_size * cfg.max_length,
    }
    (RUNS / name / "cost.json").write_text(json.dumps(cost, indent=2) + "\n", encoding="utf-8")
    return cost


def single_token_items(tokenizer, items: list[MaskedWordItem]) -> list[MaskedWordItem]:
    """The items with their answers that are one whole-word token of ``tokenizer`` (items with none dropped)."""
    kept = []
    for item in items:
        answers = tuple(
            a for a in item.answers if len(p := tokenizer.tokenize(a)) == 1 and p[0] != tokenizer.unk_token
        )
        if answers:
            kept.append(MaskedWordItem(item.sentence, answers))
    return kept


def build_script():
    """data/wordnet/make_wordnet_data.py as a module (loaded once): its word lists, masking rule and hash."""
    if "make_wordnet_data" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "make_wordnet_data", ROOT / "data/wordnet/make_wordnet_data.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["make_wordnet_data"]


def function_words() -> frozenset[str]:
    """The words a WordNet masked-word item never hides (data/wordnet/make_wordnet_data.py's FUNCTION_WORDS)."""
    return build_script().FUNCTION_WORDS


def candidate_ids(tokenizer) -> dict[str, list[int]]:
    """The fillers ranked: ``all`` the whole-word tokens (the course's probes), ``content`` those that are words of
    letters and not function words (what every item here hides), for the model and the rules alike."""
    ids = candidate_mask(tokenizer).nonzero().flatten().tolist()
    skip = function_words()
    content = [i for i in ids if (t := tokenizer.convert_ids_to_tokens(i)).isalpha() and t not in skip]
    return {"all": ids, "content": content}


def rule_scores(tokenizer) -> dict:
    """Unigram and Kneser-Ney (3-gram) scores on every item file, both candidate sets (cached in RESULTS)."""
    cache = RESULTS / f"rules-v{tokenizer.vocab_size}.json"
    out = json.loads(cache.read_text(encoding="utf-8")) if cache.is_file() else {}
    rules: dict = {}
    for kind, ids in candidate_ids(tokenizer).items():
        candidates = tokenizer.convert_ids_to_tokens(ids)
        for name, path in ITEM_FILES.items():
            items = single_token_items(tokenizer, load_masked_word_items(path))
            for rule_name in ("unigram", "kneser-ney-3"):
                key = f"{kind}/{name}/{rule_name}"
                if key in out:
                    continue
                if not rules:  # built once, when a score is missing
                    words = corpus_word_lists(read_corpus(BUILT / "corpus.txt"))
                    rules = {"unigram": UnigramRule(words), "kneser-ney-3": KneserNeyLM(words, order=3)}
                start = time.process_time()
                s = masked_word_rule_scores(rules[rule_name], items, candidates)
                out[key] = {
                    "top1": s["top1"],
                    "top5": s["top5"],
                    "n": s["n"],
                    "cpu_s": time.process_time() - start,
                }
                cache.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return out


def fit_around_mask(tokenizer, sentence: str, limit: int) -> str:
    """``sentence`` cut to at most ``limit`` tokens with [CLS] and [SEP], words dropped from the end farther from
    its ``[MASK]`` (a definition can be longer than a 64-position model)."""
    words = sentence.split()
    while len(tokenizer.tokenize(" ".join(words))) + 2 > limit:
        at = words.index("[MASK]")
        words = words[1:] if at > len(words) - 1 - at else words[:-1]
    return " ".join(words)


def model_scores(name: str) -> dict:
    """Masked-word top-1/top-5 of runs/wordnet/NAME on every item file, both candidate sets."""
    checkpoint = load_checkpoint(RUNS / name)
    model, tokenizer = checkpoint.model, checkpoint.tokenizer
    sets = {kind: torch.tensor(ids) for kind, ids in candidate_ids(tokenizer).items()}
    out = {}
    for file, path in ITEM_FILES.items():
        items = single_token_items(tokenizer, load_masked_word_items(path))
        limit = model.config.max_position_embeddings
        sentences = [fit_around_mask(tokenizer, i.sentence, limit) for i in items]
        probs = masked_word_probabilities(model, tokenizer, sentences)  # (N, V)
        answers = [set(tokenizer.convert_tokens_to_ids(list(i.answers))) for i in items]
        for kind, ids in sets.items():
            top = ids[probs[:, ids].topk(5, dim=-1).indices]  # (N, 5) token ids, best first
            hits = [[int(t) in a for t in row] for row, a in zip(top, answers)]
            out[f"{kind}/{file}"] = {
                "top1": sum(h[0] for h in hits) / len(items),
                "top5": sum(any(h) for h in hits) / len(items),
                "n": len(items),
            }
    return out


def training_example_items(header: dict[str, str], n: int = 1000) -> list[dict]:
    """``n`` masked-word items from training examples (``supersense_in_context/train.tsv``: examples of training
    synsets, which the corpus holds), masked as the build masks the held-out ones (``masked_item``, the corpus's
    3,000 most frequent words): ``{"sentence", "answers", "synset"}``, in an order drawn by the build's hash."""
    build = build_script()
    allowed = build.frequent_words(read_corpus(BUILT / "corpus.txt"))
    with open(SUPERSENSE / "train.tsv", encoding="utf-8", newline="") as f:
        examples = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    items = []
    for k, row in enumerate(examples):
        item = build.masked_item(row["sentence"], f"{row['synset']}:example:{k}", allowed)
        if item is not None and row["synset"] in header:
            items.append((build.item_hash("order", row["synset"], k), item[0], item[1], row["synset"]))
    return [{"sentence": t, "answers": a, "synset": syn} for _, t, a, syn in sorted(items)[:n]]


def copying_scores(name: str, split: str = "dev") -> dict:
    """The copying hypothesis (data/wordnet/README.md): runs/wordnet/NAME's masked-word top-1/top-5 on the held-out
    examples (``mlm_examples_dev.tsv``) scored alone, as every score above, and after their synset's words and
    definition, as the corpus writes an example (``dog, domestic dog: a member of ... the dog barked all night``;
    one segment, as a packed row holds consecutive lines), and after another held-out synset's (a row as long, with
    nothing to copy: what a longer input alone changes). ``answer_in_context``: the share of items whose answer
    the words and definition write. Candidates: the whole words (``all``), as ``score``. ``split="train"``: the
    same on 1,000 examples the model trained on, masked by the build's own rule (``masked_item``): what it
    remembers of its corpus, beside what it does with new text."""
    checkpoint = load_checkpoint(RUNS / name)
    model, tokenizer = checkpoint.model, checkpoint.tokenizer
    with open(BUILT / "supersense_of_definition" / f"{split}.tsv", encoding="utf-8", newline="") as f:
        rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = {r["synset"]: f"{', '.join(r['lemmas'].split('|'))}: {r['sentence']}" for r in rows}
    if split == "dev":
        with open(ITEM_FILES["examples"], encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    else:
        rows = training_example_items(header)
    items = []
    for row in rows:
        kept = single_token_items(
            tokenizer, [MaskedWordItem(row["sentence"], tuple(row["answers"].split("|")))]
        )
        if kept and row["synset"] in header:
            items.append((kept[0], header[row["synset"]]))
    ids = torch.tensor(candidate_ids(tokenizer)["all"])
    limit = model.config.max_position_embeddings
    out = {"n": len(items)}
    words = [set(context.lower().replace(",", " ").replace(":", " ").split()) for _, context in items]
    out["answer_in_context"] = sum(
        any(a.lower() in w for a in i.answers) for (i, _), w in zip(items, words)
    ) / len(items)
    others = [
        context for _, context in items[1:] + items[:1]
    ]  # another held-out synset's, as long on average
    layouts = {
        "alone": [i.sentence for i, _ in items],
        "after its words and definition": [f"{context} {i.sentence}" for i, context in items],
        "after another synset's words and definition": [
            f"{o} {i.sentence}" for (i, _), o in zip(items, others)
        ],
    }
    for layout, texts in layouts.items():
        sentences = [fit_around_mask(tokenizer, text, limit) for text in texts]
        probs = masked_word_probabilities(model, tokenizer, sentences)  # (N, V)
        answers = [set(tokenizer.convert_tokens_to_ids(list(i.answers))) for i, _ in items]
        top = ids[probs[:, ids].topk(5, dim=-1).indices]
        hits = [[int(t) in a for t in row] for row, a in zip(top, answers)]
        out[layout] = {
            "top1": sum(h[0] for h in hits) / len(items),
            "top5": sum(any(h) for h in hits) / len(items),
        }
    return out


SUPERSENSE = BUILT / "supersense_in_context"


def supersense_rows(split: str) -> list[dict]:
    import csv

    with open(SUPERSENSE / f"{split}.tsv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def dev_accuracy(predicted: list[str], dev: list[dict]) -> dict:
    """Accuracy on every dev item and on the polysemous slice (the target word has 2+ supersenses)."""
    pairs = [(p, r["label"], int(r["supersenses"]) >= 2) for p, r in zip(predicted, dev, strict=True)]
    poly = [(p, g) for p, g, is_poly in pairs if is_poly]
    return {
        "accuracy": sum(p == g for p, g, _ in pairs) / len(pairs),
        "polysemous": sum(p == g for p, g in poly) / len(poly),
    }


def supersense(name: str, init: str, fraction: float, seed: int, lr: float) -> dict:
    """Fine-tune (3 epochs, batch 32, the best epoch on dev) from runs/wordnet/NAME or from scratch."""
    from bertedu.training.finetune import FineTuneConfig, build_task_model, fine_tune, predict
    from bertedu.training.finetune_data import label_budget, make_dataset, read_examples

    task = "sentence_pair_classification"
    checkpoint = load_checkpoint(RUNS / name)
    train = make_dataset(task, read_examples(task, SUPERSENSE / "train.tsv"), checkpoint.tokenizer)
    dev = make_dataset(
        task, read_examples(task, SUPERSENSE / "dev.tsv"), checkpoint.tokenizer, labels=train.labels
    )
    train = label_budget(train, fraction, seed=seed) if fraction < 1 else train
    source = checkpoint.model if init == "pretrained" else checkpoint.model.config
    model = build_task_model(task, source, num_labels=len(train.labels), seed=seed)
    config = FineTuneConfig(learning_rate=lr, epochs=3, seed=seed, progress=False, num_threads=1)
    start = time.process_time()
    result = fine_tune(model, train, dev, config=config)
    predicted = [train.labels.names[i] for i in predict(model, dev)]
    return {
        "init": init,
        "fraction": fraction,
        "seed": seed,
        "lr": lr,
        "n_train": len(train),
        "best_epoch": result.best_epoch,
        "cpu_min": (time.process_time() - start) / 60,
        **dev_accuracy(predicted, supersense_rows("dev")),
    }


def supersense_rules(fraction: float, seed: int) -> dict:
    """Majority class, the lemma's most frequent supersense, TF-IDF (sentence) + the target word + logistic
    regression, trained on the items ``label_budget(fraction, seed)`` draws (the same draw, by label name)."""
    from collections import Counter, defaultdict

    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from bertedu.training.finetune_data import budget_indices

    rows, dev = supersense_rows("train"), supersense_rows("dev")
    train = [
        rows[i] for i in budget_indices([r["label"] for r in rows], fraction, seed)
    ]  # label_budget's draw
    majority = Counter(r["label"] for r in train).most_common(1)[0][0]
    by_lemma: dict[str, Counter] = defaultdict(Counter)
    for r in train:
        by_lemma[r["lemma"]][r["label"]] += 1
    lemma = [by_lemma[r["lemma"]].most_common(1)[0][0] if by_lemma[r["lemma"]] else majority for r in dev]
    words = TfidfVectorizer(ngram_range=(1, 2), min_df=2 if fraction >= 0.1 else 1, sublinear_tf=True)
    target = TfidfVectorizer(analyzer=lambda s: ["T=" + s.lower()])
    x = hstack(
        [
            words.fit_transform([r["sentence"] for r in train]),
            target.fit_transform([r["sentence_b"] for r in train]),
        ]
    )
    x_dev = hstack(
        [words.transform([r["sentence"] for r in dev]), target.transform([r["sentence_b"] for r in dev])]
    )
    model = LogisticRegression(max_iter=2000, C=10).fit(x.tocsr(), [r["label"] for r in train])
    return {
        "fraction": fraction,
        "seed": seed,
        "n_train": len(train),
        "majority": dev_accuracy([majority] * len(dev), dev),
        "lemma_prior": dev_accuracy(lemma, dev),
        "tfidf_lr_target": dev_accuracy(list(model.predict(x_dev.tocsr())), dev),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "command",
        choices=["padding", "throughput", "run", "score", "copying", "supersense", "supersense-rules"],
    )
    parser.add_argument("args", nargs="*")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.command == "padding":
        out = {}
        for length in (64, 128):
            for packing in (False, True):
                out[f"len{length}/packing={packing}"] = padding_share(
                    dict(max_length=length, packing=packing, batch_size=32)
                )
        print(json.dumps(out, indent=2))
        (RESULTS / "padding.json").write_text(json.dumps(out, indent=2) + "\n")
    elif args.command == "throughput":
        out = {}
        for size, length, batch in (("tiny", 64, 64), ("tiny", 128, 32), ("mini", 64, 64), ("mini", 128, 32)):
            out[f"{size}/len{length}/batch{batch}"] = throughput(
                dict(model_size=size, max_length=length, batch_size=batch)
            )
            print(size, length, batch, out[f"{size}/len{length}/batch{batch}"], flush=True)
        (RESULTS / "throughput.json").write_text(json.dumps(out, indent=2) + "\n")
    elif args.command == "run":
        name, *pairs = args.args
        settings = {k: json.loads(v) for k, v in (p.split("=", 1) for p in pairs)}
        print(json.dumps(run(name, settings), indent=2))
    elif args.command == "copying":
        name, *split = args.args
        print(name, json.dumps(copying_scores(name, *split)), flush=True)
    elif args.command == "supersense":
        name, init, fraction, seed, lr = args.args
        print(json.dumps(supersense(name, init, float(fraction), int(seed), float(lr))))
    elif args.command == "supersense-rules":
        fraction, seed = args.args
        print(json.dumps(supersense_rules(float(fraction), int(seed))))
    else:
        tokenizer = ShardedCorpus(SHARDS).tokenizer
        table = {"rules": rule_scores(tokenizer)}
        print(json.dumps(table["rules"], indent=2), flush=True)
        for name in args.args or sorted(p.name for p in RUNS.iterdir() if (p / "cost.json").is_file()):
            table[name] = {"cost": json.loads((RUNS / name / "cost.json").read_text()), **model_scores(name)}
            print(name, json.dumps(table[name]), flush=True)
        (RESULTS / "scores.json").write_text(json.dumps(table, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
