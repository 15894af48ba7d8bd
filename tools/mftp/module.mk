mftp_DEPS := mftpcore
