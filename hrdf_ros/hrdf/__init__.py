"""Reading HRDF: from a file (or text) to a :class:`~hrdf_ros.model.RobotModel`.

In: HRDF bytes (HEBI FORMAT.md 1.0.0-1.6.0), a file path or text with an optional base
directory. Out: the resolved :class:`~hrdf_ros.model.RobotModel`, or an
:class:`~hrdf_ros.hrdf.diagnostics.HrdfError` carrying every located diagnostic; or, for
tools, a :class:`~hrdf_ros.hrdf.validation.ValidationReport` that never raises.

Modules, in the order data passes through them:

* :mod:`.sources` bounded file reads and FORMAT.md's path rules; :mod:`.safe_xml` XML
  (defusedxml) into located nodes; :mod:`.diagnostics` located errors and warnings;
* :mod:`.grammar` HRDF floats, formulas, rotations and translations; :mod:`.versions`
  which element, attribute and type each HRDF version allows;
* :mod:`.catalogue` and :mod:`.inertia` HEBI's module data; :mod:`.compatibility` the
  mechanical interface rule;
* the reader, split by concern: :mod:`.context` (typed attribute access, diagnostics),
  :mod:`.elements` (one builder per element kind), :mod:`.includes` (``<include>``),
  :mod:`.checks` (tags and interfaces) and :mod:`.reader` (documents, chains, trees of
  ``<output>``; ``load``/``loads``);
* :mod:`.validation` reports for tools and services;
* :mod:`.leniency` the leniency policy: every warning code, and the spec deviations
  hebi-py accepts (warnings, or errors in strict mode).

This package imports :mod:`hrdf_ros.model` and nothing else of hrdf_ros; never rclpy.
"""
