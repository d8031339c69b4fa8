# nbgrader's settings for everyone on the hub's machine (docs/instructor_guide.md, "Running a class on a JupyterHub"):
# install as /etc/jupyter/nbgrader_config.py. Students' servers read it to list, fetch and submit assignments and
# fetch feedback (the Assignments tab); the instructor's commands read it together with the course folder's own
# nbgrader_config.py (assignments/, written by make assignments).
c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.course_id = "bertedu"
# The exchange: a folder every user can write, created as nbgrader's documentation says
#   mkdir -p /srv/nbgrader/exchange && chmod ugo+rwx /srv/nbgrader/exchange
# nbgrader makes the course's inbound/ write-only for students (no listing: one student cannot see another's
# submission) and each release and feedback folder readable only where it must be.
c.Exchange.root = "/srv/nbgrader/exchange"
