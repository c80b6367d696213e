"""The robot in the browser (viser): ``hrdf view`` and the ROS web view's drawing.

The only part of hrdf_ros that imports viser, yourdfpy and trimesh (the ``view`` extra:
``pip install 'hrdf_ros[view]'``); nothing else imports this package, except
``hrdf view`` and the ROS web view node, when they run.

* :mod:`.server` the viser server: bound address, URL, camera, nothing leaving the host;
* :mod:`.robot_scene` a URDF drawn link by link, posed from joint values or TF;
* :mod:`.mesh_files` mesh references (``file://``, ``package://``) -> local files;
* :mod:`.joint_sliders` one slider per movable joint, zero / random;
* :mod:`.fk_panel` hrdf_ros's FK: end-effector readout, output/COM/end-effector frames;
* :mod:`.colours` HEBI's colours for links the URDF gives none;
* :mod:`.watch` files changed on disk (polling);
* :mod:`.file_view` ``hrdf view``'s page: all of the above for one HRDF file, reloaded
  when it changes.

This file itself imports nothing, so that :func:`missing_packages` can say what to
install before anything fails.
"""
import importlib
from typing import List

#: The ``view`` extra (setup.py ``extras_require['view']``).
PACKAGES = ('viser', 'yourdfpy', 'trimesh')
INSTALL_HINT = "the view extra (viser, yourdfpy, trimesh): pip install 'hrdf_ros[view]'"


def missing_packages() -> List[str]:
    """The packages of the ``view`` extra that do not import."""
    missing = []
    for name in PACKAGES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing
