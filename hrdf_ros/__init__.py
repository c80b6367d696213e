"""hrdf_ros: HEBI HRDF robot descriptions in ROS 2.

The package is the pipeline, each layer importing only those before it:

``hrdf/`` (read HRDF) -> ``model`` (the resolved robot) -> ``kinematics/`` (frames,
Jacobians, IK, mass properties) -> ``parts/`` and ``description/`` (HEBI's parts, the
robot every output sees) -> ``motion/`` (collision checks, planning, trajectories: the
motion extra), ``reach/`` (reach and payload maps) and ``export/`` (URDF, xacro,
SDFormat, MJCF, MoveIt 2) -> ``ros/`` (the
node and its services; the only layer that imports rclpy). ``cli`` and ``demo`` sit on top.
``model`` is plain data that imports nothing of the package; ``hrdf/`` builds it.

Everything below needs only numpy, defusedxml and PyYAML. Typical use::

    import hrdf_ros
    model = hrdf_ros.load('arm.hrdf')
    kin = hrdf_ros.Kinematics(model)
    pose = kin.end_effector([0.0] * model.dof_count)   # (4, 4), base frame, m
    urdf = hrdf_ros.to_urdf(model, robot_name='arm')
    text = hrdf_ros.to_hrdf(model)                     # the same robot as HRDF 1.6.0
    report = hrdf_ros.validate_file('arm.hrdf')        # never raises for bad content

The public names are imported on first use (PEP 562), so that ``import hrdf_ros`` (and
the console entry points, :mod:`hrdf_ros.entry_points`) costs nothing until they are
needed: a Ctrl-C while a program is still starting can then be caught.
"""
import importlib

#: public name -> the module defining it
_PUBLIC = {
    'to_urdf': '.export.urdf', 'to_xacro': '.export.urdf', 'to_mjcf': '.export.mjcf',
    'to_hrdf': '.hrdf.writer',
    'Diagnostic': '.hrdf.diagnostics', 'HrdfError': '.hrdf.diagnostics',
    'load': '.hrdf.reader', 'loads': '.hrdf.reader',
    'ValidationReport': '.hrdf.validation', 'validate_file': '.hrdf.validation',
    'validate_text': '.hrdf.validation',
    'FRAME_TYPES': '.kinematics', 'Kinematics': '.kinematics',
    'MassProperties': '.kinematics', 'MotionPlanner': '.motion',
    'reach_map': '.reach', 'ReachMap': '.reach', 'design_arm': '.design',
    'Element': '.model', 'RobotModel': '.model',
}

__all__ = sorted(_PUBLIC, key=str.lower)


def _version() -> str:
    """The installed distribution's version (setup.py takes it from package.xml);
    ``0+unknown`` when hrdf_ros runs from a folder nobody installed."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415
    try:
        return version('hrdf_ros')
    except PackageNotFoundError:
        return '0+unknown'


def __getattr__(name):
    if name == '__version__':          # read on first use: importlib.metadata costs ~10 ms
        globals()[name] = value = _version()
        return value
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'hrdf_ros' has no attribute '{name}'")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))
