#!/bin/sh
# sh scripts/ensure-services.sh [--optional]
# Installs the Debian packages of the real services the live-data tests start (test/support/services/,
# test/support/podman.ts): every package whose binary is missing, in one apt-get run (installing needs root, as CI
# containers have). Safe to call repeatedly. With --optional, a machine where it cannot install only hears what to
# run (the tests that need a service then fail with the same instruction). One line per package below.
set -u
optional="${1:-}"
missing=""
# need BINARY PACKAGE WHO-NEEDS-IT
need() {
  if [ ! -e "$1" ]; then
    missing="$missing $2"
    echo "ensure-services: $1 is missing: $3" >&2
  fi
}
need /usr/bin/qbittorrent-nox qbittorrent-nox 'the downloads tests (test/integrations/downloadDaemons.test.ts)'
need /usr/bin/transmission-daemon transmission-daemon 'the downloads tests (test/integrations/downloadDaemons.test.ts)'
need /usr/bin/deluged deluged 'the downloads tests (test/integrations/downloadDaemons.test.ts)'
need /usr/bin/deluge-web deluge-web 'the downloads tests (test/integrations/downloadDaemons.test.ts)'
need /usr/bin/aria2c aria2 'the downloads tests (test/integrations/downloadDaemons.test.ts)'
need /usr/bin/nzbget nzbget 'the downloads tests (test/integrations/downloadDaemons.test.ts)'
need /usr/bin/radicale radicale 'the calendar tests (test/widgets/live/calendar.test.ts)'
need /usr/bin/glances glances 'the system health tests (test/widgets/widget-data.test.ts)'
# glances only recommends bottle, and --no-install-recommends leaves it out: without it `glances -w` exits at once
need /usr/lib/python3/dist-packages/bottle.py python3-bottle "Glances' web server mode (glances -w)"
need /usr/bin/podman podman "the dockerContainers tests (Podman's Docker-compatible API)"
need /usr/bin/busybox busybox-static 'the dockerContainers tests (the one binary of the image they import)'
[ -z "$missing" ] && { echo "services present"; exit 0; }
hint="sudo apt-get install -y --no-install-recommends$missing (or, as root: sh scripts/ensure-services.sh)"
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-services: install them with: $hint" >&2
  [ "$optional" = "--optional" ] && exit 0
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # one word per package
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends $missing; }; then
  echo "ensure-services: could not install:$missing. Install them with: $hint" >&2
  [ "$optional" = "--optional" ] && exit 0
  exit 1
fi
