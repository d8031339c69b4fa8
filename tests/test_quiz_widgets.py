"""Quiz widgets driven headless: set .value, .click(), read the feedback, check the saved progress."""

import html
import json
import re

import pytest

from bertedu.teaching import quiz
from bertedu.teaching.quiz.api import deck_title
from bertedu.teaching.quiz.flashcards import FlashcardDeck
from bertedu.teaching.quiz.render import plain_text
from bertedu.teaching.quiz.store import ProgressStore
from bertedu.teaching.quiz.widgets import (
    FillInWidget,
    MultipleChoiceWidget,
    SingleChoiceWidget,
    _label_option,
)

WELCOME = "00_welcome"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """A fresh BERTEDU_HOME and English, for every test."""
    monkeypatch.setenv("BERTEDU_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    quiz.set_language(None)
    yield tmp_path / "home"
    quiz.set_language(None)


def stored(home):
    return json.loads((home / "progress.json").read_text(encoding="utf-8"))


def visible(widget) -> bool:
    return widget.layout.display != "none"


# ------------------------------------------------------------------------------------------- single
def test_single_choice_wrong_then_right(home):
    w = quiz.ask(WELCOME, "show-solution")
    assert isinstance(w, SingleChoiceWidget)
    assert w.options_box.value is None and w.feedback.value == ""
    labels = {value: label for label, value in w.options_box.options}
    assert (
        labels[w.question.option_index("a")] == "At any time: the button works even before you pick an option"
    )

    w.options_box.value = w.question.option_index("a")
    w.submit.click()
    assert "✗ Not quite" in w.feedback.value
    assert "stays locked until you have tried" in w.feedback.value  # the chosen option's explanation
    assert "Yes. Pressing" not in w.feedback.value  # ... but not the right option's
    assert w.attempts == 1 and w.result.score == 0.0

    w.options_box.value = w.question.option_index("b")
    w.submit.click()
    assert "✓ Correct" in w.feedback.value and "attempt 2" in w.feedback.value
    assert "there is no attempt limit" in w.feedback.value  # once right, every explanation shows
    entry = stored(home)["notebooks"][WELCOME]["questions"]["show-solution"]
    assert entry["attempts"] == 2 and entry["best"] == 1.0 and entry["last"] == 1.0


def test_single_choice_ticks_one_option_at_a_time():
    w = quiz.ask(WELCOME, "show-solution")
    a, b = w.question.option_index("a"), w.question.option_index("b")
    assert [box for box in w.options_box.children] == [w.checkboxes[i] for i in w.order]
    w.checkboxes[a].value = True  # what a click in the browser does
    assert w.options_box.value == a
    w.checkboxes[b].value = True
    assert w.options_box.value == b and not w.checkboxes[a].value  # ticking another clears the first
    w.checkboxes[b].value = False
    assert w.options_box.value is None and not any(box.value for box in w.checkboxes)
    w.options_box.value = a
    assert [box.value for box in w.checkboxes] == [i == a for i in range(len(w.checkboxes))]
    with pytest.raises(ValueError, match="not an option index"):
        w.options_box.value = len(w.checkboxes)
    assert "Tick one option" in w.scoring.value


def test_option_labels_render_their_maths_for_mathjax():
    """Option labels keep their maths for the front end's MathJax (ipywidgets typesets every checkbox label);
    Markdown makes them HTML. The plain-text names stay in options_box.options, and the chosen option reads
    the same in the feedback."""
    w = quiz.ask("01_self_attention_by_hand", "qkv-roles")
    for i, option in enumerate(w.question.options):
        assert "$" in option.text["en"] and option.text["en"] in w.checkboxes[i].description
    labels = dict((value, label) for label, value in w.options_box.options)
    right = next(i for i, o in enumerate(w.question.options) if o.correct)
    assert labels[right].startswith("q_i is compared with every key k_j")
    assert ">$q_i$ is compared with every key $k_j$" in w.checkboxes[right].description
    wrong = next(i for i, o in enumerate(w.question.options) if not o.correct)
    w.options_box.value = wrong
    w.submit.click()
    assert f"“{w.question.options[wrong].text['en']}”: wrong" in w.feedback.value
    w.language.value = "zh"
    assert w.question.options[right].text["zh"] in w.checkboxes[right].description
    assert "$q_i$" in w.checkboxes[right].description
    assert w.options_box.value == wrong  # relabelling keeps the answer

    m = quiz.ask("07_fine_tuning", "span-rules")
    code = next(i for i, o in enumerate(m.question.options) if "`" in o.text["en"])
    assert m.checkboxes[code].description_allow_html and "<code>" in m.checkboxes[code].description
    plain = quiz.ask(WELCOME, "set-seed")
    assert not any(box.description_allow_html for box in plain.checkboxes)


TITLED_LABEL = re.compile(r'<span title="([^"]*)">(.*)</span>', re.S)


def test_option_tooltips_are_plain_text_not_tex():
    """The front end copies a checkbox's label into its tooltip as written: a label with maths or Markdown sits
    in a span titled with its plain text (``q_i``, not ``$q_i$``), the title a browser shows on hover."""
    w = quiz.ask("01_self_attention_by_hand", "qkv-roles")
    for box, option in zip(w.checkboxes, w.question.options):
        m = TITLED_LABEL.fullmatch(box.description)
        assert box.description_allow_html and m, box.description
        title = html.unescape(m.group(1))
        assert title == plain_text(option.text["en"]) and not re.search(r"[$\\]", title)
        assert m.group(2) == html.escape(option.text["en"], quote=False)  # the maths, for MathJax
    right = next(i for i, o in enumerate(w.question.options) if o.correct)
    assert 'title="q_i is compared with every key k_j' in w.checkboxes[right].description
    m = quiz.ask("07_fine_tuning", "span-rules")
    code = next(i for i, o in enumerate(m.question.options) if "`" in o.text["en"])
    title = html.unescape(TITLED_LABEL.fullmatch(m.checkboxes[code].description).group(1))
    assert title == plain_text(m.question.options[code].text["en"]) and "`" not in title and "<" not in title
    plain = quiz.ask(WELCOME, "set-seed")
    assert [box.description for box in plain.checkboxes] == [o.text["en"] for o in plain.question.options]
    box = plain.checkboxes[0]
    _label_option(box, "`$HOME` or `C:\\Users`")  # no $ or backslash in the title: MathJax looks there
    title = TITLED_LABEL.fullmatch(box.description).group(1)
    assert "$" not in title and "\\" not in title and html.unescape(title) == "$HOME or C:\\Users"


def test_a_new_option_label_clears_the_boxs_copy_of_the_old_one():
    """A new label (another language) is copied by the front end into the box's title too; a change of
    ``tooltip`` to None makes it drop that copy, so the box ends with no tooltip of TeX or HTML."""
    w = quiz.ask("01_self_attention_by_hand", "qkv-roles")
    box = w.checkboxes[0]
    changes = []
    box.observe(lambda change: changes.append(change["new"]), names="tooltip")
    w.language.value = "zh"
    assert w.question.options[0].text["zh"] in box.description
    assert changes[-1] is None and len(changes) >= 2 and box.tooltip is None
    changes.clear()
    w.refresh()  # same language, same label: nothing sent
    assert changes == []


def test_missing_answer_asks_and_is_not_recorded(home):
    w = quiz.ask(WELCOME, "show-solution")
    w.submit.click()
    assert "Please choose an answer first" in w.feedback.value
    assert w.attempts == 0 and w.result is None and w.solution_button.disabled
    assert not (home / "progress.json").exists()

    m = quiz.ask(WELCOME, "set-seed")
    m.submit.click()
    assert "tick at least one option" in m.feedback.value

    f = quiz.ask(WELCOME, "quiz-score")
    f.blanks[0].value = "2/3"
    f.submit.click()
    assert "fill in every blank" in f.feedback.value and f.attempts == 0
    assert not (home / "progress.json").exists()


def test_solution_only_after_an_attempt():
    w = quiz.ask(WELCOME, "show-solution")
    assert w.solution_button.disabled and w.solution_button.tooltip == "Make an attempt first"
    w.solution_button.click()  # a disabled button's handler must still refuse
    assert w.solution.value == ""
    w.options_box.value = w.question.option_index("c")
    w.submit.click()
    assert not w.solution_button.disabled
    w.solution_button.click()
    assert "Solution" in w.solution.value and "✓ correct option" in w.solution.value
    assert w.solution.value.count("✗ wrong option") == 3
    assert w.solution_button.description == "Hide solution"
    w.solution_button.click()
    assert w.solution.value == ""


def test_hint_button_toggles():
    w = quiz.ask(WELCOME, "show-solution")
    assert visible(w.hint_button) and w.hint.value == ""
    w.hint_button.click()
    assert "Check answer" in w.hint.value and w.hint_button.description == "Hide hint"
    w.hint_button.click()
    assert w.hint.value == ""
    no_hint = quiz.ask("paper", "b-parameter-counts")
    assert not visible(no_hint.hint_button)


# ----------------------------------------------------------------------------------------- multiple
def test_multiple_choice_feedback_and_progress(home):
    w = quiz.ask(WELCOME, "set-seed")
    assert isinstance(w, MultipleChoiceWidget) and len(w.checkboxes) == 5
    assert w.checkboxes[w.question.option_index("a")].description.startswith("It seeds Python")
    w.checkboxes[w.question.option_index("a")].value = True
    w.checkboxes[w.question.option_index("c")].value = True
    w.submit.click()
    fb = w.feedback.value
    assert "✗ Not quite" in fb and "score 0%" in fb
    assert "✓ You chose “It seeds Python" in fb and "✗ You chose “It makes the numbers identical" in fb
    assert "You missed 2 correct options" in fb
    ix = w.question.option_index
    assert w.result.right == (ix("a"),) and w.result.wrong == (ix("c"),)
    assert w.result.missed == tuple(sorted((ix("b"), ix("d"))))

    w.checkboxes[w.question.option_index("c")].value = False
    w.checkboxes[w.question.option_index("b")].value = True
    w.submit.click()
    assert "score 67%" in w.feedback.value
    w.checkboxes[w.question.option_index("d")].value = True
    w.submit.click()
    assert "✓ Correct" in w.feedback.value
    entry = stored(home)["notebooks"][WELCOME]["questions"]["set-seed"]
    assert entry == {**entry, "attempts": 3, "best": 1.0, "last": 1.0}


# --------------------------------------------------------------------------------------------- fill
def test_the_boxes_of_a_fill_in_start_at_the_same_x_in_both_languages(home):
    """The labels share one column as wide as the longest (each box used to start after its own label: newcomer
    review, 2026-12-06); the column follows the language, where a Chinese character is twice as wide."""
    from bertedu.language.script import display_width

    w = quiz.ask(WELCOME, "quiz-score")
    widths = {box.style.description_width for box in w.blanks}
    labels = [box.description for box in w.blanks]
    assert len(labels) == 2 and len(set(labels)) == 2 and len(widths) == 1
    assert widths == {f"{max(map(display_width, labels)) + 1}ch"}
    w.set_language("zh")
    assert {box.style.description_width for box in w.blanks} == {
        f"{max(display_width(box.description) for box in w.blanks) + 1}ch"
    }
    assert all(display_width(box.description) > len(box.description) for box in w.blanks)  # Chinese labels


def test_fill_numeric_blanks(home):
    w = quiz.ask(WELCOME, "quiz-score")
    assert isinstance(w, FillInWidget) and len(w.blanks) == 2
    assert w.blanks[0].description == "two right:" and w.blanks[0].placeholder == "your answer"
    w.blanks[0].value = "0.67"
    w.blanks[1].value = "half"
    w.submit.click()
    fb = w.feedback.value
    assert "✗ Not quite" in fb and "score 50%" in fb
    assert "✓ Blank 1 (two right): “0.67” is right" in fb and "“half” is not a number" in fb
    assert "Explanation" not in fb  # the explanation would give the answer away
    w.blanks[1].value = "33%"
    w.submit.click()
    assert "✓ Correct" in w.feedback.value and "Explanation" in w.feedback.value
    assert stored(home)["notebooks"][WELCOME]["questions"]["quiz-score"]["best"] == 1.0
    w.solution_button.click()
    assert "0.6667 (± 0.01)" in w.solution.value


def test_a_check_grades_the_values_its_click_brought(home):
    """The fill-in race: while the kernel is busy, ipywidgets holds a box's new value back and the click can
    arrive first. The front end of ``typed_values`` sends the boxes' texts just before the click: the check
    grades those, once, and the boxes' own values again when no message came (a click from Python)."""
    from bertedu.teaching.quiz.typed import BLANK_CLASS, CHECK_CLASS

    w = quiz.ask(WELCOME, "quiz-score")
    assert CHECK_CLASS in w.submit._dom_classes and all(BLANK_CLASS in b._dom_classes for b in w.blanks)
    assert w.typed_values in w.options_box.children
    w.blanks[0].value, w.blanks[1].value = "0.67", "half"  # the kernel's copy: the old values
    w.typed_values._handle_custom_msg(
        {"event": "check", "values": ["0.67", "33%"]}, []
    )  # what the page shows
    w.submit.click()
    assert "✓ Correct" in w.feedback.value
    assert stored(home)["notebooks"][WELCOME]["questions"]["quiz-score"]["answers"][-1]["answer"] == [
        "0.67",
        "33%",
    ]
    w.submit.click()  # no message this time: the boxes' values
    assert "✗ Not quite" in w.feedback.value and "“half” is not a number" in w.feedback.value
    for ignored in ({"event": "check", "values": ["0.67"]}, {"event": "other"}, {"values": [1, 2]}, "check"):
        w.typed_values._handle_custom_msg(ignored, [])  # a wrong count or shape is not an answer
        w.submit.click()
        assert "✗ Not quite" in w.feedback.value


def test_fill_text_blanks_and_explanation():
    w = quiz.ask("paper", "a-masked-lm-name")
    w.blanks[0].value = "Masked"
    w.blanks[1].value = "cloze test."
    w.submit.click()
    assert "✓ Correct" in w.feedback.value and "Cloze" in w.feedback.value


# ---------------------------------------------------------------------------------------- languages
def test_language_toggle_rerenders_one_widget_live():
    a = quiz.ask(WELCOME, "show-solution")
    b = quiz.ask(WELCOME, "set-seed")
    a.options_box.value = a.question.option_index("b")
    a.submit.click()
    a.language.value = "zh"
    assert a.lang == "zh" and b.lang == "en"
    assert "单选题" in a.title.value and "✓ 正确" in a.feedback.value
    labels = {value: label for label, value in a.options_box.options}
    assert labels[a.question.option_index("b")] == "第一次“检查答案”之后就可以，无论那次答对还是答错"
    assert a.options_box.value == a.question.option_index("b")  # the selection survives the relabelling
    assert a.submit.description == "检查答案"
    assert "Multiple choice" in b.title.value
    a.language.value = "en"
    assert "✓ Correct" in a.feedback.value


def test_set_language_rerenders_every_live_widget(monkeypatch):
    w = quiz.ask(WELCOME, "quiz-score")
    d = quiz.flashcards(WELCOME)
    s = quiz.ask(WELCOME, ["show-solution", "make-test"])
    w.blanks[0].value = "0.5"
    w.blanks[1].value = "1/3"
    w.submit.click()
    quiz.set_language("zh")
    assert quiz.get_language() == "zh"
    assert w.blanks[0].description == "选对两个：" and "第 1 次作答" in w.feedback.value
    assert w.blanks[0].value == "0.5"  # answers are kept
    assert d.flip.description == "翻面" and "第 1 张，共 2 张" in d.position.value
    assert all(q.lang == "zh" for q in s.questions) and "第 2 题，共 2 题" in s.questions[1].title.value
    assert w.language.value == "zh" and s.language.value == "zh"
    quiz.set_language("en")
    assert w.blanks[0].description == "two right:"
    monkeypatch.setenv("BERTEDU_LANG", "zh")
    quiz.set_language(None)
    assert quiz.ask(WELCOME, "show-solution").submit.description == "检查答案"


def test_section_toggle_switches_all_its_questions():
    s = quiz.section(WELCOME)
    assert len(s.questions) == 4 and "How this course works" in s.title.value
    assert all(not (q.language.layout.display != "none") for q in s.questions)  # one toggle per section
    s.language.value = "zh"
    assert "本课程怎么用" in s.title.value and all(q.lang == "zh" for q in s.questions)


# --------------------------------------------------------------------------------------- flashcards
def test_flashcards_flip_move_and_mark(home):
    d = quiz.flashcards(WELCOME)
    assert isinstance(d, FlashcardDeck) and len(d.cards) == 2
    assert "Where is your quiz progress saved" in d.card.value and "Front" in d.position.value
    d.flip.click()
    assert d.showing_back and "progress.json" in d.card.value and "Back" in d.position.value
    d.known.click()
    assert "marked as known" in d.status.value and "1 known, 0 not yet" in d.status.value
    d.next.click()
    assert d.index == 1 and not d.showing_back and "switch the quizzes" in d.card.value
    d.unknown.click()
    assert "marked as not yet known" in d.status.value
    d.next.click()  # wraps around
    assert d.index == 0
    d.previous.click()
    assert d.index == 1
    cards = stored(home)["notebooks"][WELCOME]["cards"]
    assert cards["progress-file"]["known"] is True and cards["switch-language"]["known"] is False
    for button in (d.flip, d.next, d.previous, d.known, d.unknown):
        assert button.description and not button.disabled  # focusable native buttons with text


def test_flashcards_by_deck_and_errors():
    d = quiz.flashcards(deck="part-c")
    assert {c.deck for c in d.cards} == {"part-c"} and len(d.cards) >= 4
    shuffled = quiz.flashcards("paper", deck="part-a", shuffle=True, seed=1)
    again = quiz.flashcards("paper", deck="part-a", shuffle=True, seed=1)
    assert [c.id for c in shuffled.cards] == [c.id for c in again.cards]
    with pytest.raises(ValueError, match="Decks: .*part-a"):
        quiz.flashcards("paper", deck="part-z")
    with pytest.raises(ValueError, match="Give a notebook"):
        quiz.flashcards()


# ------------------------------------------------------------------------------ api, review, errors
def test_ask_errors_name_what_exists():
    with pytest.raises(ValueError, match="Did you mean 'show-solution'"):
        quiz.ask(WELCOME, "show-solutions")
    with pytest.raises(ValueError, match="Banks available"):
        quiz.ask("01_no_such_notebook", "x")


def test_review_draws_from_every_bank_deterministically(home):
    with_questions = {n for n in quiz.bank_names() if quiz.load_bank(n).questions}
    n = len(with_questions)
    r = quiz.review(n=n, seed=0)
    again = quiz.review(n=n, seed=0)
    ids = [(q.question.notebook, q.question.id) for q in r.questions]
    assert ids == [(q.question.notebook, q.question.id) for q in again.questions]
    assert len(ids) == n and len(set(ids)) == n
    assert {nb for nb, _ in ids} == with_questions  # one question from every bank first
    assert f"Review: {n} questions" in r.title.value
    only_e = quiz.review(n=3, paper_parts=["e"])
    assert {q.question.paper_part for q in only_e.questions} == {"E"}
    with pytest.raises(ValueError, match="positive integer"):
        quiz.review(n=0)
    q = r.questions[0]
    from bertedu.teaching.quiz.core import correct_answer

    if q.question.type == "single":
        q.options_box.value = correct_answer(q.question)
    elif q.question.type == "multiple":
        for i in correct_answer(q.question):
            q.checkboxes[i].value = True
    else:
        for box, value in zip(q.blanks, correct_answer(q.question)):
            box.value = str(value)
    q.submit.click()
    assert q.result.is_correct
    assert stored(home)["notebooks"][q.question.notebook]["questions"][q.question.id]["best"] == 1.0


# --------------------------------------------------------------------- display without a front end
def bundle(widget):
    return widget._repr_mimebundle_()


def test_static_fallback_shows_question_not_answers():
    w = quiz.ask(WELCOME, "show-solution")
    data = bundle(w)
    assert "application/vnd.jupyter.widget-view+json" in data
    html, text = data["text/html"], data["text/plain"]
    for out in (html, text):
        assert "When can you press" in out
        assert (
            "After your first checked attempt, whether that attempt was right or wrong" in out
        )  # options are listed ...
        assert "Yes. Pressing" not in out and "stays locked" not in out  # ... explanations are not
        assert "✓" not in out and "correct option" not in out  # nothing marks the right one
    assert "Interactive quiz" in text
    assert not re.search(r"[0-9a-f]{32}", html + text)  # no model ids


def test_static_fallback_is_deterministic_and_ignores_progress(home):
    """The saved outputs of a notebook (what nbval compares) never depend on the student's progress,
    although the live widget does show it (see test_saved_state_survives_a_restart)."""
    first = bundle(quiz.ask(WELCOME, "set-seed"))
    first_deck = bundle(quiz.flashcards(WELCOME))
    w = quiz.ask(WELCOME, "set-seed")
    w.checkboxes[w.question.option_index("a")].value = True
    w.submit.click()  # progress.json now has an entry
    quiz.flashcards(WELCOME).known.click()
    assert (home / "progress.json").exists()
    second = bundle(quiz.ask(WELCOME, "set-seed"))
    for key in ("text/html", "text/plain"):
        assert first[key] == second[key]
        assert first_deck[key] == bundle(quiz.flashcards(WELCOME))[key]
    fresh = quiz.ask(WELCOME, "set-seed")
    assert fresh.result is None and fresh.feedback.value == ""
    assert "Answered before" in fresh.saved.value  # the live widget knows


def test_static_fallback_other_widgets():
    fill = bundle(quiz.ask(WELCOME, "quiz-score"))
    assert "two right: ________" in fill["text/plain"] and "0.6667" not in fill["text/html"]
    deck = bundle(quiz.flashcards(WELCOME))
    assert "Where is your quiz progress saved" in deck["text/html"]
    assert "progress.json" not in deck["text/html"]  # backs stay hidden
    section = bundle(quiz.section(WELCOME, ["show-solution", "set-seed"]))
    assert section["text/plain"].count("Interactive quiz") == 1
    quiz.set_language("zh")
    zh = bundle(quiz.ask(WELCOME, "show-solution"))
    assert "单选题" in zh["text/plain"] and "交互式测验" in zh["text/html"]


# --------------------------------------------------------------------------- progress summary/reset
def test_progress_summary_and_reset_widget(home):
    empty = quiz.progress()
    assert "0 / 4" in empty.table.value and "Questions answered" in empty.table.value
    w = quiz.ask(WELCOME, "show-solution")
    w.options_box.value = w.question.option_index("b")
    w.submit.click()
    d = quiz.flashcards(WELCOME)
    d.known.click()
    p = quiz.progress()
    assert "1 / 4" in p.table.value and "1.0 / 4 (25%)" in p.table.value and "1 / 2" in p.table.value
    assert str(home) in p.saved_in.value
    assert "00_welcome: 1/4 answered" in bundle(p)["text/plain"]
    p.language.value = "zh"
    assert "已答题数" in p.table.value

    confirm = quiz.reset_progress(WELCOME)
    assert "Erase the quiz progress of notebook 00_welcome" in confirm.message.value
    confirm.cancel.click()
    assert "Nothing was erased" in confirm.message.value
    assert ProgressStore().question(WELCOME, "show-solution")["attempts"] == 1
    confirm = quiz.reset_progress()
    confirm.confirm.click()
    assert "Progress erased" in confirm.message.value and confirm.confirm.disabled
    assert ProgressStore().question(WELCOME, "show-solution") is None
    p.refresh_button.click()
    assert "0 / 4" in p.table.value


def test_progress_text_fallback_follows_the_language(home):
    """Without a widget front end (a terminal, an HTML export) the progress table is plain text, in Chinese too."""
    w = quiz.ask(WELCOME, "show-solution")
    w.options_box.value = w.question.option_index("b")
    w.submit.click()
    english = bundle(quiz.progress())["text/plain"]
    assert "00_welcome: 1/4 answered, score 1.0, cards 0/2" in english
    quiz.set_language("zh")
    chinese = bundle(quiz.progress())["text/plain"]
    assert chinese.splitlines()[0] == "你的测验进度"
    assert "00_welcome：已答 1/4 题，得分 1.0，已记住卡片 0/2" in chinese
    assert not re.search(r"answered|score|cards", chinese)  # no English word left in any line
    assert len(chinese.splitlines()) == len(english.splitlines())  # one line per notebook in both


@pytest.mark.slow
@pytest.mark.parametrize("name", quiz.bank_names())
def test_every_bank_renders_and_grades_through_its_widgets(name):
    """Every question of every bank builds its widget, shows a static fallback, and the reference
    answer entered in the controls is graded Correct (in both languages)."""
    from bertedu.teaching.quiz.core import correct_answer
    from bertedu.teaching.quiz.widgets import question_widget

    bank = quiz.load_bank(name)
    for q in bank.questions:
        w = question_widget(q)
        data = bundle(w)
        assert data["text/plain"] and data["text/html"], q.id
        answer = correct_answer(q)
        if q.type == "single":
            w.options_box.value = answer
        elif q.type == "multiple":
            for i in answer:
                w.checkboxes[i].value = True
        else:
            for box, value in zip(w.blanks, answer):
                box.value = str(value)
        w.submit.click()
        assert w.result.is_correct and "✓ Correct" in w.feedback.value, q.id
        w.language.value = "zh"
        assert "✓ 正确" in w.feedback.value, q.id
        shown = html.unescape(re.sub(r"<[^>]+>", "", w.feedback.value))
        for o in q.options:  # after a correct answer every option's explanation is shown
            start = re.split(r"[$`*]", o.explanation["zh"])[0][:10]
            assert start in shown, (q.id, start)
    if bank.flashcards:
        d = quiz.flashcards(name)
        for _ in d.cards:
            d.flip.click()
            assert d.showing_back
            d.next.click()


# ------------------------------------------------------------------- state that survives a restart
def _restart():
    """What a kernel restart does to the quiz: the cached store is gone, the file stays."""
    from bertedu.teaching.quiz import store

    store._stores.clear()


def test_saved_state_survives_a_restart(home):
    w = quiz.ask(WELCOME, "show-solution")
    assert w.saved.value == "" and w.solution_button.disabled  # never answered: a blank form
    w.options_box.value = w.question.option_index("a")
    w.submit.click()
    w.options_box.value = w.question.option_index("b")
    w.submit.click()
    _restart()

    again = quiz.ask(WELCOME, "show-solution")
    assert "Answered before · best score 1/1 · 2 attempts" in again.saved.value
    assert again.options_box.value == again.question.option_index("b")  # the last answer is filled in
    assert not again.solution_button.disabled and again.solution_button.tooltip == ""
    again.solution_button.click()
    assert "✓ correct option" in again.solution.value
    again.language.value = "zh"
    assert "之前已作答 · 最好成绩 1/1 · 共 2 次作答" in again.saved.value
    again.language.value = "en"
    again.submit.click()
    assert "attempt 3" in again.feedback.value and again.saved.value == ""  # fresh feedback replaces it
    assert ProgressStore().question(WELCOME, "show-solution")["attempts"] == 3


def test_saved_state_of_multiple_and_fill_questions(home):
    m = quiz.ask(WELCOME, "set-seed")
    for option_id in ("a", "b"):  # 2 of the 3 correct options
        m.checkboxes[m.question.option_index(option_id)].value = True
    m.submit.click()
    f = quiz.ask(WELCOME, "quiz-score")
    f.blanks[0].value = "2/3"
    f.blanks[1].value = "0.9"
    f.submit.click()
    _restart()

    m2 = quiz.ask(WELCOME, "set-seed")
    assert "best score 2/3 · 1 attempt" in m2.saved.value
    ticked = {m2.question.options[i].id for i, b in enumerate(m2.checkboxes) if b.value}
    assert ticked == {"a", "b"}
    f2 = quiz.ask(WELCOME, "quiz-score")
    assert "best score 1/2 · 1 attempt" in f2.saved.value
    assert [b.value for b in f2.blanks] == ["2/3", "0.9"]
    stored_answers = ProgressStore().question(WELCOME, "quiz-score")["answers"]
    assert [a["answer"] for a in stored_answers] == [["2/3", "0.9"]] and stored_answers[0]["score"] == 0.5


def test_saved_answer_that_no_longer_fits_is_ignored(home):
    """A bank edited since (fewer options): the old answer is not filled in, the widget still builds."""
    ProgressStore().record_attempt(WELCOME, "show-solution", 0.0, answer=[9])
    _restart()
    w = quiz.ask(WELCOME, "show-solution")
    assert w.options_box.value is None and "Answered before · best score 0/1" in w.saved.value


@pytest.mark.slow
def test_flashcards_show_saved_marks_after_a_restart(home):
    d = quiz.flashcards(WELCOME)
    d.known.click()
    d.next.click()
    d.unknown.click()
    _restart()
    again = quiz.flashcards(WELCOME)
    assert "✓ known (saved earlier)" in again.status.value and "saved: 1 of 2 known" in again.status.value
    again.next.click()
    assert "✗ not yet known (saved earlier)" in again.status.value
    again.known.click()
    assert "✓ marked as known" in again.status.value and "saved: 2 of 2 known" in again.status.value
    again.language.value = "zh"
    assert "已保存：2 张中记住 2 张" in again.status.value


def test_records_are_not_shown_when_recording_is_off(home):
    ProgressStore().record_attempt(WELCOME, "show-solution", 1.0, answer=[1])
    _restart()
    from bertedu.teaching.quiz.widgets import question_widget

    w = question_widget(quiz.load_bank(WELCOME).question("show-solution"), record=False)
    assert w.saved.value == "" and w.options_box.value is None and w.solution_button.disabled


# ---------------------------------------------------------------- solution shown once, not twice
def test_show_solution_after_a_correct_choice_does_not_repeat_the_feedback(home):
    w = quiz.ask(WELCOME, "show-solution")
    w.options_box.value = w.question.option_index("b")
    w.submit.click()
    assert w.feedback.value.count("✓ correct option") == 1  # the feedback already explains every option
    w.solution_button.click()
    assert "already shown above" in w.solution.value
    both = w.feedback.value + w.solution.value
    assert both.count("✓ correct option") == 1 and both.count("there is no attempt limit") == 1


def test_show_solution_after_a_correct_fill_adds_only_the_accepted_answers(home):
    w = quiz.ask(WELCOME, "quiz-score")
    w.blanks[0].value = "0.67"
    w.blanks[1].value = "1/3"
    w.submit.click()
    w.solution_button.click()
    assert "0.6667 (± 0.01)" in w.solution.value  # what else was accepted: new information
    both = w.feedback.value + w.solution.value
    assert both.count("Explanation") == 1  # ... but the explanation is not repeated


def test_show_solution_after_a_wrong_answer_shows_everything(home):
    w = quiz.ask(WELCOME, "set-seed")
    w.checkboxes[w.question.option_index("c")].value = True
    w.submit.click()
    w.solution_button.click()
    assert w.solution.value.count("✓ correct option") == 3 and w.solution.value.count("✗ wrong option") == 2


# ------------------------------------------------------------------------- labels and small polish
def test_button_names_are_exact_in_both_languages():
    w = quiz.ask(WELCOME, "show-solution")
    d = quiz.flashcards(WELCOME)
    names = [w.submit, w.hint_button, w.solution_button, d.known, d.unknown, d.flip, d.previous, d.next]
    assert [b.description for b in names] == [
        "Check answer",
        "Hint",
        "Show solution",
        "I know it",
        "Not yet",
        "Flip",
        "Previous",
        "Next",
    ]
    assert [b.icon for b in names] == [
        "check",
        "lightbulb",
        "book-open",
        "check",
        "times",
        "sync-alt",
        "arrow-left",
        "arrow-right",
    ]
    quiz.set_language("zh")
    assert [b.description for b in names] == [
        "检查答案",
        "提示",
        "显示答案",
        "我记住了",
        "还没记住",
        "翻面",
        "上一张",
        "下一张",
    ]


def test_single_choice_feedback_does_not_count_missed_options():
    w = quiz.ask(WELCOME, "show-solution")
    w.options_box.value = w.question.option_index("a")
    w.submit.click()
    assert "missed" not in w.feedback.value and "option(s)" not in w.feedback.value
    assert "missed" not in str(w.result)
    m = quiz.ask(WELCOME, "set-seed")
    for option_id in ("a", "b"):
        m.checkboxes[m.question.option_index(option_id)].value = True
    m.submit.click()
    assert "You missed 1 correct option;" in m.feedback.value  # singular, and only on multiple choice


def test_fill_feedback_names_the_blank_and_its_label():
    w = quiz.ask(WELCOME, "quiz-score")
    w.blanks[0].value = "0.5"
    w.blanks[1].value = "0.33"
    w.submit.click()
    assert "✗ Blank 1 (two right): “0.5” is not right." in w.feedback.value
    assert "✓ Blank 2 (two right, one wrong): “0.33” is right." in w.feedback.value
    w.language.value = "zh"
    assert "✗ 空 1（选对两个）：“0.5” 不对。" in w.feedback.value
    unlabelled = quiz.ask("paper", "a-masked-lm-name")
    if not any(b.label for b in unlabelled.question.blanks):
        unlabelled.blanks[0].value = "x"
        unlabelled.blanks[1].value = "y"
        unlabelled.submit.click()
        assert "✗ Blank 1: “x” is not right." in unlabelled.feedback.value


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_deck_titles_are_readable_names_not_ids(lang):
    quiz.set_language(lang)
    decks = {(b.notebook, d) for b in (quiz.load_bank(n) for n in quiz.bank_names()) for d in b.decks()}
    for notebook, deck in sorted(decks):
        for d in (quiz.flashcards(deck=deck), quiz.flashcards(notebook, deck=deck)):
            shown = d.title.value + " " + bundle(d)["text/plain"].splitlines()[0]
            assert "deck “" not in shown and "卡组“" not in shown and f"“{deck}”" not in shown, shown
            assert "-" not in deck or deck not in shown, (deck, shown)  # "part-a", "mini-pretraining"
            readable = deck_title(deck)[lang]
            assert readable and readable in shown, (deck, shown)
    title = quiz.flashcards(deck="part-a").title.value
    assert (
        title
        == {
            "en": "<strong>Flashcards: Paper part A · Motivation</strong>",
            "zh": "<strong>闪卡：论文 A 部分 · 研究动机</strong>",
        }[lang]
    )
    assert "Masking strategy" in quiz.flashcards(deck="masking", language="en").title.value


def test_ask_with_a_wrong_kind_of_ids_says_so():
    with pytest.raises(ValueError, match="a string or a list of strings, got 3"):
        quiz.ask(WELCOME, 3)
