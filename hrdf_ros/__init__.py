"""hrdf_ros: HEBI HRDF robot descriptions in ROS 2.

The package is the pipeline, each layer importing only those before it:

``hrdf/`` (read HRDF) -> ``model`` (the resolved robot) -> ``kinematics/`` (frames,
Jacobians, mass properties) -> ``export/`` (URDF, xacro, MoveIt 2) -> ``ros/`` (the node
and its services; the only layer that imports rclpy). ``cli`` and ``demo`` sit on top.
``model`` is plain data that imports nothing of the package; ``hrdf/`` builds it.

Everything below needs only numpy, defusedxml and PyYAML. Typical use::

    import hrdf_ros
    model = hrdf_ros.load('arm.hrdf')
    kin = hrdf_ros.Kinematics(model)
    pose = kin.end_effector([0.0] * model.dof_count)   # (4, 4), base frame, m
    urdf = hrdf_ros.to_urdf(model, robot_name='arm')
    report = hrdf_ros.validate_file('arm.hrdf')        # never raises for bad content
"""
from .export.urdf import to_urdf, to_xacro
from .hrdf.diagnostics import Diagnostic, HrdfError
from .hrdf.reader import load, loads
from .hrdf.validation import ValidationReport, validate_file, validate_text
from .kinematics import FRAME_TYPES, Kinematics, MassProperties
from .model import Element, RobotModel

__all__ = ['Diagnostic', 'Element', 'FRAME_TYPES', 'HrdfError', 'Kinematics',
           'MassProperties', 'RobotModel', 'ValidationReport', 'load', 'loads', 'to_urdf',
           'to_xacro', 'validate_file', 'validate_text']
__version__ = '0.1.0'
