import os
import re
from glob import glob

from setuptools import find_packages, setup

package_name = 'hrdf_ros'
# The version is package.xml's (the ROS manifest, what colcon and rosdep read); the
# installed metadata carries it to hrdf_ros.__version__ and `hrdf --version`.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'package.xml'),
          encoding='utf-8') as manifest:
    version = re.search(r'<version>\s*([^<\s]+)\s*</version>', manifest.read()).group(1)

setup(
    name=package_name,
    version=version,
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        # scripts/setup_env.sh links the same files into .venv for an editable install
        ('share/' + package_name + '/launch',
         sorted(glob('launch/*.launch.py') + glob('launch/*.launch.xml'))),
        ('share/' + package_name + '/config', sorted(f for f in glob('config/*')
                                                     if os.path.isfile(f))),
    ],
    # MoveIt config package templates (hrdf_ros/export/moveit/templates) ship as data.
    package_data={'hrdf_ros.export.moveit': ['templates/*.jinja', 'templates/*/*.jinja']},
    # python-fcl is core: the self-collision matrix decides what `hrdf moveit` (SRDF) and
    # `hrdf mjcf` (contact exclusions, the home keyframe) write by default, and the same
    # command must write the same files on every install (a fallback would quietly write
    # another model); wheels for Linux, macOS and Windows. Imported only when sampling.
    install_requires=['setuptools', 'numpy', 'defusedxml', 'PyYAML', 'Jinja2', 'platformdirs',
                      'tqdm', 'python-fcl'],
    # hrdf view and the ROS web view (hrdf_ros.view: viser's 3D page, yourdfpy, trimesh);
    # meshes: what scripts/fit_collision_shapes.py and the mesh tests use (never imported by
    # the package itself); fast: the compiled kinematics kernels
    # (hrdf_ros.kinematics.compiled, imported only when that path is chosen); motion and
    # plot: hrdf plan and MotionPlanner (hrdf_ros.motion); moveit: kept
    # for old install lines (python-fcl is core now).
    extras_require={'moveit': [],
                    'fast': ['numba>=0.59'],
                    # hrdf_ros.motion: collision checks (Pinocchio's FCL), planning (OMPL),
                    # time parameterization (TOPP-RA); imported on use
                    'motion': ['pin>=2.7', 'ompl>=2.0.1', 'toppra>=0.6.10'],
                    'plot': ['matplotlib'],
                    # hrdf design: the optimiser (Optuna's TPE) and the cluster engine
                    # (Dask's distributed); imported on use
                    'design': ['optuna>=4', 'distributed>=2024.1'],
                    'view': ['viser>=1.1.1', 'yourdfpy>=0.0.56', 'trimesh>=4'],
                    'meshes': ['trimesh[easy]']},
    zip_safe=True,
    maintainer='hrdf_ros maintainers',
    maintainer_email='maintainers@hrdf-ros.dev',
    description='HEBI HRDF robot descriptions in ROS 2: URDF, TF and kinematics from HRDF files.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'hrdf_ros_node = hrdf_ros.entry_points:hrdf_ros_node',
            'hrdf_ros_web_view = hrdf_ros.entry_points:hrdf_ros_web_view',
            'hrdf = hrdf_ros.entry_points:hrdf',
        ],
    },
)
