"""Sphinx configuration of hrdf_ros's documentation.

The layout is the one rosdoc2 builds for a ROS 2 Python package (``doc/conf.py`` and
``doc/index.rst``); plain ``sphinx-build`` builds it too (``make docs``:
``sphinx-build -W -n --keep-going -b html doc build/docs/html``, with
scripts/requirements-docs.txt). Pages are MyST Markdown except ``index.rst``. The
reference pages are generated at build time from the code and the interface files by
``doc/_ext/hrdf_docs.py``.

rosdoc2 runs this file's text inside its own conf.py (``exec``), so ``__file__`` may
name rosdoc2's copy of the doc folder; the repository root is then found by looking
for ``package.xml`` above it, and the settings rosdoc2 made before (``release``) are
kept when it is not found. Importing this file changes nothing but ``sys.path``.

References: with ``-n`` every cross-reference must resolve. There is no intersphinx (the
build runs offline), so the few targets of other projects are listed in
``nitpick_ignore``; references to objects of the package that the API page does not
document resolve through ``hrdf_docs.resolve_package_reference`` when, and only when,
the object exists.
"""
import importlib.util
import os
import sys
import xml.etree.ElementTree as ElementTree

DOC_DIR = os.path.dirname(os.path.abspath(__file__))


def _is_root(folder):
    return (os.path.isfile(os.path.join(folder, 'package.xml'))
            and os.path.isdir(os.path.join(folder, 'hrdf_ros')))


def _repository_root(start):
    """The nearest folder at or above ``start`` holding hrdf_ros's package.xml; else
    (rosdoc2, or a copy of doc/ elsewhere) the source tree of the hrdf_ros that Python
    would import, found without importing it; else None."""
    folder = start
    while not _is_root(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            spec = importlib.util.find_spec('hrdf_ros')
            if spec is None or not spec.origin:
                return None
            folder = os.path.dirname(os.path.dirname(spec.origin))
            return folder if _is_root(folder) else None
        folder = parent
    return folder


REPO_ROOT = _repository_root(DOC_DIR)
# Our Sphinx extension (doc/_ext) and the package itself (autodoc, the generated
# reference) are imported from the source tree, not from an installed copy.
for _path in (os.path.join(DOC_DIR, '_ext'),
              REPO_ROOT and os.path.join(REPO_ROOT, 'doc', '_ext'), REPO_ROOT):
    if _path and os.path.isdir(_path) and _path not in sys.path:
        sys.path.insert(0, _path)

# -- Project information (package.xml is the one place the version is written) --------

project = 'hrdf_ros'
author = 'hrdf_ros maintainers'
copyright = 'hrdf_ros maintainers, Apache-2.0'
release = globals().get('release', 'unknown')   # rosdoc2 has set it from package.xml
if REPO_ROOT:
    # package.xml is this repository's own file: ElementTree is enough (no DTD, no
    # entities), defusedxml is for HRDF files from elsewhere.
    _package = ElementTree.parse(os.path.join(REPO_ROOT, 'package.xml')).getroot()
    release = _package.findtext('version')
    author = _package.findtext('maintainer') or author
version = '.'.join(release.split('.')[:2])

# -- General configuration ---------------------------------------------------------

extensions = [
    'myst_parser',
    'sphinx.ext.autodoc',
    'sphinx.ext.napoleon',
    'hrdf_docs',
]
# rosdoc2 drops extensions outside its own list unless this is set (it defines
# rosdoc2_settings before running this file); plain sphinx-build ignores it.
rosdoc2_settings = dict(globals().get('rosdoc2_settings', {}), allow_other_extensions=True)
master_doc = 'index'
root_doc = 'index'
source_suffix = {'.rst': 'restructuredtext', '.md': 'markdown'}
exclude_patterns = ['_build', '_ext', 'Thumbs.db', '.DS_Store']
templates_path = []

# MyST: ::: fences for directives, definition lists, and an anchor for every heading
# down to ### so that [text](page.md#a-heading) links are checked by Sphinx.
myst_enable_extensions = ['colon_fence', 'deflist']
myst_heading_anchors = 3

# autodoc + napoleon: the package's docstrings are Google style (Args:, Returns:,
# Raises:, Attributes:).
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = False
autodoc_member_order = 'bysource'
autodoc_typehints = 'description'
autodoc_default_options = {'members': True, 'show-inheritance': False}

# Every cross-reference must resolve (sphinx-build -n). There is no intersphinx: the
# build runs offline. Targets of other projects that appear in the documented API, and so
# cannot resolve here, are listed with why they appear.
nitpicky = True
nitpick_ignore = [
    # numpy arrays in the type hints of the model and kinematics API
    ('py:class', 'numpy.ndarray'),
]

# -- HTML ---------------------------------------------------------------------------

html_theme = 'alabaster'
html_title = f'hrdf_ros {release}'
html_static_path = []

# Text as written: no typographic quotes, dashes or ellipses (``--strict`` in a generated
# help text stays two hyphens, ``...`` three dots).
smartquotes = False
