"""Sphinx extension of hrdf_ros's documentation: reference pages generated from the code.

(Directives follow.)
"""


def setup(app):
    """Register the directives; parallel reads and writes are safe (no shared state)."""
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
