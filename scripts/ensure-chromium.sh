#!/bin/sh
# Installs Debian's chromium for the browser tests (test/pages/page.test.ts, test/contract/docs.test.ts) when it is
# missing. `npm run setup:browser` runs it; `npm test` runs it first with --optional: without root it then only says what
# to run, and the browser tests fail with the same instruction. CHROMIUM_PATH names another browser binary.
exec sh "$(dirname "$0")/ensure-debian-package.sh" chromium "${CHROMIUM_PATH:-/usr/bin/chromium}" chromium \
  'the browser tests need headless Chromium' 'sudo apt-get install -y chromium (or, as root: npm run setup:browser)' '' "${1:-}"
