"""The course's recipes: the settings, runs and measurements the notebooks (06-12) and the benchmarks share, in
one place.

The library modules (``bertedu.training.pretrain``, ``bertedu.training.finetune``, ...) know nothing of the course; this package
holds what is specific to it. The recipes, one notebook's per module:

- :mod:`bertedu.course.pretraining` (notebook 06): :func:`course_config` (the mini-BERT pretraining recipe),
  its tokenizer, where its model is saved (:func:`course_checkpoint_dir`; a class's pre-trained one:
  :func:`pretrained_course_dir`) and :func:`load_course_model` (notebooks 07 and 08 reuse the model: loaded,
  resumed or retrained, never half-trained);
- :mod:`bertedu.course.side_runs` (notebook 06): the one-layer MiniBert trained to its loss plateau
  (:func:`minibert_plateau_run`), the short runs that test the notebook's claims (:func:`no_positions_run`,
  :func:`nsp_only_run`), and a second process that trains them while the main run trains
  (:func:`start_side_runs`); notebook 07's learning curve and MiniLM run are side runs too;
- :mod:`bertedu.course.background` (notebook 06): the machinery of the side runs, knowing nothing of them: a
  second process that trains a registry's runs, and the cache of finished runs (keyed by settings, code, data,
  versions and CPU kernels, :func:`bertedu.course.background.run_key`);
- :mod:`bertedu.course.finetuning` (notebook 07): :func:`course_recipe` (fine-tuning settings per task and
  encoder), :func:`run_course_task`, :func:`learning_curve`, :func:`run_minilm`, the thresholds every run
  must reach, the trivial baselines of the classification tasks (:func:`baseline_scores`) and the
  frozen-encoder alternative to fine-tuning (:func:`run_feature_based`, whose linear classifier,
  :func:`~bertedu.course.finetuning.fit_frozen_classifier`, notebook 10's probe trains too).

Every name of these four is importable from ``bertedu.course`` itself. The measurements around them are
imported from their own modules:

- :mod:`bertedu.course.claims` (notebook 06; every notebook that trains): the claims ledger, ``claims.yaml``:
  each training result a notebook asserts, its metric, comparison and margin;
- :mod:`bertedu.course.baselines` (notebooks 06, 07, 09, 10): what simple rules without a neural network score
  on the course's evaluations (NSP by overlap, masked words by n-grams, the fine-tuning tasks);
- :mod:`bertedu.course.minibert` (notebook 06): the one-layer MiniBert of the blog post, a baseline to beat;
- :mod:`bertedu.course.contamination` (notebook 07): which evaluation items a model met before (in the corpus
  or the fine-tuning data);
- :mod:`bertedu.course.stats` (notebooks 07, 10): paired differences over seeds, standard errors, the test
  set's own noise, and the rule that calls a difference a direction;
- :mod:`bertedu.course.ablations` (notebook 10): the paper's ablations in miniature, each variant the recipe
  changed by one switch;
- :mod:`bertedu.course.ngram_lm` (notebook 12): the strongest cheap masked-word rules (word frequency, a
  Kneser-Ney n-gram model reading both sides).

Imports go one way: configs and layers -> model -> training -> course (-> cli).
"""

from bertedu.course.finetuning import (
    COURSE_DROPOUT,
    COURSE_MAX_LENGTH,
    COURSE_MIN_STEPS,
    COURSE_THRESHOLDS,
    DEV_SEARCH,
    LR_SCALE,
    MINILM_MAX_LENGTH,
    POOLINGS,
    baseline_scores,
    best_baseline,
    course_recipe,
    dev_search,
    fact_key,
    learning_curve,
    pair_clusters,
    results_table,
    run_course_task,
    run_feature_based,
    run_minilm,
    sentence_features,
    span_baseline_scores,
)
from bertedu.course.pretraining import (
    COURSE_CHECKPOINT,
    course_checkpoint_dir,
    course_config,
    course_documents,
    course_eval_history,
    course_model_dir,
    course_run,
    course_seed,
    course_tokenizer,
    evaluate_course_model,
    load_course_model,
    pretrained_course_dir,
)
from bertedu.course.side_runs import (
    CURVE_FRACTIONS,
    CURVE_SEEDS,
    FINETUNING_SIDE_RUNS,
    MINIBERT_LEARNING_RATE,
    MINIBERT_PLATEAU_STEPS,
    NO_POSITIONS_STEPS,
    NSP_ONLY_STEPS,
    PRETRAINING_SIDE_RUNS,
    SIDE_RUNS,
    MiniBertRun,
    SideRuns,
    learning_curve_run,
    minibert_plateau_run,
    minilm_run,
    no_positions_run,
    nsp_only_run,
    scratch_control_run,
    start_side_runs,
    train_course_minibert,
)

__all__ = [
    "COURSE_CHECKPOINT",
    "COURSE_DROPOUT",
    "COURSE_MAX_LENGTH",
    "COURSE_MIN_STEPS",
    "COURSE_THRESHOLDS",
    "DEV_SEARCH",
    "CURVE_FRACTIONS",
    "CURVE_SEEDS",
    "FINETUNING_SIDE_RUNS",
    "LR_SCALE",
    "MINIBERT_LEARNING_RATE",
    "MINIBERT_PLATEAU_STEPS",
    "MINILM_MAX_LENGTH",
    "NO_POSITIONS_STEPS",
    "NSP_ONLY_STEPS",
    "POOLINGS",
    "PRETRAINING_SIDE_RUNS",
    "SIDE_RUNS",
    "MiniBertRun",
    "SideRuns",
    "baseline_scores",
    "best_baseline",
    "span_baseline_scores",
    "course_checkpoint_dir",
    "course_model_dir",
    "course_config",
    "course_documents",
    "course_eval_history",
    "course_run",
    "course_seed",
    "course_recipe",
    "dev_search",
    "fact_key",
    "pair_clusters",
    "course_tokenizer",
    "evaluate_course_model",
    "learning_curve",
    "learning_curve_run",
    "load_course_model",
    "pretrained_course_dir",
    "minibert_plateau_run",
    "minilm_run",
    "no_positions_run",
    "scratch_control_run",
    "nsp_only_run",
    "run_course_task",
    "run_feature_based",
    "results_table",
    "run_minilm",
    "sentence_features",
    "start_side_runs",
    "train_course_minibert",
]
