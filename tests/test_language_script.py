"""bertedu/language/script.py: the one place that knows the CJK script (tests/test_language_room.py keeps it
there)."""

from __future__ import annotations

from bertedu.language.script import (
    DASHES,
    HAN_RUN,
    IME_DECIMAL_POINT,
    SENTENCE_PUNCTUATION,
    display_width,
    is_cjk,
)


def test_what_is_cjk_and_how_wide_it_is():
    assert is_cjk("中") and is_cjk("，") and is_cjk("。") and is_cjk("한")
    assert not is_cjk("a") and not is_cjk("é") and not is_cjk("—") and not is_cjk(" ")
    assert all(is_cjk(c) for c in SENTENCE_PUNCTUATION)
    assert display_width("BERT") == 4 and display_width("掩码") == 4 and display_width("掩码 MLM") == 8


def test_the_patterns_the_quiz_reads():
    assert HAN_RUN.findall("BERT 的掩码，MLM 模型") == ["的掩码", "模型"]
    assert IME_DECIMAL_POINT.sub(".", "0。67。") == "0.67。"  # only between digits
    assert DASHES.sub("-", "a\u2013b\uff0dc\u2212d") == "a-b-c-d"


def test_a_label_breaks_after_its_last_comma_in_either_script():
    from bertedu.language.script import break_after_last_comma

    assert break_after_last_comma("a, b (c), points") == "a, b (c),\npoints"
    assert (
        break_after_last_comma("变体减去 BERT（相同随机种子），百分点")
        == "变体减去 BERT（相同随机种子），\n百分点"
    )
    assert break_after_last_comma("no comma") == "no comma"
