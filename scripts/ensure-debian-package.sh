#!/bin/sh
# sh scripts/ensure-debian-package.sh NAME BINARY PACKAGE NEED HINT APT_FLAGS [--optional]
# Installs Debian's PACKAGE when BINARY is missing (non-interactive, with APT_FLAGS such as --no-install-recommends;
# installing needs root, as CI containers have). Safe to call repeatedly. With --optional, a machine where it cannot install only hears
# what to run (the tests that need BINARY then fail or skip with the same instruction). Another BINARY than the
# package's own (an environment override) is never installed, only looked for. ensure-chromium.sh and
# ensure-promtool.sh call it.
set -eu
name="$1" binary="$2" package="$3" need="$4" hint="$5" flags="$6"
own="/usr/bin/$name"
optional=no
[ "${7:-}" = "--optional" ] && optional=yes
if [ -x "$binary" ]; then
  echo "$name present: $("$binary" --version 2>/dev/null | head -n 1 || echo unknown version)"
  exit 0
fi
missing() {
  echo "ensure-$name: $binary is missing: $need. Install it with: $hint" >&2
  [ "$optional" = yes ] && exit 0
  exit 1
}
if [ "$(id -u)" != "0" ] || [ "$binary" != "$own" ] || ! command -v apt-get >/dev/null 2>&1; then missing; fi
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -q && apt-get install -y -q $flags "$package"; }; then missing; fi
"$own" --version 2>/dev/null | head -n 1
