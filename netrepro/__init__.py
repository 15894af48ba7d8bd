"""netrepro: re-run 1990s TCP/UDP measurement papers on emulated links."""
