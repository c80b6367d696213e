"""Load MoveIt config packages with MoveIt's own loader, in a process of its own.

Run by test_moveit_package.py as ``python moveit_loader.py`` with a JSON list of
``[robot name, package name]`` on stdin and AMENT_PREFIX_PATH covering the installed
packages (moveit_configs_utils finds itself and the packages through the ament index).
Prints one JSON object: per package the warnings (logging records of level WARNING and
up, Python warnings, anything printed), the error if loading failed, the number of
entities each ``moveit_configs_utils.launches.generate_*_launch`` built (or its error),
and the loaded robot_description and SRDF.
"""
import contextlib
import io
import json
import logging
import sys
import warnings

from moveit_configs_utils import MoveItConfigsBuilder, launches


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(f'{record.levelname}: {record.getMessage()}')


def load(robot, package):
    handler = _Collect()
    logging.getLogger().addHandler(handler)
    printed = io.StringIO()
    result = {'warnings': [], 'error': None, 'launches': {}}
    try:
        with warnings.catch_warnings(record=True) as caught, \
                contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            warnings.simplefilter('always')
            try:
                config = MoveItConfigsBuilder(robot, package_name=package).to_moveit_configs()
                parameters = config.to_dict()
            except Exception as exc:  # reported to the test, which fails on it
                result['error'] = f'{type(exc).__name__}: {exc}'
                config = None
            if config is not None:
                result['robot_description'] = parameters['robot_description']
                result['srdf'] = parameters['robot_description_semantic']
                result['kinematics'] = parameters['robot_description_kinematics']
                result['planning'] = parameters['robot_description_planning']
                result['controllers'] = parameters.get('moveit_simple_controller_manager')
                for name in sorted(n for n in dir(launches) if n.startswith('generate_')
                                   and n.endswith('_launch')):
                    try:
                        result['launches'][name] = len(getattr(launches, name)(config)
                                                       .entities)
                    except Exception as exc:  # noqa: BLE001 - reported to the test
                        result['launches'][name] = f'{type(exc).__name__}: {exc}'
        result['warnings'] += [f'{w.category.__name__}: {w.message}' for w in caught]
    finally:
        logging.getLogger().removeHandler(handler)
    result['warnings'] += handler.records
    if printed.getvalue().strip():
        result['warnings'].append('printed: ' + printed.getvalue().strip())
    return result


def main():
    out = {package: load(robot, package) for robot, package in json.load(sys.stdin)}
    json.dump(out, sys.stdout)


if __name__ == '__main__':
    main()
