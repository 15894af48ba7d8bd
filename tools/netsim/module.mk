# The simulator runs the real ttcp, pingx and echod, or mftp and mftpd, on two Tahoe stacks
# joined by linkemu's link model.
netsim_DEPS := tahoe linkemu ttcp pingx echod mftp mftpd mftpcore
