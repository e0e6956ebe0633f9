#!/bin/sh
# Installs the Debian packages of the real services the live-data tests start (test/integrations/clients/,
# test/widgets/data/), one line per package, each through ensure-debian-package.sh (installing needs root, as CI
# containers have; with --optional a machine that cannot install only hears what to run). Safe to call repeatedly.
set -eu
here="$(dirname "$0")"
opt="${1:-}"
# Podman's Docker-compatible API service (dockerContainers, DOCK-*): `podman system service unix://…`.
sh "$here/ensure-debian-package.sh" podman /usr/bin/podman podman 'the dockerContainers tests need podman' 'sudo apt-get install -y podman' '' "$opt"
# A static busybox: the one binary of the image the dockerContainers tests import (no registry is reachable).
sh "$here/ensure-debian-package.sh" busybox /usr/bin/busybox busybox-static 'the dockerContainers tests need a static busybox' 'sudo apt-get install -y busybox-static' '' "$opt"
