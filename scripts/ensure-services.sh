#!/bin/sh
# Installs the Debian daemons the live-data tests run for real, one line per package, when missing (as root; safe to
# call repeatedly). `sh scripts/ensure-services.sh --optional` only says what to run where it cannot install.
set -eu
here="$(dirname "$0")"
sh "$here/ensure-debian-package.sh" radicale "${RADICALE_PATH:-/usr/bin/radicale}" radicale 'the calendar tests (test/widgets/live/calendar.test.ts) run a real Radicale' 'sudo apt-get install -y radicale (or, as root: sh scripts/ensure-services.sh)' '--no-install-recommends' "${1:-}"
