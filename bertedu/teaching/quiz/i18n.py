"""The quiz's words: bilingual text lookup and every UI string.

The course speaks English (``en``, the default) and Simplified Chinese (``zh``). The current language is the
course's one setting, owned by :mod:`bertedu.teaching.i18n` (:func:`set_language`, else the environment variable
``BERTEDU_LANG``, else English); this module re-exports it for the quiz. Every string a quiz widget shows is
in :data:`UI` in both languages (a test checks this), and every string of a question bank is a
``{en: ..., zh: ...}`` mapping.

Introduced in notebook 00.
"""

from __future__ import annotations

from collections.abc import Mapping

from bertedu.teaching import i18n as _course
from bertedu.teaching.i18n import (  # noqa: F401 (re-exported: the quiz reads the course's language from here)
    DEFAULT_LANGUAGE,
    ENV_VAR,
    LANGUAGES,
    get_language,
    normalize_language,
    register,
    resolve,
)

#: Button labels of the per-widget language toggle (EN / 中文).
LANGUAGE_LABELS: dict[str, str] = {"en": "EN", "zh": "中文"}

# Every UI string, in both languages. Placeholders use str.format names.
UI: dict[str, dict[str, str]] = {
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
}

#: Readable names of the flashcard decks that span several banks (the paper's parts, shown in notebook 09).
#: A deck of one notebook is named after its bank's title (see ``bertedu.teaching.quiz.api.deck_title``).
DECK_TITLES: dict[str, dict[str, str]] = {
    "part-a": {"en": "Paper part A · Motivation", "zh": "论文 A 部分 · 研究动机"},
    "part-b": {"en": "Paper part B · Architecture and input", "zh": "论文 B 部分 · 模型结构与输入表示"},
    "part-c": {"en": "Paper part C · Pre-training tasks and data", "zh": "论文 C 部分 · 预训练任务与数据"},
    "part-d": {"en": "Paper part D · Fine-tuning and results", "zh": "论文 D 部分 · 微调与实验结果"},
    "part-e": {"en": "Paper part E · Ablations", "zh": "论文 E 部分 · 消融实验"},
    "part-f": {
        "en": "Paper part F · Related work, limits and successors",
        "zh": "论文 F 部分 · 相关工作、局限与后续模型",
    },
}


def set_language(lang: str | None) -> str:
    """Switch the course, every quiz widget included (live ones too), to ``lang`` (``"en"`` or ``"zh"``).

    :func:`bertedu.teaching.i18n.set_language`, returning the language now in use. ``None`` forgets the choice and
    falls back to ``$BERTEDU_LANG`` / English.
    """
    _course.set_language(lang)
    return get_language()


def pick(text: Mapping[str, str] | str | None, lang: str | None = None) -> str:
    """The ``lang`` version of a bilingual ``{en, zh}`` mapping ("" for ``None``; plain strings pass through)."""
    if text is None:
        return ""
    if isinstance(text, str):
        return text
    lang = resolve(lang)
    value = text.get(lang) or text.get(DEFAULT_LANGUAGE) or ""
    return value


def t(key: str, lang: str | None = None, **fields: object) -> str:
    """The UI string ``key`` in ``lang`` (default: current language), formatted with ``fields``."""
    try:
        entry = UI[key]
    except KeyError:
        raise ValueError(f"No UI string named {key!r} in bertedu.teaching.quiz.i18n.UI.") from None
    return entry[resolve(lang)].format(**fields)
