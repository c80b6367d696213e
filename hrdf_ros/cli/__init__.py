"""``hrdf``: command-line access to hrdf_ros without ROS.

Subcommands (each takes ``--strict``: spec deviations hebi-py accepts, such as a
negative joint axis, are errors instead of warnings; :mod:`hrdf_ros.hrdf.leniency`):
    hrdf validate FILE... [--json]   exit 0 valid (warnings allowed), 1 invalid, 2 usage/IO;
                                     --json: one {"file", "valid", "errors", "warnings"}
                                     object per line (each diagnostic with its "code")
    hrdf urdf FILE [-o OUT] [--name N] [--joint-prefix P] [--xacro] [--limits YAML]
              [--exact-masses] [--mesh-dir DIR] [--meshes {auto,package,primitives}]
              [--ros2-control {mock,gazebo,hebi} [--hebi-config PKG FILE]]
                                     the physical fill and replaced meshes are reported
                                     on stderr as warnings, how HEBI's meshes were found
                                     as a note (--hebi-meshes: deprecated --meshes package)
    hrdf sdf FILE [-o OUT] [--name N] [--joint-prefix P] [--limits YAML] [--mesh-dir DIR]
             [--meshes ...]          SDFormat 1.9 (hrdf_ros.export.sdf)
    hrdf fk FILE [--positions "q1 q2 ..."] [--frame-type T] [--json]
    hrdf jacobian FILE [--positions "q1 q2 ..."] [--frame-type T] [--json]
    hrdf info FILE [--json]          dof, joint names, frame counts, total mass (kg), the
                                     URDF's physical fill and the element tree (a chain
                                     per output of branching elements)
    hrdf moveit FILE -o DIR [--name N] [--joint-prefix P] [--limits YAML]
              [--collision-samples N] [--seed S] [--ros2-control ...] [--hebi-config ...]
              [--mesh-dir DIR] [--meshes ...]
                                     a MoveIt 2 config package in DIR (hrdf_ros.export.moveit);
                                     prints the paths written
    hrdf view FILE [--host H] [--port N] [--positions "q1 ..."] [--limits YAML]
              [--mesh-dir DIR] [--meshes ...] [--no-gripper-joints]
                                     the robot in the browser (hrdf_ros.view; the view
                                     extra): the URL first on stdout, live reload, until
                                     Ctrl-C or SIGTERM (exit 0)
    hrdf meshes [--mesh-dir DIR] [--meshes M]   where HEBI's meshes come from, what is missing
    hrdf meshes fetch [--url BASE] [--mesh-dir DIR]   download HEBI's part meshes (pinned
                                     commit, SHA-256 checked) into the user cache (or DIR)
    hrdf meshes fetch FILE... [--mesh-dir DIR]   download the web meshes of HRDF files

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
