"""What the exported files write for each HRDF ``mesh_path`` mesh.

In: a :class:`~hrdf_ros.model.RobotModel` (its elements' ``mesh_file``) and the
:class:`~hrdf_ros.parts.mesh_sources.MeshSource` of the export. Out: ``{mesh_file:
reference to write, or None}`` and the notes to report:

* a local mesh file: ``file://`` + its absolute path, not percent-encoded, as ROS's
  resource_retriever reads it (it strips ``file://`` and opens the rest; RViz, Gazebo,
  Drake, Pinocchio and PyBullet resolve it wherever the URDF is; a relative path would
  depend on the current directory of the program reading the URDF, and RViz opens only
  ``file://`` and ``package://``);
* a web mesh (``http(s)://``): the ``file://`` URI of a local copy when the mesh folder
  or the cache has one (:meth:`MeshSource.web_copy`; ``hrdf meshes fetch FILE.hrdf``
  downloads them), else the URL as written (RViz fetches it; it is never collision
  geometry, see :mod:`.geometry`) and one note for all such meshes;
* with ``meshes='primitives'``: ``None`` for every mesh (primitives instead).

:func:`export_meshes` gathers the source, the references and the notes of one export.
Nothing is downloaded here (:mod:`.mesh_fetch` does that, when asked).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..model import RobotModel
from .geometry import is_web_url
from .hebi_parts import part_pieces
from .mesh_sources import MeshSource, file_uri, mesh_source

#: The note for web meshes left as URLs.
WEB_NOTE = ('web mesh(es) without a local copy written as URLs, drawn but not used for '
            'collision (Drake, Pinocchio and PyBullet cannot open URLs): '
            '`hrdf meshes fetch FILE.hrdf` downloads them')


def mesh_references(model: RobotModel, source: MeshSource
                    ) -> Tuple[Dict[str, Optional[str]], List[str]]:
    """What to write for each element's mesh (see the module docstring).

    Returns:
        (``{element.mesh_file: reference or None}`` for every element with a mesh,
        notes: one line when web meshes stay URLs).
    """
    references: Dict[str, Optional[str]] = {}
    urls = 0
    for element in model.elements:
        mesh = element.mesh_file
        if not mesh or mesh in references:
            continue
        if source.forced_primitives:
            references[mesh] = None
        elif not is_web_url(mesh):
            references[mesh] = file_uri(mesh)
        else:
            copy = source.web_copy(mesh)
            references[mesh] = file_uri(copy) if copy else mesh
            urls += copy is None
    return references, ([f'{urls} {WEB_NOTE}'] if urls else [])


def export_meshes(model: RobotModel, mesh_dir: Optional[str] = None, meshes: str = 'auto',
                  hebi_meshes: bool = False):
    """(mesh source, ``{HRDF mesh: reference or None}``, notes) of one export: the
    source by :func:`~.mesh_sources.mesh_source` (``hebi_meshes``, deprecated, is
    ``meshes='package'``), and one note line each for HEBI meshes drawn as primitives and
    for web meshes left as URLs, each starting with ``meshes:``.

    Raises:
        hrdf_ros.parts.mesh_sources.MeshSourceError: an unusable option.
    """
    source = mesh_source(mesh_dir, 'package' if hebi_meshes else meshes)
    references, notes = mesh_references(model, source)
    needed = {p.mesh for e in model.elements for p in part_pieces(e) if p.mesh}
    notes = [source.note(needed)] + notes
    return source, references, [f'meshes: {n}' for n in notes if n]
