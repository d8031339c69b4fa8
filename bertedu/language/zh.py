"""Chinese (简体中文) translations of the package's messages: the doctor, plots, shared checks, the course's runs.

The Chinese catalog is this module and the ``zh_<area>.py`` modules beside it (one per notebook topic, listed in
``bertedu.language.CATALOG_MODULES``), each with a ``MESSAGES`` dict. The rules, for every one of them:

- a key is an English text exactly as the code writes it: a ``msg("...")`` / ``translatable("...")`` template,
  or the text of a comment of a reference solution (``# the first position`` -> ``"the first position"``:
  ``Exercise.solution()`` shows the English code with its comments translated, ``bertedu.language.translate_code``);
- a value keeps every ``{placeholder}`` of the English (those starting with ``_`` may be dropped) and uses the
  course's terms (docs/glossary.md);
- one section per module, in the order of the package map; an exercise area's texts go into its own
  ``zh_<area>.py``, not here; a key is defined once (a test refuses a second).

``tests/test_i18n_ui.py`` checks all of that. The words of the user interfaces are in
:mod:`bertedu.language.words`, the notebooks' prose in ``translations/zh/``. Introduced in notebook 00.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/doctor.py ---------------------------------------------------------------------------------
    "run `make lab` (or `make test`) from the repository root to (re)install the course": (
        "在仓库根目录运行 `make lab`（或 `make test`），（重新）安装课程"
    ),
    "fix: {fix}": "修复：{fix}",
    "All checks passed: you are ready for the course.": "全部检查通过：可以开始学习本课程了。",
    "{failed} check(s) failed. {advice}": "{failed} 项检查未通过。{advice}",
    "{failed} check(s) failed: follow the 'fix' lines above, then run the doctor again.": (
        "{failed} 项检查未通过：请按上面“修复”行的说明操作，然后再运行一次 doctor。"
    ),
    "{version} is too old": "{version} 版本太旧",
    "install Python {minimum} or newer (3.11 is tested), then `make clean lab PYTHON=python3.11`": (
        "请安装 Python {minimum} 或更新的版本（已测试 3.11），然后运行 `make clean lab PYTHON=python3.11`"
    ),
    "{pin}  (or {fix_all})": "{pin}（或者{fix_all}）",
    "cannot be imported ({error}: {exc})": "无法导入（{error}: {exc}）",
    "imports, but pip does not know its version": "可以导入，但 pip 不知道它的版本",
    "{installed} installed, the course is tested with {tested}": "已安装 {installed}，本课程测试的版本是 {tested}",
    "CPU build": "CPU 版本",
    "CUDA {version} build (works, but large)": "CUDA {version} 版本（可以用，但体积很大）",
    "{build}, {threads} thread(s)": "{build}，{threads} 个线程",
    "the package {package} is not installed": "没有安装 {package} 包",
    "all-MiniLM-L6-v2 files found (config.json, model.safetensors, vocab.txt)": (
        "找到了 all-MiniLM-L6-v2 的文件（config.json、model.safetensors、vocab.txt）"
    ),
    "data/simple_sentences.txt not found from this folder": "从当前文件夹找不到 data/simple_sentences.txt",
    "run the doctor from inside the bertedu repository (or its notebooks/ folder)": (
        "请在 bertedu 仓库（或其中的 notebooks/ 文件夹）里运行 doctor"
    ),
    "data/ found, {n} notebooks": "找到 data/ 和 {n} 个笔记本",
    "data/ found next to the course package ({root})": "在课程包旁边找到了 data/（{root}）",
    "ask your instructor to run {command} (this Python was installed for you; you cannot change it)": (
        "请老师运行 {command}（这个 Python 是为你安装好的，你自己无法修改）"
    ),
    "{python}: installed for you (a class's server)": "{python}：为你安装好的环境（班级服务器）",
    "This Python was installed for you: show these lines to your instructor.": (
        "这个 Python 是为你安装好的：请把上面这几行给老师看。"
    ),
    "in a notebook, run `import os; os.environ['{env}'] = os.path.expanduser('~/bertedu-runs')` first; "
    "on a class's server, ask your instructor (hub/jupyterhub_config.py gives every student a folder)": (
        "在 notebook 里先运行 `import os; os.environ['{env}'] = os.path.expanduser('~/bertedu-runs')`；"
        "在班级服务器上，请找老师（hub/jupyterhub_config.py 会给每个学生一个自己的文件夹）"
    ),
    "you cannot write to {folder}: notebooks 06, 07, 08 and 10 save runs there": (
        "你无法写入 {folder}：笔记本 06、07、08 和 10 会把训练结果保存在那里"
    ),
    "{folder}/ (notebooks 06-10 save runs there)": "{folder}/（笔记本 06–10 把训练结果保存在这里）",
    "trained, in {folder}": "已训练，在 {folder}",
    "pre-trained for the class, in {folder} (read only)": "已为全班预先训练好，在 {folder}（只读）",
    "not trained yet: notebook 06 trains it (about a minute), 07, 08 and 10 load it": (
        "还没有训练：笔记本 06 会训练它（大约一分钟），07、08 和 10 会加载它"
    ),
    "data/ installed with the package, {n} files": "data/ 随课程包一起安装，共 {n} 个文件",
    "jupyterlab_widgets is missing: quizzes would not render": "缺少 jupyterlab_widgets：测验无法显示",
    "bertedu doctor: checking your environment": "bertedu doctor：正在检查你的环境",
    "not for this Python: see the 'interpreter' line": "不要装进这个 Python：请看 “interpreter” 那一行",
    "run {command} instead (or `make lab`, which uses that Python)": (
        "请改为运行 {command}（或者运行 `make lab`，它用的就是那个 Python）"
    ),
    "create the course's {venv} with `make lab` (from the repository root), then run {command}": (
        "请在仓库根目录运行 `make lab`，创建本课程的 {venv}，然后运行 {command}"
    ),
    "{command}  (the CPU build; without --index-url pip takes PyPI's torch, on Linux the CUDA build "
    "of several GB; or `make install TORCH_INDEX=cpu`)": (
        "{command}（CPU 版本；不加 --index-url 的话，pip 会从 PyPI 安装 torch，在 Linux 上就是好几 GB 的 "
        "CUDA 版本；也可以运行 `make install TORCH_INDEX=cpu`）"
    ),
    "{python} (repository not found: not compared)": "{python}（没有找到课程仓库，无法比较）",
    "the course's {venv} ({where})": "本课程的 {venv}（{where}）",
    "{python}: your own environment, complete": "{python}：你自己的环境，所需的包都齐全",
    "{python} is not the course's Python ({venv})": "{python} 不是本课程的 Python（{venv}）",
    "{advice}. Do not install the course into this Python (unless it is an environment you made for "
    "the course: README, 'Other ways to install')": (
        "{advice}。不要把课程安装到这个 Python 里（除非它是你专门为本课程创建的环境：见英文 "
        "README 的 “Other ways to install”）"
    ),
    "{command}  (--no-deps: the course needs none of its requirements)": (
        "{command}（--no-deps：本课程不需要它的任何依赖）"
    ),
    "This is not the course's Python: {advice}.": "这不是本课程的 Python：{advice}。",
    "bertedu.doctor takes no arguments (got {args!r}); try --help.": (
        "bertedu.doctor 不接受参数（收到了 {args!r}）；请试试 --help。"
    ),
    # --- bertedu/teaching/exercises/core.py -------------------------------------------------------------------------
    "✓ Correct": "✓ 正确",
    "✗ Not yet": "✗ 还不对",
    "○ Not attempted yet": "○ 尚未作答",
    "no answer yet: write your answer in the cell above (replace the `...` or the `raise NotImplementedError`), "
    "run that cell, then run this check again.": (
        "还没有答案：请在上面的单元格里写下你的答案（替换 `...` 或 `raise NotImplementedError`），"
        "运行那个单元格，然后再运行一次这个检查。"
    ),
    "tensor": "张量",
    "array": "数组",
    "give one number, not a {kind} of shape {shape}, e.g. {example}.": (
        "请给出一个数，而不是形状为 {shape} 的{kind}，例如 {example}。"
    ),
    "give the answer as one number (a {type} is not one), e.g. {example}.": (
        "请把答案写成一个数（{type} 不是一个数），例如 {example}。"
    ),
    "right, but rounded to {k} decimal{_s}, which is not precise enough to check: "
    "give at least {n} decimals (or do not round at all).": (
        "数值对了，但只保留了 {k} 位小数，精度不够，无法检查：请至少保留 {n} 位小数（或者干脆不要舍入）。"
    ),
    "pass your function itself, e.g. `{example}` (no parentheses after its name), not a {type}.": (
        "请传入函数本身，例如 `{example}`（函数名后面不加括号），而不是一个 {type}。"
    ),
    "{label}: {message}": "{label}：{message}",
    " (line {line} of {function})": "（{function} 的第 {line} 行）",
    "your code raised {error}: {exc}{place}. Fix that error first, then check again.": (
        "你的代码抛出了 {error}：{exc}{place}。请先改正这个错误，再重新检查。"
    ),
    "The reference solution opens after your first attempt: write your answer, run its check "
    "(`ex.{name}.check(...)`, a wrong answer counts), then ask again.": (
        "参考答案在你第一次尝试之后才会显示：先写出你的答案，运行它的检查（`ex.{name}.check(...)`，答错也算），然后再来查看。"
    ),
    "Reference solutions are not part of this graded build of the course; checks and hints still work.": (
        "本课程的评分版不含参考答案；检查和提示照常可用。"
    ),
    "your answer uses `{path}`, bertedu's own version of what this exercise asks you to write, so it cannot "
    "count: write the code yourself, without `{short}` (its source is shown after an attempt, by "
    "`show(...)` below the exercise).": (
        "你的答案用到了 `{path}`，也就是 bertedu 自己对这道练习要你写的内容的实现，所以不能算数：请自己写代码，"
        "不要用 `{short}`（它的源代码会在你尝试之后，由练习下方的 `show(...)` 显示）。"
    ),
    "The library's code of what {names} asks for is not shown in this graded build: write your own.": (
        "在评分版中不显示 {names} 所要求内容的库代码：请自己写。"
    ),
    "This is the library's version of what {names} asks you to write, so it is shown after your first "
    "attempt: write your answer, run its check (`ex.{first}.check(...)`, a wrong answer counts), then run "
    "this cell again.": (
        "这是库中对 {names} 要你写的内容的实现，所以要在你第一次尝试之后才会显示：先写出你的答案，运行它的检查"
        "（`ex.{first}.check(...)`，答错也算），然后再运行这个单元格。"
    ),
    "There is no hint for this exercise; try `solution()` after an attempt.": (
        "这道练习没有提示；作答一次之后可以看看 `solution()`。"
    ),
    "**Hint {number}/{total}:** {hint}": "**提示 {number}/{total}**：{hint}",  # colon outside: CommonMark
    "**Solution:**": "**参考答案：**",
    # a find-the-bug check's symptom and fix (Diagnosis); the handed-out code's check shows the symptom only
    "{symptom} {fix}": "{symptom}{fix}",
    "{symptom} Where in the code does this come from? Fix it in the next cell (`ex.{name}.hint()` if you are "
    "stuck).": "{symptom}问题出在代码的哪里？请在下一个单元格里改正（卡住了可以用 `ex.{name}.hint()`）。",
    # --- bertedu/teaching/exercises/welcome.py (notebook 00) --------------------------------------------------------
    "give a number (an int or a float), not {type} {answer!r}.": (
        "请给出一个数（int 或 float），而不是 {type} {answer!r}。"
    ),
    "15 % of {n} tokens is {expected:g}: BERT predicts about {expected:g} tokens per sequence.": (
        "{n} 个词元的 15% 是 {expected:g}，BERT 平均在每个序列中预测大约 {expected:g} 个词元。"
    ),
    "{value:g} is the number replaced by [MASK] (80 % of the selected tokens). The question "
    "asks for every selected token, including the 10 % random and 10 % unchanged ones.": (
        "{value:g} 是被替换成 [MASK] 的词元数（被选中词元的 80%）。题目问的是所有被选中的词元，"
        "也包括换成随机词元的 10% 和保持不变的 10%。"
    ),
    "{value:g} is the rate, not a count: multiply the rate by the {n} tokens.": (
        "{value:g} 是比例，不是个数：请用这个比例乘以 {n} 个词元。"
    ),
    "{value:g} is not 15 % of {n}. Multiply {n} by 0.15.": "{value:g} 不是 {n} 的 15%。请计算 {n} 乘以 0.15。",
    "15 % means 0.15 of the tokens.": "15% 就是词元总数的 0.15。",
    "Selected tokens are then split 80/10/10, but all of them are predicted.": (
        "被选中的词元随后按 80/10/10 分成三种处理，但它们全部都要预测。"
    ),
    # --- bertedu/teaching/viz/ (plot titles, axis labels, legends) --------------------------------------------------
    "query (attending from)": "查询（发出注意力的词元）",
    "key (attended to)": "键（被关注的词元）",
    "attention weight": "注意力权重",
    "rows renormalised to sum to 1": "各行重新归一化，和为 1",
    "weights not renormalised": "权重未重新归一化",
    "{keys} columns hidden, {how}": "已隐藏 {keys} 列，{how}",
    "head {h}": "注意力头 {h}",
    "mean": "平均",
    "layer {layer}": "层 {layer}",  # layers count from 0, as heads do: 层 0 reads right, 第 0 层 does not
    "layer {layer}: mean over {n} heads": "层 {layer}：{n} 个注意力头的平均",
    "mean over heads": "各注意力头的平均",
    "mean of {n} heads": "{n} 个注意力头的平均",
    "layer {layer}, {which}": "层 {layer}，{which}",
    # the attention explorer's controls (bertedu/teaching/viz/explorer.py)
    "sentence": "句子",
    "pair": "第二句",
    "optional second sentence": "可选的第二句",
    "layer": "层",
    "head": "注意力头",
    "hide {tokens} columns": "隐藏 {tokens} 列",
    "<attention heatmap: {title}>": "<注意力热力图：{title}>",
    "random": "随机词元",
    "unchanged": "保持不变",
    "not selected": "未选中",
    "train": "训练",
    "eval": "评估",
    "{metric} ({split})": "{metric}（{split}）",
    ", mean of {n}": "，{n} 点滑动平均",
    "step": "步数",
    "accuracy": "准确率",
    "loss": "损失",
    # the metric keys of a training history, as the legends of viz.plot_loss_curves show them
    "mlm_loss": "MLM 损失",
    "nsp_loss": "NSP 损失",
    "mlm_accuracy": "MLM 准确率",
    "nsp_accuracy": "NSP 准确率",
    "mlm_top5_accuracy": "MLM top-5 准确率",
    "token_accuracy": "词元准确率",
    "exact_match": "精确匹配（EM）",
    "value": "数值",
    "observed": "观测值",
    "expected": "期望值",
    "fraction of maskable tokens": "占可掩码词元的比例",
    " (n = {total:,.0f} tokens)": "（n = {total:,.0f} 个词元）",
    "BERT masking: observed vs expected{n}": "BERT 掩码：观测值与期望值{n}",
    # --- progress bars: bertedu/training/pretrain.py, finetune.py; bertedu/course/ ---------------------------------
    "pretraining": "预训练",
    "fine-tuning ({task})": "微调（{task}）",
    "ablations": "消融实验",
    "learning curve ({task})": "学习曲线（{task}）",
    "{encoder}, {fraction:.0%} of the labels, seed {seed}": "{encoder}，{fraction:.0%} 的标签，种子 {seed}",
    "waiting for the {what} {name!r}": "正在等待{what}“{name}”",
    "background run": "后台训练",
    "side run": "辅助训练",
    "ablation run": "消融训练",
    # --- bertedu/course/pretraining.py (where the course model is saved) ------------------------------------------
    "The course model cannot be saved in {folder}. In a notebook, choose a folder of your own for the course's "
    "runs: run `import os; os.environ['BERTEDU_RUNS'] = os.path.expanduser('~/bertedu-runs')` in a cell, then "
    "this cell again. On a class's server, your instructor can pre-train the course model for everyone "
    "(docs/instructor_guide.md).": (
        "课程模型无法保存到 {folder}。在 notebook 里可以为课程的训练结果选一个你自己的文件夹：在一个单元格里运行 "
        "`import os; os.environ['BERTEDU_RUNS'] = os.path.expanduser('~/bertedu-runs')`，然后重新运行这个单元格。"
        "在班级服务器上，老师可以为所有人预先训练好课程模型（docs/instructor_guide.md）。"
    ),
    # --- comments of the reference solutions: Exercise.solution() shows the English code with these
    # comments translated (bertedu.language.translate_code)
    "30 tokens are predicted; 24 of them are shown as [MASK]": "预测 30 个词元；其中 24 个显示为 [MASK]",
}
