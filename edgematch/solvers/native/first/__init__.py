"""The native first-solution searches beyond the plain restarts: propagation and a dynamic order
(:mod:`.propagate`), and chains racing on several cores or a cluster (:mod:`.race`)."""
