"""Which kinematics path evaluates a :class:`~.kinematics.Kinematics`: numpy (always
there) or the compiled kernels of the optional extra ``hrdf_ros[fast]`` (numba,
:mod:`.compiled`).

In: the path asked for (``'auto'``, ``'numpy'`` or ``'numba'``; the argument of
``Kinematics``, else the process default) and the environment. Out: the path used,
``'numpy'`` or ``'numba'``, and for numba the kernel module, imported at the first
kinematics call that needs it (importing numba and loading cached kernels costs about
0.4 s, a cold compile several seconds: doc/explanation/kinematics.md).

Rules, first that applies:

1. ``HRDF_ROS_KINEMATICS=numpy|numba|auto`` in the environment forces a path;
2. the ``kinematics`` argument of ``Kinematics(model, kinematics=...)``;
3. the process default (:func:`set_default`): ``'auto'`` for the Python API; the node
   (parameter ``kinematics``) and the CLI (``--kinematics``) set ``'numpy'`` unless told,
   so that their start-up does not grow.

``'auto'`` is numba when it is installed, numpy otherwise. ``'numba'`` without numba
raises ImportError with the way to get it.
"""
from __future__ import annotations

import importlib.util
import os

#: The environment variable that forces a path.
KINEMATICS_VARIABLE = 'HRDF_ROS_KINEMATICS'
#: The values a path request takes.
CHOICES = ('auto', 'numpy', 'numba')
#: How to get the compiled path.
FAST_HINT = "pip install 'hrdf_ros[fast]' (numba) for the compiled kinematics kernels"

_default = 'auto'


def set_default(kinematics: str) -> None:
    """Set the process default path (``'auto'``, ``'numpy'`` or ``'numba'``).

    Raises:
        ValueError: another value.
    """
    global _default
    _default = check_choice(kinematics)


def default() -> str:
    """The process default path (:func:`set_default`)."""
    return _default


def check_choice(kinematics: str) -> str:
    """``kinematics`` if it is one of :data:`CHOICES`; ValueError otherwise."""
    if kinematics not in CHOICES:
        raise ValueError(f"kinematics must be one of {', '.join(CHOICES)}, got {kinematics!r}")
    return kinematics


def numba_installed() -> bool:
    """Whether numba can be imported (looked up, not imported)."""
    return importlib.util.find_spec('numba') is not None


def resolve(requested: str = None) -> str:
    """The path used for a request: ``'numpy'`` or ``'numba'`` (rules of the module).

    Raises:
        ValueError: an unknown value (argument, default or environment variable).
        ImportError: numba asked for and not installed.
    """
    forced = os.environ.get(KINEMATICS_VARIABLE, '').strip()
    if forced:
        if forced not in CHOICES:
            raise ValueError(f"{KINEMATICS_VARIABLE} must be one of {', '.join(CHOICES)}, "
                             f'got {forced!r}')
        choice = forced
    else:
        choice = check_choice(requested if requested is not None else _default)
    if choice == 'auto':
        return 'numba' if numba_installed() else 'numpy'
    if choice == 'numba' and not numba_installed():
        raise ImportError(f'numba is not installed: {FAST_HINT}')
    return choice


def describe(path: str) -> str:
    """One line for logs and ``hrdf info``: the path in use, and how to get the fast one
    when numba is missing."""
    if path == 'numba':
        return 'kinematics: numba (compiled kernels, hrdf_ros[fast])'
    if numba_installed():
        return 'kinematics: numpy (numba installed; --kinematics numba or ' \
               f'{KINEMATICS_VARIABLE}=numba to use it)'
    return f'kinematics: numpy (numba not installed: {FAST_HINT})'


def kernels():
    """The compiled kernel module (imports numba on first use)."""
    from . import compiled  # noqa: PLC0415 - numba only when the compiled path is used
    return compiled


#: :attr:`PathChoice._kernels` before the path is resolved.
PENDING = object()


class PathChoice:
    """The path of one object that evaluates kinematics, resolved at its first call.

    ``_kernels`` is :data:`PENDING` until :meth:`_resolve`, then the compiled kernel
    module (numba path) or None (numpy). Pickled objects resolve again where they are
    loaded.

    Raises ValueError (on construction) for an unknown ``kinematics``.
    """

    def __init__(self, kinematics: str = None):
        self._requested = None if kinematics is None else check_choice(kinematics)
        self._kernels = PENDING

    def __getstate__(self):
        state = self.__dict__.copy()
        state['_kernels'] = PENDING if self._kernels is not None else None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self._kernels is not None:
            self._kernels = PENDING

    @property
    def path(self) -> str:
        """The evaluation path, ``'numpy'`` or ``'numba'`` (resolved now if no call has
        yet; raises as :func:`resolve`)."""
        return 'numpy' if self._resolve() is None else 'numba'

    def _resolve(self):
        """The compiled kernels (numba path) or None (numpy), resolved once."""
        found = self._kernels
        if found is PENDING:
            found = self._kernels = kernels() if resolve(self._requested) == 'numba' else None
        return found
