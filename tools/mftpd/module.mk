mftpd_DEPS := mftpcore
