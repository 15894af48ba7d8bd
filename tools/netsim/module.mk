# The simulator runs the real ttcp, or pingx and echod, on two Tahoe stacks joined by
# linkemu's link model.
netsim_DEPS := tahoe linkemu ttcp pingx echod
