# --stack tahoe runs the tool on the Tahoe stack (tahoe/if_packet.h).
mftp_DEPS := mftpcore tahoe
