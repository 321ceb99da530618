#!/usr/bin/env bash
# Runs one end-to-end scenario in a fresh temporary folder, so scenarios
# never see each other's files. Environment from ctest: FAILMAP (binary),
# FAILMAP_SOURCE_DIR.
set -euo pipefail
script=$(readlink -f "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/failmap-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export FAILMAP_DB="$work/failmap.db"
source "$(dirname "$0")/lib.sh"
source "$script"
echo "ok: $(basename "$script")"
