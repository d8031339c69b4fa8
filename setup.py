"""The wheel carries the course's data: every file under ``data/`` but the scripts that write them, copied at
build time into the package as ``bertedu/data/`` (``bertedu.utils.data_dir`` reads it where no repository checkout
is found). ``data/`` stays the one copy in the repository; a file added to it is shipped without a change here.

Everything else about the package is in pyproject.toml. The source distribution takes ``data/`` too (MANIFEST.in),
so that a wheel built from it (``python -m build``) carries the same files.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

#: The repository's folder of course data, and where the wheel puts it (inside the package).
DATA_SOURCE = "data"
DATA_TARGET = ("bertedu", "data")
#: Files of data/ that are not course data: the scripts that write it, and what running them leaves behind.
NOT_SHIPPED = (".py", ".pyc")


def course_data_files(root: str | os.PathLike = ".") -> list[str]:
    """Paths (relative to ``root/data``, with ``/``) of every file under ``data/`` the wheel carries."""
    folder = Path(root) / DATA_SOURCE
    return sorted(
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and path.suffix not in NOT_SHIPPED and "__pycache__" not in path.parts
    )


class build_py_with_course_data(build_py):
    """setuptools' build_py, with data/ added to the package's data files as bertedu/data/."""

    def _course_data(self) -> tuple[str, str, str, list[str]]:
        build_dir = os.path.join(self.build_lib, *DATA_TARGET)
        return DATA_TARGET[0], DATA_SOURCE, build_dir, course_data_files()

    def _get_data_files(self):
        return [*super()._get_data_files(), self._course_data()]

    def get_data_files_without_manifest(self):
        return [*super().get_data_files_without_manifest(), self._course_data()]


if __name__ == "__main__":
    setup(cmdclass={"build_py": build_py_with_course_data})
