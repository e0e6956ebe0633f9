#!/bin/sh
# Installs the Debian service daemons the live-data tests run for real (started by the test setup on free ports in
# temporary directories). One line per package; --optional only says what to run where nothing can be installed.
set -eu
dir="$(dirname "$0")"
sh "$dir/ensure-debian-package.sh" glances /usr/bin/glances glances 'the Glances live-data tests need glances' 'sudo apt-get install -y glances' '--no-install-recommends' "${1:-}"
