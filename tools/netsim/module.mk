# The simulator runs the real ttcp, pingx and echod, mftp and mftpd, or ipcbench's client and
# server, on two Tahoe stacks joined by linkemu's link model.
netsim_DEPS := tahoe linkemu ttcp pingx echod mftp mftpd mftpcore ipcbench
