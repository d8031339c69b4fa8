"""An answer must be the student's own code: an exercise names the package objects that already do what it asks
(``Exercise(answers=...)``, bertedu/teaching/exercises/library_answers.py), and a check rejects an answer that is,
subclasses or calls one of them, saying why, instead of "✓ Correct"."""

from __future__ import annotations

import functools
import importlib
import pkgutil

import pytest
import torch

import bertedu.teaching.exercises as package
from bertedu import language as i18n
from bertedu.core import attention
from bertedu.core.attention import BertSelfAttention, build_key_mask
from bertedu.core.config import BertConfig
from bertedu.teaching.exercises import Exercise, library_answers
from bertedu.teaching.exercises import attention as ex
from bertedu.teaching.exercises import encoder as encoder_ex


def all_exercises() -> list[Exercise]:
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found.update({id(v): v for v in vars(module).values() if isinstance(v, Exercise)})
    return sorted(found.values(), key=lambda e: e.name)


WITH_ANSWERS = [e for e in all_exercises() if e.answers]


@pytest.fixture(autouse=True)
def english():
    i18n.set_language("en")
    yield
    i18n.set_language(None)


def right_padding_mask(attention_mask):
    return attention_mask[:, None, None, :].bool()  # (B, 1, 1, T)


def test_the_review_case_is_rejected_and_says_why():
    """``ex.key_mask.check(lambda m: build_key_mask(m))`` said "✓ Correct" (newcomer review 2026-12-06)."""
    assert ex.key_mask.check(right_padding_mask).passed
    result = ex.key_mask.check(lambda m: build_key_mask(m))
    assert not result.passed and result.attempted
    assert "bertedu.core.attention.build_key_mask" in result.message and "cannot count" in result.message


def helper(m):  # a student's helper that hides the call one level down
    return build_key_mask(m)


@pytest.mark.parametrize(
    "answer",
    [
        build_key_mask,  # the library's function itself
        lambda m: attention.build_key_mask(m),  # through its module
        functools.partial(build_key_mask),
        lambda m: helper(m),  # through a helper of the student's
        (lambda f: lambda m: f(m))(build_key_mask),  # in a closure
        lambda m, f=build_key_mask: f(m),  # as a default value
    ],
    ids=["itself", "module", "partial", "helper", "closure", "default"],
)
def test_every_way_of_using_the_library_is_rejected(answer):
    result = ex.key_mask.check(answer)
    assert not result.passed and "cannot count" in result.message, result


def test_a_call_no_name_shows_is_caught_while_the_checker_runs():
    """``layer(x)`` on the BertLayer the checker hands in, or a method fetched by a computed name: no name in the
    answer points at the library's answer, but the call comes from the student's code while the checker runs."""
    result = encoder_ex.post_ln_layer.check(lambda layer, x: layer(x)[0])
    assert not result.passed and "bertedu.core.encoder.BertLayer.forward" in result.message, result

    def split_heads(x, n):
        layer = BertSelfAttention(BertConfig(hidden_size=x.shape[-1], num_attention_heads=n, vocab_size=10))
        return getattr(layer, "split" + "_heads")(x)

    result = ex.split_heads.check(split_heads)
    assert not result.passed and "BertSelfAttention.split_heads" in result.message, result


def test_the_guard_is_removed_after_the_check_and_the_checker_may_use_the_library():
    """The checker's own reference calls run while the guard is in place (no student code on the stack), and
    afterwards the library is as it was."""
    before = BertSelfAttention.__dict__["split_heads"]
    assert ex.split_heads.check(lambda x, n: x.view(*x.shape[:2], n, -1).transpose(1, 2)).passed
    assert BertSelfAttention.__dict__["split_heads"] is before
    assert attention.__dict__["build_key_mask"] is build_key_mask
    x = torch.arange(12.0).view(1, 2, 6)
    assert BertSelfAttention(BertConfig(hidden_size=6, num_attention_heads=2)).split_heads(x).shape == (
        1,
        2,
        2,
        3,
    )


def cheat_for(path: str):
    """An answer that uses the library answer at ``path``: a subclass of a class, a call of a function or method."""
    obj = library_answers.resolve(path)
    if isinstance(obj, type):
        return type("Mine", (obj,), {})
    owner_path, _, name = path.rpartition(".")
    owner = library_answers.resolve(owner_path)
    if isinstance(owner, type):
        return eval(f"lambda *a, **k: Owner.{name}(*a, **k)", {"Owner": owner})  # noqa: S307
    return lambda *a, **k: obj(*a, **k)


@pytest.mark.parametrize(
    "exercise, path",
    [(e, p) for e in WITH_ANSWERS for p in e.answers],
    ids=[f"{e.name}-{p.rpartition('.')[2]}" for e in WITH_ANSWERS for p in e.answers],
)
def test_every_exercise_rejects_each_of_its_library_answers(exercise, path):
    result = exercise.check(cheat_for(path))
    assert not result.passed and path in result.message, result


def test_the_declared_answers_exist_and_cover_the_exercises_the_review_named():
    for exercise in WITH_ANSWERS:
        for path in exercise.answers:
            assert library_answers.resolve(path) is not None
    names = {e.name for e in WITH_ANSWERS}
    assert {
        "key_mask",
        "split_heads",
        "masking_function",
        "training_step",
        "decode_span",
        "mlm_head",
    } <= names
    with pytest.raises(ValueError, match="names no object"):
        library_answers.resolve("bertedu.core.attention.no_such_function")


def test_the_rejection_speaks_chinese():
    i18n.set_language("zh")
    result = ex.key_mask.check(lambda m: build_key_mask(m))
    assert "不能算数" in result.message and "build_key_mask" in result.message


def test_an_object_that_raises_on_any_attribute_is_searched_as_itself():
    """torch.classes' namespaces raise RuntimeError (not AttributeError) for an unknown attribute such as
    ``__wrapped__``: the search must pass over them (an answer cell that touches torch met one, in the wheel's
    environment)."""
    import torch

    from bertedu.teaching.exercises import library_answers

    class Loud:
        def __getattr__(self, name):
            raise RuntimeError(f"no {name}")

    loud = Loud()
    assert library_answers.plain(loud) is loud
    assert library_answers.plain(torch.classes) is torch.classes
    assert library_answers._Search({}).value([loud, torch.classes]) is None


def test_a_package_installed_outside_this_environment_is_not_searched_as_the_students(tmp_path, monkeypatch):
    """PyTorch linked in from another venv, Debian's or Colab's dist-packages, a user's site-packages: installed
    code, not the student's (searched as the student's, one check walked all of PyTorch: 77 s in the wheel test).
    A module of the student's own, next to the notebook, still is."""
    import sys
    import types

    for folder, students in (("site-packages", False), ("dist-packages", False), ("my_project", True)):
        (tmp_path / folder).mkdir()
        module = types.ModuleType(f"elsewhere_{folder.replace('-', '_')}")
        module.__file__ = str(tmp_path / folder / "helper.py")
        monkeypatch.setitem(sys.modules, module.__name__, module)
        exec("def helper():\n    return 1\n", module.__dict__)
        assert library_answers._is_students(module.helper) is students, folder
    assert not library_answers._is_students(torch.nn.functional.softmax)
