ipcbench_CFLAGS := -I/usr/include/tirpc
ipcbench_LDLIBS := -ltirpc
# --stack tahoe runs the tool on the Tahoe stack (tahoe/if_packet.h).
ipcbench_DEPS := tahoe
