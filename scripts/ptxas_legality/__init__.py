"""ptxas legality snapshots: a shared harness and one driver per spelling family (scalar, packed, pack)."""
