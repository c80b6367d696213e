"""Motion: collision checks, collision-free IK, planned and timed joint trajectories."""
