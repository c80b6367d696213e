"""``hrdf_ros_web_view``: what RViz's RobotModel and TF displays show, in the browser.

The robot of ``robot_description`` (any URDF; drawn by :mod:`hrdf_ros.view`), each link
placed where ``/tf`` and ``/tf_static`` put it, on a page served by viser; no HRDF and no
kinematics of its own: like RViz, it shows what the ROS graph says. With ``gui``, the
page also has one slider per movable URDF joint and publishes ``joint_states`` from
them, as joint_state_publisher_gui does (for ``view.launch.py`` where that package is
not installed).

Parameters (read at start): :data:`WEB_VIEW_PARAMETERS`, from which the node declares
them and which the documentation's node reference renders.

Topics (relative names follow the node's namespace, as RViz's and
robot_state_publisher's): robot_description (std_msgs/String, transient local,
reliable), /tf and /tf_static (tf2_msgs/TFMessage; QoS of tf2_ros's listener), and with
``gui`` joint_states (sensor_msgs/JointState: every movable joint, mimic joints following
theirs, stamped with the time of publishing).

The page: the robot, a "Show" folder (robot, TF frames as axes), a "Link poses (TF)"
folder (each link's pose in the fixed frame as drawn: xyz m, rpy rad, 9 decimals), the
sliders with ``gui``, what is missing (no robot_description yet, links without a
transform, a URDF that cannot be drawn: the last good robot stays), and with
``planning_node`` a "Plan a motion" folder: the links in collision drawn, a handle on the
end effector and "plan and go" (:mod:`.web_motion`, through that node's services), and a
"Jog" folder: twists and joint jogs from buttons and keys to that node's servo, its status
shown (:mod:`.web_jog`).

Exit codes: 0 after SIGINT/SIGTERM (further signals ignored while stopping), 1 when it
cannot start (the view extra missing, the address taken by something else).
"""
from __future__ import annotations

import os
import sys
import threading
from typing import Dict, List, Optional

import numpy as np
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from ..cache_dir import cache_dir
from ..numbers import table_number
from ..kinematics import backend
from ..hrdf.access import FileAccess
from ..kinematics.rotations import rotation_to_quaternion, rotation_to_rpy
from .parameter_table import ParameterSpec
from .parameters import StartupError, refused_values
from .qos import LATCHED_QOS
from .tf_buffer import TfBuffer

#: tf2_ros TransformListener's QoS: /tf reliable volatile depth 100; /tf_static reliable
#: transient local.
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
TF_STATIC_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                           durability=DurabilityPolicy.TRANSIENT_LOCAL)
def mesh_directories() -> List[str]:
    """The default ``allowed_directories``: ``<prefix>/share`` of every ament prefix,
    hrdf_ros's mesh cache and ``HRDF_ROS_MESH_DIR``."""
    prefixes = [p for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]
    return ([os.path.join(p, 'share') for p in prefixes] + [cache_dir()]
            + [os.environ.get('HRDF_ROS_MESH_DIR', '')])


