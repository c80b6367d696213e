"""The benchmark's peers on the URDF hrdf_ros generates: Pinocchio and pytorch_kinematics
(CPU, float64, one thread). Imported by benchmarks/kinematics_benchmark.py only; each
class raises ImportError when its library is not installed.
"""
from __future__ import annotations

import numpy as np


class PyTorchKinematics:
    """pytorch_kinematics (CPU, float64, one thread) on hrdf_ros's URDF.

    Its URDF reader converts joint origins through float32 (``_convert_transform``), so
    it agrees with the others to ~1e-7 m, not 1e-9."""

    def __init__(self, urdf: str, tree):
        import torch
        import pytorch_kinematics as pk
        torch.set_num_threads(1)
        self.torch = torch
        data = urdf.encode()
        self.chain = pk.build_chain_from_urdf(data).to(dtype=torch.float64)
        if self.chain.get_joint_parameter_names() != list(tree.dof_names):
            raise RuntimeError('pytorch_kinematics joint order differs from hrdf_ros')
        self.ee = pk.build_serial_chain_from_urdf(data, tree.end_effector_links[0]).to(
            dtype=torch.float64)
        self.ee_columns = [tree.dof_names.index(n)
                           for n in self.ee.get_joint_parameter_names()]
        self.output_chains = []
        for link in Pinocchio._output_links(tree):
            chain = pk.build_serial_chain_from_urdf(data, link).to(dtype=torch.float64)
            columns = [tree.dof_names.index(n) for n in chain.get_joint_parameter_names()]
            self.output_chains.append((chain, columns))

    def tensor(self, q: np.ndarray):
        return self.torch.from_numpy(np.atleast_2d(q))

    def end_effector(self, th):
        with self.torch.no_grad():
            return self.ee.forward_kinematics(th[:, self.ee_columns]).get_matrix()

    def outputs(self, th):
        with self.torch.no_grad():
            return self.chain.forward_kinematics_tensor(th)

    def end_effector_jacobian(self, th):
        with self.torch.no_grad():
            return self.ee.jacobian(th[:, self.ee_columns])

    def all_jacobians(self, th):
        with self.torch.no_grad():
            return [chain.jacobian(th[:, columns]) for chain, columns in self.output_chains]


class Pinocchio:
    """Pinocchio on hrdf_ros's URDF; continuous joints take (cos q, sin q)."""

    def __init__(self, urdf: str, model, tree):
        import pinocchio as pin
        self.pin = pin
        self.model = pin.buildModelFromXML(urdf)
        self.data = self.model.createData()
        self.frame = self.model.getFrameId(tree.end_effector_links[0], pin.BODY)
        self.output_frames = [self.model.getFrameId(name, pin.BODY)
                              for name in self._output_links(tree)]
        # joint k of hrdf_ros -> (q index, continuous?) in Pinocchio's configuration
        self.slots = []
        for name in tree.dof_names:
            joint = self.model.joints[self.model.getJointId(name)]
            self.slots.append((joint.idx_q, joint.nq == 2))

    @staticmethod
    def _output_links(tree):
        return [j.child for j in tree.joints if j.element >= 0]

    def configuration(self, q: np.ndarray) -> np.ndarray:
        out = np.zeros(self.model.nq)
        for value, (index, continuous) in zip(q, self.slots):
            if continuous:
                out[index], out[index + 1] = np.cos(value), np.sin(value)
            else:
                out[index] = value
        return out

    def end_effector(self, qp):
        self.pin.framesForwardKinematics(self.model, self.data, qp)
        return self.data.oMf[self.frame].homogeneous

    def outputs(self, qp):
        self.pin.framesForwardKinematics(self.model, self.data, qp)
        return [self.data.oMf[f].homogeneous for f in self.output_frames]

    def end_effector_jacobian(self, qp):
        return self.pin.computeFrameJacobian(self.model, self.data, qp, self.frame,
                                             self.pin.LOCAL_WORLD_ALIGNED)

    def all_jacobians(self, qp):
        self.pin.computeJointJacobians(self.model, self.data, qp)
        self.pin.updateFramePlacements(self.model, self.data)
        return [self.pin.getFrameJacobian(self.model, self.data, f,
                                          self.pin.LOCAL_WORLD_ALIGNED)
                for f in self.output_frames]

