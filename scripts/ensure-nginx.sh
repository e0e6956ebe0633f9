#!/bin/sh
# Installs Debian's nginx for the load-balancer test (test/deploy/loadBalancer.test.ts, rule LB-4) when it is missing.
# Non-interactive; installing needs root (CI containers are). Safe to call repeatedly. The test runs it itself; it
# only runs nginx as its own process on a temporary configuration, never the system service. NGINX_PATH names
# another nginx binary.
set -eu
nginx="${NGINX_PATH:-/usr/sbin/nginx}"
if [ -x "$nginx" ]; then
  "$nginx" -v 2>&1
  exit 0
fi
if [ "$(id -u)" != "0" ] || [ "$nginx" != /usr/sbin/nginx ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-nginx: $nginx is missing: the load-balancer test needs nginx. Install it with: sudo apt-get install -y nginx (or, as root: sh scripts/ensure-nginx.sh)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q nginx || { apt-get update -q && apt-get install -y -q nginx; }
"$nginx" -v 2>&1
