"""The node's service callbacks, answered from the running robot and the latest
joint_states.

In: service requests (hrdf_ros_interfaces/srv), the node's running robot, its joint
state, its kinematics queries (:mod:`.services`, :mod:`.ik_service`), its loader and its
IK worker. Out: the filled responses. ``~/validate_hrdf`` and ``~/solve_ik`` run in
worker threads (:mod:`.background`), so joint_states and /tf go on meanwhile.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .model_services import model_status


class ServiceCallbacks:
    """The service callbacks of :class:`~.node.HrdfStatePublisher` (a part of that class:
    it uses the node's ``robot``, ``input``, ``queries``, ``ik_queries``,
    ``motion_queries``, ``loader``, ``_ik_worker``, ``_motion_worker``, ``_stamp``, clock
    and executor)."""

    def _hebi_positions(self) -> np.ndarray:
        """The latest joint_states (URDF joint values) as HEBI positions: x gear ratio
        (the degrees of freedom; the grippers' finger joints are not HRDF joints)."""
        return self.input.positions[:len(self.robot.gear_ratios)] * self.robot.gear_ratios

    def _latest(self) -> Optional[np.ndarray]:
        # Without degrees of freedom, the (empty) configuration is always known.
        known = self.input.received or not self.robot.joint_names
        return self._hebi_positions() if known else None

    def _on_model_status(self, request, response):
        model_status(self.robot, response)
        response.collision_objects = self.motion_queries.object_count
        return response

    async def _on_validate_hrdf(self, request, response):
        """Validate an HRDF file or text without touching the running model."""
        return await self.loader.validate(self.executor, request, response)

    def _on_forward_kinematics(self, request, response):
        stamp = self._stamp if request.use_latest_joint_states and self._stamp is not None \
            else self.get_clock().now().to_msg()
        return self.queries.forward_kinematics(request, response, self._latest(), stamp)

    def _on_jacobian(self, request, response):
        return self.queries.jacobian(request, response, self._latest())

    def _on_gravity_efforts(self, request, response):
        return self.queries.gravity_efforts(request, response, self._latest())

    async def _on_solve_ik(self, request, response):
        """Solve in the IK worker thread (the compiled kernel releases the GIL; numpy's
        steps share it), so joint_states and /tf go on; the robot and the latest joint
        state are those of the moment the request came. With ``avoid_collisions``, in
        the motion worker (the planner's scene is used by one thread)."""
        if request.avoid_collisions:
            return await self._motion_worker.run(self.executor, self.motion_queries.solve_ik,
                                                 request, response, self._latest())
        return await self._ik_worker.run(self.executor, self.ik_queries.solve, request,
                                         response, self._latest())

    async def _on_plan_motion(self, request, response):
        """Plan in the motion worker (one request after the other), so /tf goes on."""
        return await self._motion_worker.run(self.executor, self.motion_queries.plan_motion,
                                             request, response, self._latest())

    async def _on_plan_cartesian_path(self, request, response):
        return await self._motion_worker.run(
            self.executor, self.motion_queries.plan_cartesian_path, request, response,
            self._latest())

    async def _on_check_state_validity(self, request, response):
        return await self._motion_worker.run(
            self.executor, self.motion_queries.state_validity, request, response,
            self._latest())

    async def _on_set_collision_objects(self, request, response):
        """Replace the collision objects of the planning services, and of the servo."""
        response = await self._motion_worker.run(
            self.executor, self.motion_queries.set_collision_objects, request, response)
        if response.success and self.servo is not None:
            self.servo.objects_changed(self.motion_queries.objects)
        return response