#: Hz at which the drawn poses follow TF.
REDRAW_HZ = 30.0
#: Every parameter of ``hrdf_ros_web_view``, in the order the reference lists them.
WEB_VIEW_PARAMETERS = (
    ParameterSpec('frame_prefix', '', "As robot_state_publisher's: URDF link `L` is TF "
                  'frame `frame_prefix + L`.', 'start'),
    ParameterSpec('fixed_frame', '', "The frame the scene is drawn in (RViz's fixed frame); "
                  "empty: `frame_prefix` + the URDF's root link.", 'start'),
    ParameterSpec('allowed_directories', [''], 'Folders mesh files are read from (a '
                  '`robot_description` comes from the ROS graph, which anyone on it can '
                  'publish): a mesh elsewhere is not drawn, with the same note whether or '
                  'not it exists. Default: the `share` folder of every prefix on '
                  '`AMENT_PREFIX_PATH` (every `package://` mesh), the mesh cache of `hrdf '
                  'meshes fetch` and `HRDF_ROS_MESH_DIR`.', 'start',
                  shown_default='share folders, the mesh cache, HRDF_ROS_MESH_DIR'),
    ParameterSpec('host', '127.0.0.1', 'Address the page is served on (`127.0.0.1`: this '
                  'machine only).', 'start'),
    ParameterSpec('port', 8080, 'Port of the page (`0`: any free port; a taken port: the '
                  'next free one); the URL is logged and printed first on stdout.', 'start',
                  value_range=(0, 65535)),
    ParameterSpec('gui', False, 'Sliders publishing `joint_states`.', 'start'),
    ParameterSpec('rate', 10.0, "As joint_state_publisher's: Hz of those `joint_states`.",
                  'start'),
    ParameterSpec('planning_node', 'hrdf_ros_node', 'The hrdf_ros_node whose services the '
                  '"Plan a motion" folder uses (`hrdf_ros.ros.web_motion`): links in '
                  'collision drawn (`~/check_state_validity`), and "plan and go" to a handle '
                  '(with `gui`: `~/plan_motion`, played on the sliders; without: `~/move_to`, '
                  'run on the arm\'s controller), and the "Jog" folder\'s twists and joint '
                  'jogs to its servo (`servo:=true`); resolved in the node\'s namespace. '
                  'Empty: no such folders.', 'start'),
)
_WEB_VIEW_SPECS = {spec.name: spec for spec in WEB_VIEW_PARAMETERS}


