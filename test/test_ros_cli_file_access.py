"""What the node reads, through the real ``ros2`` command line: the attacks of
doc/explanation/trust.md against ``~/load_hrdf``, ``~/validate_hrdf`` and
``ros2 param set hrdf_file``, each refused with the same message whether or not the file
exists, the running model unchanged; ``allow_load:=false``; and hostile inputs (a 50 MiB
file, 10 000 levels of nesting, a 10 MiB attribute) refused by their bounds while /tf
keeps coming (counted with an rclpy client beside the CLI; how soon they are refused is
measured by benchmarks/node_hostile.py).

One ``ros2 launch hrdf_ros hrdf.launch.py hrdf_file:=A-2085-06.hrdf publish_frequency:=0``
in a folder holding the kits (links into ../shared/hrdf/kits), a bad file, a link to
/etc/passwd, a directory and the hostile files: its allowed directories are that folder
and the kits' folder (the links' targets).
"""
import os
import re
import time

import numpy as np
import pytest

from hrdf_ros.hrdf.access import REFUSED

from conftest import KITS_DIR
from cli_helpers import (KIT, POSITIONS, Background, launched, require_ros2_cli, run,
                         run_all, service_call, service_response, service_responses,
                         wait_for_node)

require_ros2_cli()
LAUNCH = f'ros2 launch hrdf_ros hrdf.launch.py hrdf_file:={KIT} publish_frequency:=0.0'
LAUNCH_NO_LOAD = (f'ros2 launch hrdf_ros hrdf.launch.py hrdf_file:={KIT} allow_load:=false '
                  'namespace:=locked')
LOCKED = '/locked/hrdf_ros_node'
#: paths that must be refused alike: outside, a link out, a .. escape, missing, a folder
ATTACKS = ['/etc/passwd', 'passwd_link.hrdf', '../../../../../../../../etc/passwd',
           'missing.hrdf', 'a_folder']
#: hostile files and text, refused by the bounds (doc/explanation/trust.md)
DEEP = '<robot version="1.2.0">' + '<rigid-body mass="1">' * 10000 + '</robot>'
WIDE = '<robot version="1.2.0"><rigid-body mass="1" com_trans="' + '1' * (10 << 20) \
    + ' 0 0"/></robot>'


@pytest.fixture(scope='module')
def guarded(ros2_daemon, workdir):
    os.symlink('/etc/passwd', os.path.join(workdir, 'passwd_link.hrdf'))
    os.mkdir(os.path.join(workdir, 'a_folder'))
    with open(os.path.join(workdir, 'big.hrdf'), 'wb') as handle:
        handle.truncate(50 << 20)                   # 50 MiB
    for name, text in (('deep.hrdf', DEEP), ('wide.hrdf', WIDE)):
        with open(os.path.join(workdir, name), 'w') as handle:
            handle.write(text)
    with launched(LAUNCH, workdir) as running:
        yield running


def text(include):
    """HRDF text including ``include``, as a YAML string for ``ros2 service call``."""
    return f'"<robot version=\\"1.3.0\\"><include path=\\"{include}\\"/></robot>"'


def call(service, values):
    return service_response(run(service_call(service, values), timeout=60))


def test_every_attack_is_refused_alike_and_nothing_changes(guarded, workdir):
    before = call('get_forward_kinematics', POSITIONS)
    # all refused, so independent: a few at a time (a CLI call is mostly discovery)
    answers = service_responses(
        [service_call('load_hrdf', f"{{hrdf_path: '{path}'}}") for path in ATTACKS]
        + [service_call('validate_hrdf', f"{{hrdf_path: '{path}'}}") for path in ATTACKS],
        guarded.output)
    loads, checks = answers[:len(ATTACKS)], answers[len(ATTACKS):]
    for path, load, check in zip(ATTACKS, loads, checks):
        assert not load['success'] and load['message'] == f'{path}:0:0: error: {REFUSED}'
        assert [e['message'] for e in load['errors']] == [REFUSED]
        assert not check['valid'] and [e['message'] for e in check['errors']] == [REFUSED]
        assert check['errors'][0]['file'] == path
    status = call('get_model_status', '')
    assert (status['hrdf_file'], status['dof']) == (KIT, 6)
    after = call('get_forward_kinematics', POSITIONS)
    assert after['poses'][0]['pose'] == before['poses'][0]['pose']
    # the node logged what it reads from: its folder and the kits' folder (links' targets)
    [line] = re.findall(r'files read from: (.*)', guarded.output())
    assert set(line.split(', ')) == {os.path.realpath(workdir), os.path.realpath(KITS_DIR)}


def test_param_set_is_refused_alike(guarded):
    answers = [run(f'ros2 param set /hrdf_ros_node hrdf_file {path}', timeout=60).output
               for path in ('/etc/passwd', '/nonexistent/robot.hrdf')]
    assert [a.strip() for a in answers] == [
        f'Setting parameter failed: {path}:0:0: error: {REFUSED}'
        for path in ('/etc/passwd', '/nonexistent/robot.hrdf')]
    assert call('get_model_status', '')['hrdf_file'] == KIT


def test_text_includes_stay_inside(guarded, workdir):
    """HRDF text is read, but its includes only from the allowed folders."""
    answers = [call('validate_hrdf', f'{{hrdf_text: {text(name)}, base_directory: /etc}}')
               for name in ('passwd', 'no_such_file')]
    messages = [a['errors'][0]['message'] for a in answers]
    assert messages == [f'cannot include "{n}" (/etc/{n}): {REFUSED}'
                        for n in ('passwd', 'no_such_file')]
    inside = call('validate_hrdf', f'{{hrdf_text: {text(KIT)}, base_directory: {workdir}}}')
    assert inside['valid'], inside


