#!/usr/bin/env bash
# Renders `spool report` of a sample queue to a PNG with headless Chromium (Debian's `chromium`
# package: `apt-get install -y chromium`), so the page can be looked at without a browser.
#
#   docs/render-report.sh [QUEUE_DIR] [OUTPUT_PNG]
#
# Without QUEUE_DIR, it makes a sample queue with `spool demo` (a manual clock, retries, a
# cancellation, a chain) in a scratch directory. The page is written next to the PNG as .html.
set -euo pipefail
cd "$(dirname "$0")/.."

output=${2:-docs/report.png}
page=${output%.png}.html
scratch=$(mktemp -d "${TMPDIR:-/tmp}/spool-render.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
    echo "error: no chromium on PATH (Debian: apt-get install -y chromium)" >&2
    exit 1
fi

swift build --product spool >/dev/null
spool=$(swift build --show-bin-path)/spool
queue=${1:-}
if [[ -z $queue ]]; then
    queue=$scratch/queue
    "$spool" demo "$queue" >/dev/null
fi
"$spool" report "$queue" --html "$page"
# --no-sandbox: the sandbox needs user namespaces, which containers (and root) often lack; the page
# has no script and loads nothing, and the profile is a scratch directory.
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$scratch/profile" \
    --screenshot="$output" --window-size=1200,1600 "file://$(realpath "$page")" 2>/dev/null
echo "wrote $output from $page"
