"""The teaching machinery: quizzes, exercises with their checks, attention and training plots (``viz``) and
``show`` (the source behind a cell). Used by every notebook; BERT does not depend on it. The course's language is
on the ground floor, :mod:`bertedu.language`."""
