# tests/test_hub.py's hub: hub/jupyterhub_config.py with what a test must change on top of it. Not for a class.
#   BERTEDU_HUB_TEST=settings.json jupyterhub -f hub/test_config.py
# A shared-password authenticator instead of PAM (the test's Unix users have no system password; PAM itself is
# the operating system's), the test's own ports and state folder, the test's users instead of groups (its
# instructor the hub's admin, as the group `instructors` makes them), and its scratch folder where the shipped
# settings name /etc/jupyter.
import json
import os
from pathlib import Path

c = get_config()  # noqa: F821 (JupyterHub provides it)
load_subconfig(str(Path(__file__).with_name("jupyterhub_config.py")))  # noqa: F821

settings = json.loads(Path(os.environ["BERTEDU_HUB_TEST"]).read_text())
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = settings["password"]
c.SharedPasswordAuthenticator.admin_password = settings["admin_password"]
c.Authenticator.allowed_users = set(settings["students"])
c.Authenticator.admin_users = {settings["instructor"]}
c.JupyterHub.bind_url = f"http://127.0.0.1:{settings['port']}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = settings["hub_port"]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings['proxy_api_port']}"
c.JupyterHub.db_url = f"sqlite:///{settings['state']}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = f"{settings['state']}/jupyterhub_cookie_secret"
c.JupyterHub.pid_file = f"{settings['state']}/jupyterhub.pid"
c.ConfigurableHTTPProxy.pid_file = f"{settings['state']}/proxy.pid"
# the test's client: a service whose token may create users' tokens and start their servers
c.JupyterHub.services = [{"name": "hub-test", "api_token": settings["token"]}]
c.JupyterHub.load_roles = [
    {"name": "hub-test", "services": ["hub-test"], "scopes": ["admin:users", "admin:servers", "tokens"]}
]
shipped_config_path = c.Spawner.environment["JUPYTER_CONFIG_PATH"]


def jupyter_config_path(spawner) -> str:
    """The shipped choice (student side or not) with the test's folder for /etc/jupyter, then that folder itself
    (Jupyter reads /etc/jupyter without being told; a scratch folder it must be told of)."""
    chosen = shipped_config_path(spawner).replace("/etc/jupyter", settings["etc"])
    return os.pathsep.join(path for path in (chosen, settings["etc"]) if path)


c.Spawner.environment = {
    **c.Spawner.environment,
    **settings.get("environment", {}),
    "JUPYTER_CONFIG_PATH": jupyter_config_path,
}
