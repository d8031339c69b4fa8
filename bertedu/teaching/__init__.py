"""The teaching machinery: the course's language (``i18n``), quizzes, exercises with their checks, attention and
training plots (``viz``) and ``show`` (the source behind a cell). Used by every notebook; BERT does not depend on it."""
