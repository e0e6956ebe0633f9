#!/bin/sh
# Installs Debian's chromium for the browser tests (test/pages/page.test.ts, test/contract/docs.test.ts) when it is
# missing. Non-interactive; installing needs root (CI containers are). Safe to call repeatedly.
# `npm run setup:browser` runs it; `npm test` runs it first with --optional: without root it then only says what to
# run, and the browser tests fail with the same instruction. CHROMIUM_PATH names another browser binary.
set -eu
browser="${CHROMIUM_PATH:-/usr/bin/chromium}"
optional=no
[ "${1:-}" = "--optional" ] && optional=yes
if [ -x "$browser" ]; then
  echo "chromium present: $("$browser" --version 2>/dev/null || echo unknown version)"
  exit 0
fi
missing() {
  echo "ensure-chromium: $browser is missing: the browser tests need headless Chromium. Install it with: sudo apt-get install -y chromium (or, as root: npm run setup:browser)" >&2
  [ "$optional" = yes ] && exit 0
  exit 1
}
if [ "$(id -u)" != "0" ] || [ "$browser" != /usr/bin/chromium ] || ! command -v apt-get >/dev/null 2>&1; then missing; fi
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -q && apt-get install -y -q chromium; }; then missing; fi
/usr/bin/chromium --version
