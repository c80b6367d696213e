"""``hrdf``: command-line access to hrdf_ros without ROS.

The subcommands, their arguments and help are those of
:func:`hrdf_ros.cli.main.build_parser` (``hrdf --help``, ``hrdf <command> --help``; the
documentation's CLI reference is generated from it). Each takes ``--strict``: spec
deviations hebi-py accepts, such as a negative joint axis, are errors instead of
warnings (:mod:`hrdf_ros.hrdf.leniency`). What they print:

- ``hrdf validate --json``: one ``{"file", "valid", "errors", "warnings"}`` object per
  line, each diagnostic with its ``"code"``.
- ``hrdf urdf``, ``hrdf sdf``: the document on stdout or in ``-o``; the physical fill
  and replaced meshes are reported on stderr as warnings, how HEBI's meshes were found
  as a note.
- ``hrdf info``: dof, joint names, frame counts, total mass (kg), the URDF's physical
  fill and the element tree (a chain per output of branching elements).
- ``hrdf moveit``: the paths written. ``hrdf view``: the URL first on stdout, then it
  serves the page with live reload until Ctrl-C or SIGTERM (exit 0).
- ``hrdf reach``: a summary (reachable volume, m^3; the volume where the reachability
  index is at least 0.5; payload quantiles, kg; the joint that binds most often); the
  map in ``-o`` (.npz, :class:`hrdf_ros.ReachMap`), heat maps in ``--plot``.
- ``hrdf design``: a summary (the best design's mass and modules, the designs evaluated
  and how fast, against the lightest HEBI kit that meets the task); ``designs.csv``,
  ``design-K.hrdf`` and ``design-K.yaml`` in ``-o`` (:mod:`hrdf_ros.design.output`). Its
  exit code 1 means that no design meets the task (one line names the closest and what
  it misses), not an invalid HRDF.

Positions are in rad (m for prismatic joints), in HEBI joint order; default all zeros
(a robot without degrees of freedom needs none). Frames are 4x4 homogeneous transforms
in the robot's reference frame (base frame applied), row major. Jacobians are 6 x dof,
rows [vx vy vz wx wy wz] in the reference frame (m/s, rad/s per unit joint velocity).

Exit codes: 0 success; 1 invalid HRDF (every located diagnostic on stderr); 2 usage or
I/O problem (bad arguments, unreadable or unwritable files, a closed output pipe), one
line on stderr; 130 interrupted. No Python traceback is ever printed.
"""
from .main import build_parser, main

__all__ = ['build_parser', 'main']
