#!/usr/bin/env bash
# Screenshot a self-contained HTML report with headless Chromium.
#
# Usage: scripts/screenshot-report.sh REPORT.html [OUT.png] [WIDTH] [HEIGHT]
#   OUT    defaults to REPORT with a .png extension
#   WIDTH  defaults to 1400, HEIGHT to 4000 (tall, so the whole page shows)
# Env: CHROMIUM=/path/to/binary overrides the browser lookup.
set -euo pipefail

usage() {
    echo "usage: $0 REPORT.html [OUT.png] [WIDTH] [HEIGHT]" >&2
    exit 1
}

[[ $# -ge 1 && $# -le 4 ]] || usage
report=$1
[[ -f $report ]] || { echo "error: report not found: $report" >&2; exit 1; }
out=${2:-${report%.*}.png}
width=${3:-1400}
height=${4:-4000}
[[ $width =~ ^[0-9]+$ && $height =~ ^[0-9]+$ ]] || { echo "error: WIDTH and HEIGHT must be integers" >&2; exit 1; }

# Find a browser binary.
browser=${CHROMIUM:-}
if [[ -z $browser ]]; then
    for cand in chromium chromium-browser google-chrome google-chrome-stable; do
        if command -v "$cand" >/dev/null 2>&1; then
            browser=$(command -v "$cand")
            break
        fi
    done
fi
if [[ -z $browser ]] || ! command -v "$browser" >/dev/null 2>&1; then
    echo "error: no chromium binary found (install it with: apt-get install chromium, or set CHROMIUM=/path/to/chromium)" >&2
    exit 2
fi

abs_report=$(realpath -- "$report")
out_dir=$(dirname -- "$out")
mkdir -p -- "$out_dir"
abs_out=$(realpath -- "$out_dir")/$(basename -- "$out")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/screenshot-report.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
log=$tmp/chromium.log

rm -f -- "$abs_out"

run_chromium() {
    # $1: headless flag
    timeout 60 "$browser" \
        "$1" \
        --no-sandbox \
        --disable-gpu \
        --disable-dev-shm-usage \
        --disable-background-networking \
        --disable-component-update \
        --disable-default-apps \
        --disable-extensions \
        --disable-sync \
        --no-first-run \
        --hide-scrollbars \
        --mute-audio \
        --force-device-scale-factor=1 \
        --user-data-dir="$tmp/profile" \
        --window-size="$width,$height" \
        --screenshot="$abs_out" \
        "file://$abs_report" \
        >>"$log" 2>&1
}

ok=0
for headless in --headless=new --headless; do
    echo "### $browser $headless" >>"$log"
    if run_chromium "$headless" && [[ -s $abs_out ]]; then
        ok=1
        break
    fi
    echo "### exit status/no output with $headless" >>"$log"
    rm -rf -- "$tmp/profile"
done

if [[ $ok -ne 1 || ! -s $abs_out ]]; then
    echo "error: chromium failed to write a screenshot to $abs_out; its output:" >&2
    cat -- "$log" >&2
    exit 1
fi

echo "screenshot: $out"
