"""The package docstring of bertedu.course names every module of the package (the architecture review of
2026-12-06 found it listing 4 of 7 modules; 11 by 2026-12-07)."""

from __future__ import annotations

from pathlib import Path

import bertedu.course


def test_the_course_docstring_names_every_module():
    folder = Path(bertedu.course.__file__).parent
    modules = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    missing = [m for m in modules if f":mod:`bertedu.course.{m}`" not in bertedu.course.__doc__]
    assert len(modules) >= 11 and not missing, missing
