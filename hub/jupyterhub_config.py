# JupyterHub configuration of a bertedu class on one machine (docs/instructor_guide.md, "Running a class on a
# JupyterHub"): students are the machine's Unix users, log in with their system password (PAM), and each gets a
# Jupyter server started as their own user (LocalProcessSpawner) in their home folder. nbgrader's exchange is a
# folder on the same machine (hub/nbgrader_config.py, installed as /etc/jupyter/nbgrader_config.py).
#
#   jupyterhub -f hub/jupyterhub_config.py        # as root, from the repository's folder, the course's venv active
#
# tests/test_hub.py starts the hub with this file and hub/test_config.py on top (a shared-password
# authenticator instead of PAM, ports and folders of its own), releases an assignment to three students and
# grades it.
import os
import sys
from pathlib import Path

HUB = Path(__file__).resolve().parent

c = get_config()  # noqa: F821 (JupyterHub provides it)

# Who may log in: the Unix users of these groups, with their system password. Create them as the guide does
# (homes only their user reads: docs/instructor_guide.md, "Running a class on a JupyterHub").
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = {"students", "instructors"}  # a user of neither group cannot log in
c.PAMAuthenticator.admin_groups = {"instructors"}
# The hub's own state (its sqlite database, cookie secret) in a folder only root reads.
STATE = Path(os.environ.get("BERTEDU_HUB_STATE", "/srv/jupyterhub"))
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.bind_url = (
    "http://:8000"  # put HTTPS in front (a reverse proxy, or c.JupyterHub.ssl_cert/ssl_key)
)

# The proxy: configurable-http-proxy from npm, as hub/package-lock.json pins it (`npm ci` in hub/, or `make hub`).
c.ConfigurableHTTPProxy.command = [str(HUB / "node_modules" / ".bin" / "configurable-http-proxy")]

# Each student's server: a process of their own Unix user, in their home folder, with the course's Python
# environment (the one that runs the hub: the graded package installed in it, docs/instructor_guide.md).
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [str(Path(sys.executable).with_name("jupyterhub-singleuser"))]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
#: Jupyter settings only students' servers read (hub/nbgrader-student/, installed there by the guide): nbgrader's
#: student side only, the Assignments tab; no formgrader, course list or create-assignment tool.
STUDENT_SIDE = "/etc/jupyter/nbgrader-student"


def jupyter_config_path(spawner) -> str:
    """JUPYTER_CONFIG_PATH of a user's server: the student-side settings first (they outrank the environment's
    own, which enable every nbgrader extension); nothing extra for the instructors (the hub's admins)."""
    return "" if spawner.user.admin else STUDENT_SIDE


c.Spawner.environment = {
    # kernels train on one torch thread (the course recipe asks for one anyway: bertedu.course.course_config),
    # so that a student's notebook 06 keeps to its core and one student cannot slow down the others
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
    "HF_HUB_OFFLINE": "1",  # no network at run time
    "TRANSFORMERS_OFFLINE": "1",
    # each student's runs (notebook 06's model, the side runs' cache) in a folder of their own: the course package
    # is shared and read-only (its runs/mini-bert/, pre-trained by the instructor, is read when theirs is missing)
    "BERTEDU_RUNS": "~/.bertedu/runs",
    # `python`, `pip` and `jupyter` in a terminal of the student's server are the course's (the doctor's advice)
    "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
    "JUPYTER_CONFIG_PATH": jupyter_config_path,
}
# Sizing (measured: the guide's hub section): a kernel training notebook 06 holds about 0.6 GiB, its side-run
# process as much again. Limits the spawner itself does not enforce are documented there (systemd, cgroups).
c.Spawner.mem_limit = "2G"  # informational for LocalProcessSpawner: JupyterLab shows it; not enforced
c.Spawner.http_timeout = 60  # a server needs a few seconds to start on a busy 2-core machine
c.Spawner.start_timeout = 120
# Servers nobody uses are stopped after an hour (the hub's idle culler is a separate package: this is the
# server's own setting, which needs nothing more).
c.Spawner.args = [
    "--ServerApp.shutdown_no_activity_timeout=3600",
    "--MappingKernelManager.cull_idle_timeout=3600",
]
