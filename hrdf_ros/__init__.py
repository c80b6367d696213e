"""hrdf_ros: HEBI HRDF robot descriptions in ROS 2.

The package is layered: a ROS-free core (``parser`` -> ``model`` -> ``kinematics`` ->
``urdf``) that needs only numpy and defusedxml, and a thin ROS 2 layer in
:mod:`hrdf_ros.ros`. Typical use::

    import hrdf_ros
    model = hrdf_ros.load('arm.hrdf')
    kin = hrdf_ros.Kinematics(model)
    pose = kin.end_effector([0.0] * model.dof_count)   # (4, 4), base frame, m
    urdf = hrdf_ros.to_urdf(model, robot_name='arm')
    report = hrdf_ros.validate_file('arm.hrdf')        # never raises for bad content
"""
from .diagnostics import Diagnostic, HrdfError
from .kinematics import Kinematics
from .model import Element, RobotModel
from .parser import load, loads
from .urdf import to_urdf
from .validation import ValidationReport, validate_file, validate_text

__all__ = ['Diagnostic', 'Element', 'HrdfError', 'Kinematics', 'RobotModel',
           'ValidationReport', 'load', 'loads', 'to_urdf', 'validate_file', 'validate_text']
__version__ = '0.1.0'
