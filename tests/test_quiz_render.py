"""Plain-text rendering of bank strings (native control labels and the no-widget fallback)."""

import pytest

from bertedu.quiz.render import plain_text


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        (r"$x\,\Phi(x)$", "x Φ(x)"),
        (r"$\sqrt2$", "√2"),
        (r"$QK^\top/\sqrt{d_k}$", "QKᵀ/√d_k"),
        (r"$W_p\,T$", "W_p T"),
        (r"$a \in B, \infty$", "a ∈ B, ∞"),
        (r"$\tfrac{1}{2}$", "1/2"),
        (r"$\frac{a+b}{2}$", "(a+b)/2"),
        (r"$\lVert v \rVert$", "‖ v ‖"),
        (r"$\left(a \odot b\right)$", "(a ⊙ b)"),
        (r"$p(x \mid y) \sim \pi$", "p(x | y) ~ π"),
    ],
)
def test_latex_becomes_readable_text(latex, expected):
    assert plain_text(latex) == expected


def test_unknown_commands_are_kept_not_dropped():
    assert "Xi" in plain_text(r"$\Xi$")