class WebView(Node):
    """The web view node (see the module docstring).

    Raises:
        OSError: the page's address cannot be bound.
        StartupError: a parameter of the wrong type or out of its range.
    """

    def __init__(self, **kwargs):
        super().__init__('hrdf_ros_web_view', **kwargs)
        from ..view.joint_sliders import JointSliders
        from ..view.server import page_url, start_server
        self._JointSliders = JointSliders
        def parameter(name):
            spec = _WEB_VIEW_SPECS[name]
            return self.declare_parameter(name, spec.default, spec.descriptor()).value

        with refused_values():
            self.frame_prefix = parameter('frame_prefix')
            self.fixed_frame_parameter = parameter('fixed_frame')
            host = parameter('host')
            port = parameter('port')
            self.gui = parameter('gui')
            rate = parameter('rate')
            directories = [d for d in parameter('allowed_directories') or [] if d]
            planning_node = parameter('planning_node')
        self.access = FileAccess.of(directories or mesh_directories())
        self._lock = threading.RLock()
        self.server = start_server(host, port, label=f'ROS: {self.get_fully_qualified_name()}')
        self.url = page_url(self.server)
        self.scene = None
        self.sliders = None
        self._generation = 0
        self._values: Dict[str, float] = {}
        self._framed = False
        self.buffer = TfBuffer()
        self._dirty = False
        gui = self.server.gui
        self._status = gui.add_markdown('waiting for robot_description', order=0.0)
        with gui.add_folder('Show', order=1.5):
            self._show_robot = gui.add_checkbox('robot', initial_value=True)
            self._show_frames = gui.add_checkbox('TF frames', initial_value=False)
        self._show_robot.on_update(lambda _e: self._set_robot_visible())
        self._show_frames.on_update(lambda _e: self._mark_dirty())
        with gui.add_folder('Link poses (TF)', order=3.0, expand_by_default=False):
            self._poses_text = gui.add_markdown('')
        self._frames_handle = None
        self.create_subscription(String, 'robot_description', self._on_description,
                                 LATCHED_QOS)
        self.create_subscription(TFMessage, '/tf', self._on_tf, TF_QOS)
        self.create_subscription(TFMessage, '/tf_static', self._on_tf, TF_STATIC_QOS)
        self.create_timer(1.0 / REDRAW_HZ, self._redraw)
        self._joint_states = None
        if self.gui:
            self._joint_states = self.create_publisher(JointState, 'joint_states', 10)
            self.create_timer(1.0 / max(rate, 1e-3), self._publish_joint_states)
        self.motion = self.jog = None
        if planning_node:
            from .web_jog import WebJog
            from .web_motion import WebMotion
            self.motion = WebMotion(self, planning_node)
            self.jog = WebJog(self, planning_node, self.motion)
        self.get_logger().info(f'web view at {self.url} (robot_description, TF'
                               + (', sliders -> joint_states)' if self.gui else ')'))

    # -- robot_description ------------------------------------------------------------

    def _on_description(self, msg: String) -> None:
        from ..view.robot_scene import RobotScene, UrdfError
        with self._lock:
            self._generation += 1
            try:
                scene = RobotScene(self.server.scene, msg.data,
                                   root=f'/robot{self._generation}', access=self.access)
            except UrdfError as exc:
                self.get_logger().error(f'robot_description not drawn: {exc}')
                self._status.content = (f'**robot_description not drawn** (the last good '
                                        f'robot stays)\n```\n{exc}\n```')
                return
            old, self.scene = self.scene, scene
            scene.visible = self._show_robot.value
            if old is not None:
                old.remove()
            for note in scene.notes:
                self.get_logger().warning(note)
            if self.gui:
                self._make_sliders(scene)
            if self.jog is not None:
                self.jog.set_joints([joint.name for joint in scene.joints])
            self._dirty = True
            self._framed = False
        self.get_logger().info(f'robot_description: {len(scene.links)} links, '
                               f'{len(scene.joints)} movable joints')

    def _make_sliders(self, scene) -> None:
        kept = self.sliders.values() if self.sliders is not None else {}
        if self.sliders is not None:
            self.sliders.remove()
        generation = self._generation
        self.sliders = self._JointSliders(
            self.server.gui, scene.joints, values=kept, order=1.0,
            on_change=lambda values: self._on_sliders(values, generation))
        self._values = self.sliders.values()

    def slider_values(self) -> Dict[str, float]:
        """The sliders' URDF joint values by name (empty without ``gui``)."""
        with self._lock:
            return dict(self._values)

    def set_slider_values(self, values: Dict[str, float]) -> None:
        """Move the named sliders (any thread); they publish at the next ``rate`` tick."""
        with self._lock:
            if self.sliders is not None:
                self.sliders.set_values(values)

    def _on_sliders(self, values: Dict[str, float], generation: int) -> None:
        with self._lock:
            if generation == self._generation:
                self._values = dict(values)

    def _publish_joint_states(self) -> None:
        with self._lock:
            if self.scene is None or self.sliders is None:
                return
            names, positions = list(self._values), [self._values[n] for n in self._values]
            for joint in self.scene.urdf.robot.joints:   # mimic joints follow theirs
                mimic = joint.mimic
                if mimic is not None and mimic.joint in self._values:
                    names.append(joint.name)
                    positions.append(mimic.multiplier * self._values[mimic.joint]
                                     + mimic.offset)
        msg = JointState(name=names, position=[float(p) for p in positions])
        msg.header.stamp = self.get_clock().now().to_msg()
        self._joint_states.publish(msg)

    # -- TF -------------------------------------------------------------------------------

    def _on_tf(self, msg: TFMessage) -> None:
        self.buffer.add_message(msg)
        self._dirty = True

    def _mark_dirty(self) -> None:
        self._dirty = True

    def fixed_frame(self) -> str:
        """The frame the scene is drawn in."""
        if self.fixed_frame_parameter or self.scene is None:
            return self.fixed_frame_parameter
        return self.frame_prefix + self.scene.root_link

    def _redraw(self) -> None:
        with self._lock:
            if not self._dirty or self.scene is None:
                return
            self._dirty = False
            fixed = self.fixed_frame()
            poses, missing = {}, []
            for link in self.scene.links:
                try:
                    poses[link] = self.buffer.lookup(fixed, self.frame_prefix + link)
                except KeyError:
                    missing.append(link)
            with self.server.atomic():
                self.scene.set_link_poses(poses)
                self._draw_tf_frames(fixed)
            self._poses_text.content = '```\n' + '\n'.join(
                f'{link}\n  xyz {" ".join(table_number(v) for v in pose[:3, 3])}\n'
                f'  rpy {" ".join(table_number(v) for v in rotation_to_rpy(pose[:3, :3]))}'
                for link, pose in sorted(self.scene.poses.items())) + '\n```'
            status = (f'robot_description: {len(self.scene.links)} links; fixed frame '
                      f'{fixed}')
            if missing:
                status += (f'\n\n**No transform to {fixed} yet** for: '
                           + ', '.join(self.frame_prefix + m for m in missing))
            self._status.content = status
            if self.motion is not None:
                self.motion.tf_moved()
            if not missing and not self._framed:
                from ..view.server import frame_camera
                frame_camera(self.server, self.scene.bounds())
                self._framed = True

    def _draw_tf_frames(self, fixed: str) -> None:
        frames = []
        if self._show_frames.value:
            for frame in self.buffer.frames():
                try:
                    frames.append(self.buffer.lookup(fixed, frame))
                except KeyError:
                    continue
        if not frames:
            if self._frames_handle is not None:
                self._frames_handle.remove()
                self._frames_handle = None
            return
        frames = np.array(frames)
        quaternions = rotation_to_quaternion(frames[:, :3, :3])
        self._frames_handle = self.server.scene.add_batched_axes(
            '/tf_frames', batched_wxyzs=np.concatenate([quaternions[:, 3:],
                                                        quaternions[:, :3]], axis=1),
            batched_positions=frames[:, :3, 3], axes_length=0.05, axes_radius=0.0025)

    def _set_robot_visible(self) -> None:
        with self._lock:
            if self.scene is not None:
                self.scene.visible = self._show_robot.value

    def destroy_node(self):
        """Stop the motion folder's threads first (they use the node's clients)."""
        for folder in (getattr(self, 'motion', None), getattr(self, 'jog', None)):
            if folder is not None:
                folder.shut_down()
        return super().destroy_node()

    def shut_down(self) -> None:
        """Stop the page's server (its threads end on their own)."""
        from ..view.server import stop_server
        for folder in (self.motion, self.jog):
            if folder is not None:
                folder.shut_down()
        stop_server(self.server)


