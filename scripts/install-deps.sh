#!/usr/bin/env bash
# Installs the Debian packages failmap builds and tests with, if missing.
# Runs apt-get only as root; otherwise prints the command to run and fails.
set -euo pipefail
# libmstch-dev renders the site export's templates. chromium, python3-websocket (drives it over the
# DevTools protocol), tidy and fonts-dejavu-core are for tests/e2e/site_browser.sh, which loads every
# page of the site in headless Chromium (about 50 s to install on a fresh machine). bubblewrap and
# libseccomp-dev sandbox the candidates `failmap grade` runs (src/grade/sandbox.h). zsh parses the
# generated zsh completion in tests/e2e/completion_bash.sh. clang-format checks the layout of the C++
# files (scripts/check-format, run by .ci/run). libicu-dev normalises model names (NFC). parallel (GNU
# parallel) runs grade's shards at once as the README shows it (tests/e2e/grade_concurrent.sh,
# tests/e2e/grade_isolation_seed.sh). libcpp-httplib-dev is the HTTP server of `failmap serve`;
# nginx-light is the load balancer of tests/e2e/serve_replicas.sh; curl sends the HTTP requests of the README's tour and the serve scenarios.
packages=(cmake make g++ libsqlite3-dev sqlite3 libssl-dev openssl nlohmann-json3-dev libcli11-dev
          libvalijson-dev rapidjson-dev libjemalloc-dev libgtest-dev python3 libmstch-dev
          chromium python3-websocket tidy fonts-dejavu-core bubblewrap libseccomp-dev
          python3-pandas zsh clang-format libicu-dev parallel libcpp-httplib-dev nginx-light curl)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "failmap: missing Debian packages: ${missing[*]}" >&2
  echo "failmap: run as root: apt-get install -y ${missing[*]}" >&2
  exit 2
fi
echo "failmap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
