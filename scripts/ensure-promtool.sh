#!/bin/sh
# Installs promtool (from Debian's `prometheus` package) for the lint of the /metrics exposition
# (test/ops/metricsAudit.test.ts, METRIC-9) when it is missing. Non-interactive; installing needs root (CI containers
# are). Safe to call repeatedly. .ci/run runs it; with --optional it only says what to run when it cannot install, and
# the lint test is skipped with the same instruction. PROMTOOL_PATH names another promtool binary.
set -eu
promtool="${PROMTOOL_PATH:-/usr/bin/promtool}"
optional=no
[ "${1:-}" = "--optional" ] && optional=yes
if [ -x "$promtool" ]; then
  echo "promtool present: $("$promtool" --version 2>&1 | head -n 1 || echo unknown version)"
  exit 0
fi
missing() {
  echo "ensure-promtool: $promtool is missing: the metrics lint needs promtool. Install it with: sudo apt-get install -y --no-install-recommends prometheus (or, as root: sh scripts/ensure-promtool.sh)" >&2
  [ "$optional" = yes ] && exit 0
  exit 1
}
if [ "$(id -u)" != "0" ] || [ "$promtool" != /usr/bin/promtool ] || ! command -v apt-get >/dev/null 2>&1; then missing; fi
export DEBIAN_FRONTEND=noninteractive
# Only promtool is used: the package's server is never started (no init system runs it in CI containers).
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends prometheus; }; then missing; fi
/usr/bin/promtool --version 2>&1 | head -n 1