def main(argv: Optional[List[str]] = None) -> int:
    """Console entry point ``hrdf_ros_web_view``; returns the exit code (see the module
    docstring). Signals only set a flag (as :func:`hrdf_ros.ros.node.main`)."""
    argv = sys.argv if argv is None else argv
    backend.set_default('numpy')        # the page's FK readout: no numba start-up cost
    from ..stop_signals import stop_on_signals
    from ..view import INSTALL_HINT, exit_cleanly, missing_packages
    stop = stop_on_signals()
    if missing_packages():
        print(f'hrdf_ros_web_view: needs {INSTALL_HINT}', file=sys.stderr)
        return 1
    rclpy.init(args=argv, signal_handler_options=SignalHandlerOptions.NO)
    node = None
    code = 0
    try:
        node = WebView()
        print(node.url, flush=True)
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    except OSError as exc:
        print(f'hrdf_ros_web_view: cannot serve the page ({exc.strerror or exc})',
              file=sys.stderr)
        code = 1
    except StartupError as exc:
        print(f'hrdf_ros_web_view: {exc}', file=sys.stderr)
        code = 1
    finally:
        if node is not None:
            node.shut_down()
            node.destroy_node()
        rclpy.try_shutdown()
    return exit_cleanly(code)


if __name__ == '__main__':
    sys.exit(main())
