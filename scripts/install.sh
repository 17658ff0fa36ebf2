#!/usr/bin/env bash
# Installs everything the app, the tests and the benchmarks need: the pinned Python packages
# and Debian's Chromium (for the browser tests; Playwright cannot download its own here).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --disable-pip-version-check -r requirements.txt
if [ ! -x /usr/bin/chromium ]; then
  as_root=""
  [ "$(id -u)" -eq 0 ] || as_root="sudo"
  $as_root apt-get update -qq
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation
fi
