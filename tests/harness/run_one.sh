#!/usr/bin/env bash
# Runs one end-to-end scenario in a fresh temporary folder, so scenarios
# never see each other's files. Environment from ctest: FAILMAP (binary),
# FAILMAP_SOURCE_DIR.
set -euo pipefail
script=$(readlink -f "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/failmap-e2e.XXXXXX")
trap 'rm -rf "$work" "$work.bin"' EXIT
cd "$work"
export FAILMAP_DB="$work/failmap.db"
# Scenarios run Debian's python3, the interpreter the sandbox runs candidates
# with (scripts/install-deps.sh installs it). A version manager's shim earlier
# in PATH (pyenv's is a shell script) costs about 0.3 s per start, which the
# scenarios that start python3 once per run would pay hundreds of times.
if [ -x /usr/bin/python3 ]; then
  mkdir -p "$work.bin" && ln -s /usr/bin/python3 "$work.bin/python3"
  export PATH="$work.bin:$PATH"
fi
source "$(dirname "$0")/lib.sh"
source "$script"
echo "ok: $(basename "$script")"
