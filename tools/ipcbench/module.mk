ipcbench_CFLAGS := -I/usr/include/tirpc
ipcbench_LDLIBS := -ltirpc
