"""The order in which a student sees a question's options: their own, the same every time they look.

A bank's file order is the same for everyone, so it cannot be what a student sees ("always pick the first"
would be a strategy). Each student instead sees the options sorted by the SHA-256 of
``student id / notebook / question id / option id`` (:func:`option_order`):

- stable for one student and question: a kernel restart, a second look, the review quiz and the Chinese
  edition all show the same order (no random state is involved, only the ids);
- different between students, because their ids differ;
- grading, progress and the class report never see this order: they name options by id
  (:mod:`bertedu.teaching.quiz.core`, :mod:`bertedu.teaching.quiz.store`).

The student id (:func:`student_id`) is a random token made once and kept in ``$BERTEDU_HOME/student-id``
(next to the progress file, so a JupyterHub user keeps theirs); ``$BERTEDU_STUDENT_ID`` overrides it (tests,
or a hub that wants the order tied to the user name). When the file cannot be written, the token is derived
from the user name, so the order still does not change between sessions.

The web pages apply the same rule (``web/quiz/shuffle.js``, with an id kept in the browser's ``localStorage``);
``web/quiz/shuffle_cases.json`` is a table of orders both languages' tests check.

The static fallback a notebook saves as output (for GitHub, nbviewer, HTML and nbval) lists the options in
the bank's order, never a student's, so saved notebooks are the same on every machine.

Introduced in notebook 00.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import re
import secrets

import filelock

from bertedu.files import atomic_write_text
from bertedu.teaching.quiz.banks import Question
from bertedu.teaching.quiz.store import LOCK_TIMEOUT, home_dir

ENV_STUDENT = "BERTEDU_STUDENT_ID"
FILE_NAME = "student-id"
#: What a student id may be (the file's token, the environment variable, the ``"student"`` of an export).
STUDENT_TOKEN = re.compile(r"^[A-Za-z0-9._@-]{1,128}$")


def _read_token(path) -> str | None:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return token if STUDENT_TOKEN.match(token) else None


def student_id() -> str:
    """This student's id: ``$BERTEDU_STUDENT_ID``, else ``$BERTEDU_HOME/student-id`` (made on first use).

    Never raises: when the file can be neither read nor written, the id is a hash of the user name.
    """
    env = os.environ.get(ENV_STUDENT, "").strip()
    if env:
        return env
    path = home_dir() / FILE_NAME
    token = _read_token(path)
    if token:
        return token
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with filelock.FileLock(f"{path}.lock", timeout=LOCK_TIMEOUT):
            token = _read_token(path)  # another kernel may have made it meanwhile
            if token is None:
                token = secrets.token_hex(16)
                atomic_write_text(path, token + "\n")
        return token
    except (OSError, filelock.Timeout):
        try:
            user = getpass.getuser()
        except (OSError, KeyError):
            user = "student"
        return "user-" + hashlib.sha256(user.encode("utf-8")).hexdigest()[:32]


def option_order(question: Question, student: str | None = None) -> tuple[int, ...]:
    """The bank positions of ``question``'s options in the order ``student`` (default :func:`student_id`)
    sees them: sorted by SHA-256 of ``student/notebook/question/option``. Fill-in questions: ``()``."""
    if student is None:
        student = student_id()
    if not isinstance(student, str) or not student:
        raise ValueError(f"A student id is a non-empty string, got {student!r}.")

    def key(i: int) -> str:
        text = f"{student}/{question.notebook}/{question.id}/{question.options[i].id}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    return tuple(sorted(range(len(question.options)), key=key))
