#!/bin/sh
# Installs the Debian packages of the real services the live-data tests start (test/support/services/), each when its
# binary is missing, through ensure-debian-package.sh (root needed to install, as CI containers have). With
# --optional a machine where it cannot install only hears what to run. One line per package: add yours below.
set -u
here="$(dirname "$0")"
opt="${1:-}"
status=0
need() { sh "$here/ensure-debian-package.sh" "$1" "/usr/bin/$1" "$2" "$3" "sudo apt-get install -y --no-install-recommends $2 (or, as root: sh scripts/ensure-services.sh)" --no-install-recommends "$opt" || status=1; }
need qbittorrent-nox qbittorrent-nox 'the downloads tests need qBittorrent (test/integrations/downloadDaemons.test.ts)'
need transmission-daemon transmission-daemon 'the downloads tests need Transmission (test/integrations/downloadDaemons.test.ts)'
need deluged deluged 'the downloads tests need the Deluge daemon (test/integrations/downloadDaemons.test.ts)'
need deluge-web deluge-web 'the downloads tests need the Deluge web UI (test/integrations/downloadDaemons.test.ts)'
need aria2c aria2 'the downloads tests need aria2 (test/integrations/downloadDaemons.test.ts)'
need nzbget nzbget 'the downloads tests need NZBGet (test/integrations/downloadDaemons.test.ts)'
need radicale radicale 'the calendar tests need Radicale (test/widgets/live/calendar.test.ts)'
need glances glances 'the Glances live-data tests need glances (test/widgets/widget-data.test.ts)'
exit $status
