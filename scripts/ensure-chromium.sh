#!/bin/sh
# Installs Debian's chromium for the docs browser test (test/contract/docs.test.ts) when it is missing.
# Non-interactive; must run as root (CI containers do). Safe to call repeatedly.
set -eu
if [ -x /usr/bin/chromium ]; then
  echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null || echo unknown version)"
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "ensure-chromium: /usr/bin/chromium is missing and this is not root; run: sudo apt-get install -y chromium" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q chromium
/usr/bin/chromium --version
