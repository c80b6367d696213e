"""HEBI's part catalogue as drawn: what each built-in part looks like and where its files
come from. No file format and no robot in here; :mod:`hrdf_ros.description` places the
parts on a robot's links.

* :mod:`.hebi_parts` meshes, poses and colours of each part's pieces;
* :mod:`.part_collision` the boxes and cylinders fitted to each mesh;
* :mod:`.geometry` visual and collision shapes of one HRDF element (HEBI's meshes, the
  HRDF's own mesh, or primitives); :mod:`.gripper_geometry` those of a parallel
  gripper's parts;
* :mod:`.hebi_mesh_files` the pinned mesh files and their SHA-256 digests;
* :mod:`.mesh_sources` where mesh files come from (the one mesh-source rule: mesh_dir,
  hebi_description through the ament index, the user cache, or primitives);
  :mod:`.meshes` that rule applied to a model (its HRDF meshes included);
  :mod:`.mesh_fetch` ``hrdf meshes fetch``.

Units: m. Imports :mod:`hrdf_ros.model`, :mod:`hrdf_ros.hrdf` and
:mod:`hrdf_ros.kinematics` only (the layers: :mod:`hrdf_ros`).
"""
