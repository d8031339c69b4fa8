"""Sphinx configuration of the course's web site, one build per language (tools/build_site.py copies this file).

tools/build_site.py writes a Sphinx source folder per language (build/site-src/en, build/site-src/zh) with this
file, ``_templates/``, ``_static/`` and a ``site.json`` that says which language the folder is. The pages are the
executed notebooks (myst-nb, never executed here), the course map and "run it yourself". Nothing on a page comes
from the network: MathJax is the copy tools/vendor_web.py vendors from npm, at ``../vendor/mathjax/`` next to the
language folders; the quiz renderer (web/quiz) and the mini-BERT (web/minibert) sit there too.
"""

import json
from pathlib import Path

SETTINGS = json.loads((Path(__file__).parent / "site.json").read_text(encoding="utf-8"))
LANG = SETTINGS["lang"]  # this folder's language code (bertedu.language.LANGUAGES)
OTHER = SETTINGS["other"]  # the other language's folder name

project = SETTINGS["project"]
author = "The bertedu authors"
copyright = "The bertedu authors; code MIT, course text CC BY 4.0"
language = SETTINGS["sphinx_language"]  # from bertedu/language/words.py's html_lang

extensions = ["myst_nb"]
exclude_patterns = ["_build", "site.json", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["bertedu-site.css", "../../quiz/quiz.css"]
html_js_files = [("bertedu-site.js", {"type": "module"})]
html_theme = "sphinx_book_theme"
html_title = SETTINGS["title"]
# The browser asks for an icon: without one, a favicon.ico 404 in every page's console.
html_favicon = "_static/favicon.svg"
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
html_context = {"default_mode": "auto"}  # without it the theme logs "Got invalid theme mode" as an error
html_theme_options = {
    "article_header_end": ["lang-switch.html", "article-header-buttons.html"],
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "show_toc_level": 2,
    "home_page_in_toc": True,
}

# The notebooks as committed: executed, never run here.
nb_execution_mode = "off"
nb_output_stderr = "remove"  # progress bars and warnings of the executed run
nb_ipywidgets_js = {}  # widget views keep their HTML fallback; no widget manager from a CDN
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
suppress_warnings = [
    "myst.xref_missing",
    "myst.header",
    "mystnb.unknown_mime_type",
    "misc.highlighting_failure",
]

# MathJax 3 from the vendored copy in ../vendor/mathjax, next to en/ and zh/ (Sphinx reads these paths from _static/).
mathjax_path = "../../vendor/mathjax/tex-chtml.js"
mathjax3_config = {
    # formulas are typeset when they scroll into view: a long notebook page is interactive at once
    "loader": {"load": ["ui/lazy"]},
    "tex": {
        "inlineMath": [["\\(", "\\)"], ["$", "$"]],
        "displayMath": [["\\[", "\\]"], ["$$", "$$"]],
        "processEscapes": True,
    },
    "options": {
        "ignoreHtmlClass": "tex2jax_ignore|mathjax_ignore|document",
        "processHtmlClass": "tex2jax_process|mathjax_process|math|output_area",
    },
}
html_search_language = language


def _language_switch(app, pagename, templatename, context, doctree):
    """The other language's copy of this page: the same path under ../OTHER/ (both builds share file names)."""
    depth = pagename.count("/")
    context["bertedu_other_url"] = "../" * (depth + 1) + f"{OTHER}/{pagename}.html"
    context["bertedu_other_label"] = SETTINGS["other_label"]
    context["bertedu_other_lang"] = SETTINGS["other_html_lang"]


def setup(app):
    app.set_html_assets_policy("always")  # MathJax on every page: quizzes may show formulas anywhere
    app.connect("html-page-context", _language_switch)
