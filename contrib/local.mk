# contrib/: systemd units, example scripts.
EXTRA_DIST += contrib/systemd/dtraced.service contrib/systemd/dtraced.socket