def _called(probe, srv, name, request, names, sent, timeout=60.0):
    """Call a service from the probe while publishing joint_states at 50 Hz (stamps into
    ``sent``); the response (no answer within ``timeout`` s, a hang guard, fails)."""
    client = probe.create_client(srv, f'/hrdf_ros_node/{name}')
    assert client.wait_for_service(30.0)
    future = client.call_async(request)
    deadline, last = time.monotonic() + timeout, 0.0
    while not future.done():
        assert time.monotonic() < deadline, f'no answer from ~/{name} in {timeout} s'
        if time.monotonic() - last >= 0.02:
            last = time.monotonic()
            sent.append(probe.publish_positions(names, np.full(6, 0.001 * len(sent))))
        probe.spin_until(future.done, 0.005)
    probe.destroy_client(client)
    return future.result()


def test_hostile_input_is_refused_by_its_bound_while_tf_keeps_coming(guarded, probe):
    """50 MiB, 10 000 levels, a 10 MiB attribute: each refused by its bound (as a file and
    as text), the first error saying which: a file over 8 MiB is refused from its size
    with the one message of a file that may not be read (the files lie in an allowed
    folder: deep.hrdf beside them is read); and a legal but slow request (20 000 bodies)
    answered off the executor: meanwhile joint_states at 50 Hz keep coming back as /tf.
    How soon each is answered is measured by benchmarks/node_hostile.py."""
    from hrdf_ros_interfaces.srv import LoadHrdf, ValidateHrdf
    assert probe.wait_for_node()
    names = ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']
    nested, larger = 'nested deeper than 128 levels', 'file larger than 8388608 bytes'
    hostile = [(LoadHrdf, 'load_hrdf', LoadHrdf.Request(hrdf_path='big.hrdf'), REFUSED),
               (LoadHrdf, 'load_hrdf', LoadHrdf.Request(hrdf_path='deep.hrdf'), nested),
               (LoadHrdf, 'load_hrdf', LoadHrdf.Request(hrdf_path='wide.hrdf'), REFUSED),
               (LoadHrdf, 'load_hrdf', LoadHrdf.Request(hrdf_text=DEEP), nested),
               (LoadHrdf, 'load_hrdf', LoadHrdf.Request(hrdf_text=WIDE), larger),
               (ValidateHrdf, 'validate_hrdf', ValidateHrdf.Request(hrdf_path='big.hrdf'),
                REFUSED),
               (ValidateHrdf, 'validate_hrdf', ValidateHrdf.Request(hrdf_text=DEEP), nested),
               (ValidateHrdf, 'validate_hrdf', ValidateHrdf.Request(hrdf_text=WIDE), larger)]
    sent = []
    for srv, name, request, reason in hostile:
        response = _called(probe, srv, name, request, names, sent)
        what = (name, request.hrdf_path or len(request.hrdf_text))
        assert not (response.success if srv is LoadHrdf else response.valid), what
        assert response.errors and reason in response.errors[0].message, \
            (what, [e.message for e in response.errors])
        print(f'{what}: {response.errors[0].message}')
    bodies = '<rigid-body mass="1" output_trans="0.001 0 0"/>' * 20000
    before = len(sent)
    slow = _called(probe, ValidateHrdf, 'validate_hrdf', ValidateHrdf.Request(
        hrdf_text=f'<robot version="1.2.0">{bodies}</robot>'), names, sent)
    assert slow.valid
    probe.spin_until(lambda: all(probe.has_tf_stamped(s) for s in sent[-3:]), 30.0)
    during = sent[before:]
    got = sum(probe.has_tf_stamped(s) for s in during)
    print(f'20 000 bodies validated; /tf for {got} of {len(during)} joint_states sent '
          'meanwhile')
    # The request must have lasted long enough to show anything (at least ten
    # joint_states sent meanwhile), and nearly all of those must have come back as /tf.
    assert len(during) >= 10 and got >= 0.9 * len(during), (got, len(during))
    status = call('get_model_status', '')
    assert (status['hrdf_file'], status['dof']) == (KIT, 6)


def test_no_load_when_switched_off(ros2_daemon, workdir):
    launch = Background(LAUNCH_NO_LOAD, cwd=workdir)
    try:
        launch.wait_for(r'robot "[^"]*" from ')
        wait_for_node(LOCKED)
        by_path, by_text, check = [service_response(r) for r in run_all([
            service_call('load_hrdf', f'{{hrdf_path: {KIT}}}', LOCKED),
            service_call('load_hrdf', '{hrdf_text: "<robot version=\\"1.2.0\\"><actuator '
                         'type=\\"X5-1\\"/></robot>"}', LOCKED),
            service_call('validate_hrdf', f'{{hrdf_path: {KIT}}}', LOCKED)], timeout=60)]
        assert not by_path['success'] and 'allow_load: false' in by_path['message']
        assert not by_text['success'] and 'allow_load: false' in by_text['message']
        assert check['valid']
        answer = run(f'ros2 param set {LOCKED} hrdf_file {KIT}', timeout=60).output
        assert 'allow_load: false' in answer
        assert 'loading switched off' in launch.output()
    finally:
        launch.close()
