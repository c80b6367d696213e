"""Request handling of the node's model services: status, load results and validation.

In: the running :class:`~hrdf_ros.ros.loaded_robot.LoadedRobot`, a load error, or an HRDF
file or text to validate. Out: filled GetModelStatus / LoadHrdf / ValidateHrdf responses
(hrdf_ros_interfaces), with diagnostics as ``HrdfDiagnostic`` messages. Never raises on bad requests.
"""
from __future__ import annotations

from typing import Optional

from hrdf_ros_interfaces.msg import HrdfDiagnostic

from ..hrdf.validation import validate_file, validate_text
from ..kinematics import FRAME_TYPES
from .loaded_robot import LoadedRobot


def diagnostic_msg(diagnostic) -> HrdfDiagnostic:
    """An :class:`hrdf_ros.Diagnostic` as an hrdf_ros_interfaces/msg/HrdfDiagnostic."""
    return HrdfDiagnostic(
        severity=HrdfDiagnostic.WARNING if diagnostic.severity == 'warning'
        else HrdfDiagnostic.ERROR,
        file=diagnostic.path or '', line=max(0, diagnostic.line),
        column=max(0, diagnostic.column), element=diagnostic.element or '',
        attribute=diagnostic.attribute or '', message=diagnostic.message,
        code=diagnostic.code or '')


def model_status(robot: LoadedRobot, response):
    """Fill a GetModelStatus response: file, name, version, DoF, joints, frame counts,
    total mass (kg), warnings."""
    model = robot.model
    response.valid = True
    response.hrdf_file = robot.source
    response.robot_name = robot.name
    response.hrdf_version = '.'.join(map(str, model.version))
    response.dof = model.dof_count
    response.joint_names = robot.joint_names
    counts = {t: model.frame_count(t) for t in FRAME_TYPES}
    response.input_frames = counts['input']
    response.output_frames = counts['output']
    response.com_frames = counts['com']
    response.end_effector_frames = counts['end_effector']
    response.end_effector_links = list(robot.tree.end_effector_links)
    response.total_mass = model.total_mass
    response.warnings = [diagnostic_msg(w) for w in model.warnings]
    return response


def load_result(response, robot: Optional[LoadedRobot] = None, error=None):
    """Fill a LoadHrdf response: the robot now running, or the
    :class:`~hrdf_ros.ros.loaded_robot.LoadError` that kept the old one."""
    if error is not None:
        response.success, response.message = False, str(error).splitlines()[0]
        response.errors = [diagnostic_msg(d) for d in error.diagnostics
                           if d.severity == 'error']
        response.warnings = [diagnostic_msg(d) for d in error.diagnostics
                             if d.severity == 'warning']
        return response
    response.success = True
    response.message = (f'loaded robot "{robot.name}" from {robot.source}: '
                        f'{robot.model.dof_count} DoF')
    response.warnings = [diagnostic_msg(w) for w in robot.model.warnings]
    return response


def validate(request, response, strict: bool = False, access=None):
    """Fill a ValidateHrdf response for the request's file or text (exactly one);
    strict when the request or ``strict`` (the node's parameter) says so; files (and
    includes) only from ``access``'s folders (:mod:`hrdf_ros.hrdf.access`)."""
    if bool(request.hrdf_path) == bool(request.hrdf_text):
        response.valid = False
        response.errors = [HrdfDiagnostic(
            severity=HrdfDiagnostic.ERROR,
            message='give exactly one of hrdf_path or hrdf_text')]
        return response
    strict = strict or request.strict
    report = (validate_file(request.hrdf_path, strict=strict, access=access)
              if request.hrdf_path else
              validate_text(request.hrdf_text, base_dir=request.base_directory or None,
                            name='<text>', strict=strict, access=access))
    response.valid = report.valid
    response.errors = [diagnostic_msg(d) for d in report.errors]
    response.warnings = [diagnostic_msg(d) for d in report.warnings]
    return response
