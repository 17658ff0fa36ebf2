#!/usr/bin/env bash
# Installs everything the app, the tests and the benchmarks need: the pinned Python packages (the
# app's requirements.txt and the rest in requirements-dev.txt), Debian's Chromium (for the browser
# tests; Playwright cannot download its own here) and the fonts the sample corpora need (Latin,
# Devanagari, Tamil, CJK, emoji), so screenshots show what users see rather than empty boxes; then
# builds the built-in tokenizers' caches, which the app would otherwise build on its first start.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
# Mistral's tokenizer files and their reference library (see requirements-dev.txt for why without dependencies).
python -m pip install --quiet --disable-pip-version-check --no-deps mistral-common==1.13.1
debian_packages=(chromium fonts-liberation fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji)
missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  as_root=""
  [ "$(id -u)" -eq 0 ] || as_root="sudo"
  $as_root apt-get update -qq
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
python -m explorer.data.warm
