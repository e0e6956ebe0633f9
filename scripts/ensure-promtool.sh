#!/bin/sh
# Installs promtool (from Debian's `prometheus` package; its server is never started) for the lint of the /metrics
# exposition (test/ops/metricsAudit.test.ts, METRIC-9) when it is missing. .ci/run runs it; with --optional it only says
# what to run when it cannot install, and the lint test is skipped with the same instruction. PROMTOOL_PATH names
# another promtool binary.
exec sh "$(dirname "$0")/ensure-debian-package.sh" promtool "${PROMTOOL_PATH:-/usr/bin/promtool}" prometheus \
  'the metrics lint needs promtool' 'sudo apt-get install -y --no-install-recommends prometheus (or, as root: sh scripts/ensure-promtool.sh)' --no-install-recommends "${1:-}"
