"""The course's recipes (bertedu.course): notebook 06's model, trained once and reused by 07 and 08."""

import multiprocessing
import signal

import fault_helpers
import pytest
import torch
from fault_helpers import tiny_course_recipe
from support import same_weights, small_bert_config

import bertedu.training.pretrain as pretrain_module
from bertedu import course
from bertedu.core.model import BertForPreTraining, BertModel
from bertedu.core.tokenizer import SPECIAL_TOKENS, BertTokenizer
from bertedu.training import finetune_data as ftd
from bertedu.training.checkpoint import is_checkpoint, load_checkpoint
from bertedu.training.pretrain import TrainingInterrupted, model_config, pretrain


@pytest.mark.slow
def test_load_course_model_trains_once_then_loads(tiny_run, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(course.pretraining, "course_config", lambda **kw: tiny_run(**kw))
    path = tmp_path / "mini-bert"
    model_a, tok_a = course.load_course_model(path)  # missing: trains and saves
    first = capsys.readouterr()
    assert is_checkpoint(path)
    stamp = (path / "model.safetensors").stat().st_mtime_ns
    model_b, tok_b = course.load_course_model(path)  # present: loads
    second = capsys.readouterr()
    assert (path / "model.safetensors").stat().st_mtime_ns == stamp
    assert first.out == second.out == ""  # the same (empty) output either way
    assert all(torch.equal(v, model_b.state_dict()[k]) for k, v in model_a.state_dict().items())
    assert tok_a.get_vocab() == tok_b.get_vocab() and not model_b.training
    scores = course.evaluate_course_model(path)
    assert set(scores) == {"mlm_top1", "mlm_top5", "nsp_accuracy", "mlm_items", "nsp_items"}
    # A checkpoint of another recipe is not used: the course model is retrained with the right one.
    monkeypatch.setattr(course.pretraining, "course_config", lambda **kw: tiny_run(seed=11, **kw))
    model_c, _ = course.load_course_model(path)
    assert load_checkpoint(path).run_config["seed"] == 11
    assert not all(torch.equal(v, model_c.state_dict()[k]) for k, v in model_a.state_dict().items())


def test_course_config_is_notebook_06_recipe():
    config = course.course_config()
    assert config.model_size == "tiny" and config.mlm_eval_file == "data/mlm_eval.tsv"
    assert course.course_config(steps=5).steps == 5
    assert config.attn_implementation == "sdpa"  # fast path while training ...
    bert = model_config(config, vocab_size=500)
    assert bert.attn_implementation == "eager"  # ... the model it describes is the teaching one
    assert (bert.num_hidden_layers, bert.hidden_size, bert.num_attention_heads) == (2, 128, 2)
    assert bert.max_position_embeddings == config.max_length and bert.hidden_dropout_prob == config.dropout


def test_course_recipe_trains_on_one_thread():
    """Robust under load (issue 20): with two threads on a two-core machine beside another busy program,
    training was 3-12 times slower. Fixed, so the weights do not depend on the caller's thread setting."""
    assert course.course_config().num_threads == 1


# --- load_course_model never hands out a half-trained or broken model (issues 14, 20) ----------------------------
def _damage(path, how):
    if how == "truncated weights":
        data = (path / "model.safetensors").read_bytes()
        (path / "model.safetensors").write_bytes(data[:1000])
    elif how == "truncated training state":
        data = (path / "training_state.pt").read_bytes()
        (path / "training_state.pt").write_bytes(data[: len(data) // 2])
    elif how == "trainer state not an object":
        (path / "trainer_state.json").write_text("[]", encoding="utf-8")
    elif how == "a file missing":
        (path / "vocab.txt").unlink()
    elif how == "empty vocabulary":
        (path / "vocab.txt").write_text("", encoding="utf-8")


@pytest.mark.parametrize(
    "how",
    [
        "truncated weights",
        "truncated training state",
        "trainer state not an object",
        "a file missing",
        "empty vocabulary",
    ],
)
def test_a_damaged_course_checkpoint_is_rebuilt(corpus_files, tmp_path, monkeypatch, how):
    monkeypatch.setattr(
        course.pretraining, "course_config", lambda **kw: tiny_course_recipe(corpus_files, steps=8, **kw)
    )
    path = tmp_path / "mini-bert"
    good, _ = course.load_course_model(path, progress=False)
    _damage(path, how)
    rebuilt, _ = course.load_course_model(path, progress=False)
    assert same_weights(good, rebuilt) and load_checkpoint(path).complete


def test_an_unfinished_course_run_is_resumed_to_the_end(corpus_files, tmp_path, monkeypatch, capsys, caplog):
    """Notebook 06 interrupted at step 3 of 8: notebooks 07 and 08 get the finished model, trained from
    step 3 on (not from scratch, and never the half-trained one), with a progress bar and the reason."""
    recipe = tiny_course_recipe(corpus_files, steps=8)
    monkeypatch.setattr(course.pretraining, "course_config", lambda **kw: recipe.replace(**kw))
    straight = pretrain(recipe, tmp_path / "straight", progress=False)
    path = tmp_path / "mini-bert"
    pretrain(recipe, path, progress=False, stop_after=3)
    starts = []
    real_batches = pretrain_module.bucketed_batches

    def batches(*args, start_step=0, **kwargs):
        starts.append(start_step)
        return real_batches(*args, start_step=start_step, **kwargs)

    monkeypatch.setattr(pretrain_module, "bucketed_batches", batches)
    capsys.readouterr()
    model, _ = course.load_course_model(path)
    err = capsys.readouterr().err
    assert starts == [3]
    assert same_weights(model, straight.model) and load_checkpoint(path).step == 8
    assert "holds an unfinished run (step 3/8): resuming it to finish the course model" in caplog.text
    assert "pretraining" in err and "8/8" in err  # the progress bar
    caplog.clear()
    course.load_course_model(path)  # finished: loads, silently
    assert capsys.readouterr().err == "" and caplog.text == ""


def test_an_interrupted_course_training_says_so(corpus_files, tmp_path, monkeypatch):
    monkeypatch.setattr(
        course.pretraining, "course_config", lambda **kw: tiny_course_recipe(corpus_files, steps=8, **kw)
    )
    original = BertForPreTraining.forward
    calls = []

    def forward(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            signal.raise_signal(signal.SIGINT)  # a cell time-out while notebook 07 trains the course model
        return original(self, *args, **kwargs)

    monkeypatch.setattr(BertForPreTraining, "forward", forward)
    path = tmp_path / "mini-bert"
    with pytest.raises(TrainingInterrupted, match=r"at step 2/8.*Run load_course_model\(\) again to resume"):
        course.load_course_model(path, progress=False)
    assert load_checkpoint(path).step == 2


def test_a_folder_of_other_files_is_never_deleted(corpus_files, tmp_path, monkeypatch):
    monkeypatch.setattr(
        course.pretraining, "course_config", lambda **kw: tiny_course_recipe(corpus_files, steps=8, **kw)
    )
    path = tmp_path / "mini-bert"
    path.mkdir()
    (path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ValueError, match=r"notes\.txt"):
        course.load_course_model(path, progress=False)
    assert (path / "notes.txt").read_text(encoding="utf-8") == "mine"


@pytest.mark.integration
def test_two_processes_share_one_training(corpus_files, tmp_path):
    """Two notebook kernels opening notebooks 07 and 08 at the same moment: the course model is trained
    once (the other process waits on the lock), and both get the same complete model."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    path, log = tmp_path / "mini-bert", tmp_path / "trained.log"
    results = [tmp_path / f"result{i}" for i in range(2)]
    workers = [
        context.Process(target=fault_helpers.course_worker, args=(barrier, corpus_files, path, log, result))
        for result in results
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(300)
        assert worker.exitcode == 0
    assert len(log.read_text(encoding="utf-8").splitlines()) == 1  # trained once
    digests = {r.read_text(encoding="utf-8") for r in results}
    assert len(digests) == 1 and load_checkpoint(path).complete


# ----------------------------------------------------------------------------------------------------------
# Notebook 07: recipes, trivial baselines, the frozen-encoder run


@pytest.fixture(scope="module")
def word_tok():
    """A tokenizer that keeps every word of the course's fine-tuning files whole."""
    words = set()
    for task in ftd.TASKS:
        for examples in ftd.load_task_data(task).values():
            for e in examples:
                parts = [getattr(e, name, None) for name in ("text", "text_pair", "question", "context")]
                words.update(
                    " ".join([p for p in parts if p] + list(getattr(e, "words", ()))).lower().split()
                )
    return BertTokenizer([*SPECIAL_TOKENS, *sorted(words)])


def test_course_recipe_covers_the_pair_task_and_minilm():
    pair = course.course_recipe(ftd.SENTENCE_PAIR_CLASSIFICATION)
    assert (pair.epochs, pair.batch_size, pair.lr) == (10, 16, 1e-3)  # the sentence-classification recipe
    minilm = course.course_recipe(ftd.SEQUENCE_CLASSIFICATION, "minilm")
    assert (minilm.epochs, minilm.batch_size, minilm.min_steps) == (2, 32, 0)
    with pytest.raises(ValueError, match="encoder must be one of"):
        course.course_recipe(ftd.SEQUENCE_CLASSIFICATION, "bert-large")


def test_baseline_scores_of_the_course_tasks(word_tok):
    """The numbers data/README.md quotes: the pair task leaves every trivial baseline near chance."""
    sentence = course.baseline_scores(
        ftd.SEQUENCE_CLASSIFICATION, ftd.make_task_datasets(ftd.SEQUENCE_CLASSIFICATION, word_tok)
    )
    assert sentence["majority"] == 0.5 and round(sentence["bag_of_words"], 3) == 0.722
    assert round(sentence["corpus_lookup"], 3) == 0.978  # 88 of 90: the corpus's facts as a table (issue 39)
    pair_data = ftd.make_task_datasets(ftd.SENTENCE_PAIR_CLASSIFICATION, word_tok)
    pair = course.baseline_scores(ftd.SENTENCE_PAIR_CLASSIFICATION, pair_data)
    rules = {
        "majority",
        "overlap",
        "hypothesis_only",
        "first_only",
        "bag_of_words",
        "label_graph",
        "co_occurrence",
        "subject_vote",
    }
    assert set(pair) == rules and round(pair["co_occurrence"] * 72) == 50  # the corpus knows something
    assert round(pair["subject_vote"] * 72) == 66  # and its subjects know more (data/README.md)
    corpus_rules = ("co_occurrence", "subject_vote")
    assert max(v for k, v in pair.items() if k not in corpus_rules) <= 0.55 and pair["label_graph"] == 0.5
    tagging = course.baseline_scores(
        ftd.TOKEN_CLASSIFICATION, ftd.make_task_datasets(ftd.TOKEN_CLASSIFICATION, word_tok)
    )
    assert round(tagging["word_majority"], 3) == 0.978 and tagging["majority"] < 0.5
    # a label budget trains on the subset a fine-tuned model of that budget sees: other data, other score
    small = course.baseline_scores(ftd.SENTENCE_PAIR_CLASSIFICATION, pair_data, fraction=0.1, seed=0)
    assert small != pair and small == course.baseline_scores(
        ftd.SENTENCE_PAIR_CLASSIFICATION, pair_data, fraction=0.1, seed=0
    )
    with pytest.raises(ValueError, match="not 'span_extraction'"):
        course.baseline_scores(ftd.SPAN_EXTRACTION, {})
    with pytest.raises(ValueError, match="sentence_pair_classification' data"):
        course.baseline_scores(ftd.SEQUENCE_CLASSIFICATION, pair_data)


def test_learning_curve_reports_the_bag_of_words_on_the_same_subsets(word_tok):
    data = ftd.make_task_datasets(ftd.SEQUENCE_CLASSIFICATION, word_tok)
    records = course.learning_curve(
        ftd.SEQUENCE_CLASSIFICATION,
        None,
        data,
        fractions=(0.1, 1.0),
        seeds=(0, 1),
        encoders=(),
        bag_of_words=True,
    )
    assert [(r["encoder"], r["fraction"], r["seed"], r["n_train"]) for r in records] == [
        ("bag of words", 0.1, 0, 42),
        ("bag of words", 0.1, 1, 42),
        ("bag of words", 1.0, 0, 420),
    ]
    assert records[2]["accuracy"] == course.baseline_scores(ftd.SEQUENCE_CLASSIFICATION, data)["bag_of_words"]
    assert records[0]["accuracy"] != records[1]["accuracy"]  # two seeds, two subsets


def _word_label_data(word_tok):
    """A classification task a frozen random encoder can solve: the label is which of two words occurs."""
    make = [
        ftd.ClassificationExample(f"the {a} sits on the {b}", "cat" if a == "cat" else "dog")
        for a in ("cat", "dog")
        for b in ("mat", "bed", "table", "chair", "wall", "grass", "hill", "rock")
    ]
    train = ftd.make_dataset(ftd.SEQUENCE_CLASSIFICATION, make[::2] + make[1::4], word_tok, max_length=16)
    dev = ftd.make_dataset(
        ftd.SEQUENCE_CLASSIFICATION, make[1::2], word_tok, labels=train.labels, max_length=16
    )
    return {"train": train, "dev": dev, "test": dev}


@pytest.mark.slow
def test_sentence_features_pool_real_tokens_only(word_tok):
    data = _word_label_data(word_tok)
    config = small_bert_config(vocab_size=word_tok.vocab_size)
    torch.manual_seed(0)
    encoder = BertModel(config).train()
    mean = course.sentence_features(encoder, data["train"], pooling="mean", layers=2)
    assert mean.shape == (len(data["train"]), 2 * config.hidden_size) and encoder.training  # mode restored
    single = data["train"].subset([0])  # no padding at all in a batch of one
    torch.testing.assert_close(course.sentence_features(encoder, single)[0], mean[0, config.hidden_size :])
    pooled = course.sentence_features(encoder, data["train"], pooling="pooled")
    assert pooled.shape == (len(data["train"]), config.hidden_size) and pooled.abs().max() <= 1  # tanh
    with pytest.raises(ValueError, match="layers=1 with pooling='pooled'"):
        course.sentence_features(encoder, data["train"], pooling="pooled", layers=2)
    with pytest.raises(ValueError, match="pooling must be one of"):
        course.sentence_features(encoder, data["train"], pooling="max")
    with pytest.raises(ValueError, match=r"layers must be an integer from 1 to 2 \(the encoder.s layers\)"):
        course.sentence_features(encoder, data["train"], layers=3)
    with pytest.raises(ValueError, match="layers must be an integer"):
        course.sentence_features(encoder, data["train"], layers=True)  # a bool is not a layer count


@pytest.mark.slow
def test_run_feature_based_trains_only_a_classifier_and_is_deterministic(word_tok):
    data = _word_label_data(word_tok)
    config = small_bert_config(vocab_size=word_tok.vocab_size)
    torch.manual_seed(0)
    encoder = BertForPreTraining(config)
    before = {k: v.clone() for k, v in encoder.state_dict().items()}
    scores = course.run_feature_based(ftd.SEQUENCE_CLASSIFICATION, encoder, data, steps=60)
    assert (
        set(scores) == {"accuracy", "macro_f1", "dev_accuracy", "best_step"}
        and 1 <= scores["best_step"] <= 60
    )
    assert scores["accuracy"] == 1.0  # the word that decides the label is in the averaged vectors
    assert all(torch.equal(v, encoder.state_dict()[k]) for k, v in before.items())  # the encoder stays frozen
    assert course.run_feature_based(ftd.SEQUENCE_CLASSIFICATION, encoder, data, steps=60) == scores
    with pytest.raises(ValueError, match="classification tasks"):
        course.run_feature_based(ftd.TOKEN_CLASSIFICATION, encoder, data)
    with pytest.raises(ValueError, match="steps must be a positive int"):
        course.run_feature_based(ftd.SEQUENCE_CLASSIFICATION, encoder, data, steps=0)


def test_best_baseline_sits_under_every_task_table(word_tok):
    """Notebook 07's per-task tables end with the task's best trivial rule, named, in the task's own metrics."""
    expected = {
        ftd.SEQUENCE_CLASSIFICATION: ("corpus lookup", {"accuracy"}),  # the corpus rules of issue 39
        ftd.SENTENCE_PAIR_CLASSIFICATION: ("subject vote", {"accuracy"}),
        ftd.TOKEN_CLASSIFICATION: ("word's most frequent tag", {"token_accuracy", "macro_f1"}),
        ftd.SPAN_EXTRACTION: ("template", {"exact_match", "f1"}),
    }
    for task, (rule, metrics) in expected.items():
        data = ftd.make_task_datasets(task, word_tok)
        name, scores = course.best_baseline(task, data)
        assert (name, set(scores)) == (rule, metrics), task
        runs = {(task, enc): (None, {m: 0.5 for m in metrics}) for enc in ("mini-bert", "scratch")}
        table = course.results_table(runs, task, data)
        assert list(table.index) == ["mini-bert", "scratch", f"baseline: {rule}"]
        assert table.loc[f"baseline: {rule}"].to_dict() == scores
    span = course.best_baseline(ftd.SPAN_EXTRACTION, ftd.make_task_datasets(ftd.SPAN_EXTRACTION, word_tok))[1]
    assert span == {"exact_match": 1.0, "f1": 1.0}  # data/README.md: the template rule is exact
    with pytest.raises(ValueError, match="sentence_pair_classification' data"):
        course.best_baseline(
            ftd.SEQUENCE_CLASSIFICATION, ftd.make_task_datasets(ftd.SENTENCE_PAIR_CLASSIFICATION, word_tok)
        )


def test_course_eval_history_keeps_the_evaluations_of_the_course_run(monkeypatch, tmp_path):
    """Notebook 10 draws its reduced run beside these: notebook 06's evaluations, the model made first."""
    from types import SimpleNamespace

    from bertedu.course import pretraining

    made = []
    history = [
        {"split": "train", "step": 10, "loss": 6.0},
        {"split": "eval", "step": 100, "mlm_accuracy": 0.0},
        {"split": "eval", "step": 200, "mlm_accuracy": 0.14},
    ]
    monkeypatch.setattr(pretraining, "load_course_model", lambda path=None: made.append(path))
    monkeypatch.setattr(pretraining, "load_checkpoint", lambda d: SimpleNamespace(history=history))
    assert [r["step"] for r in course.course_eval_history(tmp_path)] == [100, 200]
    assert made == [tmp_path]  # the model is made (or loaded) before its history is read


def test_dev_search_picks_the_best_dev_setting_and_never_looks_at_test(monkeypatch):
    """Notebook 07's scratch control gets its own learning rate and epochs (the content review's P2): the choice
    is the best dev score, ties to the first setting of the grid, whatever the test scores say."""
    from types import SimpleNamespace

    from bertedu.course import finetuning

    dev = {(5.0, 10): 0.6, (5.0, 30): 0.7, (20.0, 10): 0.7, (20.0, 30): 0.5}
    seen = []

    def fake_run(task, encoder, source, datasets, *, seed=0, lr_scale, epochs):
        seen.append((task, encoder, seed, lr_scale, epochs))
        result = SimpleNamespace(best_metrics={"accuracy": dev[lr_scale, epochs]})
        return result, {"accuracy": 1.0 - dev[lr_scale, epochs]}  # test: the opposite order

    monkeypatch.setattr(finetuning, "run_course_task", fake_run)
    best, runs = course.dev_search("t", "scratch", None, {}, lr_scales=(5.0, 20.0), epochs=(10, 30), seed=3)
    assert best == (5.0, 30) and set(runs) == set(dev) and len(seen) == 4
    assert all(call[:3] == ("t", "scratch", 3) for call in seen)
    assert course.DEV_SEARCH == {"lr_scale": (5.0, 20.0, 80.0), "epochs": (10, 30)}
    with pytest.raises(ValueError, match="at least one learning-rate factor"):
        course.dev_search("t", "scratch", None, {}, lr_scales=())


def test_indirect_dataset_uses_the_training_labels(word_tok):
    data = ftd.make_task_datasets(ftd.SEQUENCE_CLASSIFICATION, word_tok)
    indirect = ftd.indirect_dataset(word_tok, data["train"].labels)
    assert len(indirect) == 60 and indirect.labels == data["train"].labels
    ids = [indirect[i]["labels"] for i in range(len(indirect))]
    plausible = data["train"].labels.names.index("plausible")
    assert ids[::2] == [plausible] * 30 and plausible not in ids[1::2]  # plausible, then its implausible twin


def test_word_order_dataset_uses_the_training_labels(word_tok):
    data = ftd.make_task_datasets(ftd.SEQUENCE_CLASSIFICATION, word_tok)
    order = ftd.word_order_dataset(word_tok, data["train"].labels)
    assert len(order) == 48 and order.labels == data["train"].labels
    ids = [order[i]["labels"] for i in range(len(order))]
    plausible = data["train"].labels.names.index("plausible")
    assert ids[::2] == [plausible] * 24 and plausible not in ids[1::2]


def test_the_course_run_keeps_its_checkpoint_at_the_snapshot_step_for_notebook_10(
    corpus_files, tmp_path, monkeypatch
):
    """The course model trains to SNAPSHOT_STEP, keeps that checkpoint beside it, and finishes: its weights are
    those of an uninterrupted run, and the kept ones those of the same recipe without its held-out evaluation
    stopped there (notebook 10's reduced BERT), which :func:`course_snapshot` and the ablations then load."""
    from bertedu.course import ablations, pretraining

    held_out = {
        "mlm_eval_file": str(corpus_files / "mlm.tsv"),
        "nsp_eval_file": str(corpus_files / "nsp.tsv"),
    }
    recipe = tiny_course_recipe(
        corpus_files, steps=8, eval_every=2, **held_out
    )  # an evaluation before the snapshot: it must not matter
    monkeypatch.setattr(pretraining, "course_config", lambda **kw: recipe.replace(**kw))
    monkeypatch.setattr(pretraining, "SNAPSHOT_STEP", 5)
    monkeypatch.setenv(pretraining.COURSE_MODEL_ENV, str(tmp_path / "mini-bert"))
    model, _ = course.load_course_model()
    assert same_weights(model, pretrain(recipe, None, progress=False).model)  # the same run as in one go
    kept = load_checkpoint(tmp_path / "mini-bert-step5")
    assert kept.step == 5 and kept.run_config == recipe.to_dict()
    reduced = recipe.replace(eval_every=0, mlm_eval_file=None, nsp_eval_file=None)
    assert same_weights(kept.model, pretrain(reduced, None, progress=False, stop_after=5).model)
    assert course.pretraining.course_snapshot(reduced, 5).step == 5
    assert course.pretraining.course_snapshot(reduced, 4) is None  # another step
    assert course.pretraining.course_snapshot(reduced.replace(seed=recipe.seed + 1), 5) is None  # another run
    loaded, _, seconds = ablations._pretrained(reduced, None, progress=False, stop_after=5)
    assert same_weights(loaded, kept.model) and seconds == 0.0  # notebook 10 trains nothing
