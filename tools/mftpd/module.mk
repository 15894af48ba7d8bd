# --stack tahoe runs the tool on the Tahoe stack (tahoe/if_packet.h).
mftpd_DEPS := mftpcore tahoe
