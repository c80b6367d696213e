"""Live steering of an arm: twists, joint jogs and pose targets in, the next joint
positions and velocities out, slowing before a collision, a singularity or a joint bound
(:mod:`.core`; MoveIt Servo's interface and status codes). Needs the motion extra (its
planning scene); imports no ROS."""
from .commands import JointJog, PoseTarget, Twist
from .core import ServoCore, ServoOutput
from .parameters import ServoParameters
from .status import StatusCode

__all__ = ['JointJog', 'PoseTarget', 'ServoCore', 'ServoOutput', 'ServoParameters',
           'StatusCode', 'Twist']
