# The simulator runs the real ttcp on two Tahoe stacks joined by linkemu's link model.
netsim_DEPS := tahoe linkemu ttcp
