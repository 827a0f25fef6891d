#!/usr/bin/env bash
# Screenshot a self-contained HTML report with headless Chromium.
#
# Usage: scripts/screenshot-report.sh REPORT.html [OUT.png] [WIDTH] [HEIGHT]
#   OUT    defaults to REPORT with a .png extension
#   WIDTH  defaults to 1400
#   HEIGHT defaults to the page's full height at WIDTH (measured first in the same browser: a copy of the
#          page with a one-line script that writes document height into the DOM, read back with --dump-dom;
#          the report is self-contained, so the copy renders as the original does), so the whole page shows
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
height=${4:-}
[[ $width =~ ^[0-9]+$ && ( -z $height || $height =~ ^[0-9]+$ ) ]] || {
    echo "error: WIDTH and HEIGHT must be integers" >&2; exit 1; }
MAX_HEIGHT=30000  # a taller page is cut there (and said so): Chromium's capture grows slow and huge past it

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
    # $1: headless flag, $2: window height, then what to do (--screenshot=... URL, or --dump-dom URL)
    local headless=$1 tall=$2
    shift 2
    timeout 60 "$browser" \
        "$headless" \
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
        --window-size="$width,$tall" \
        "$@"
}

measure() {
    # the page's full height at $width: a copy of the page writes it into its DOM once loaded
    local probe=$tmp/page.html dumped=$tmp/dom.html
    cp -- "$abs_report" "$probe"
    printf '%s\n' '<script>addEventListener("load", () => document.documentElement.setAttribute("data-page-height",' \
        'Math.ceil(Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0))));' \
        '</script>' >>"$probe"
    for headless in --headless=new --headless; do
        if run_chromium "$headless" 800 --dump-dom "file://$probe" >"$dumped" 2>>"$log"; then
            local found
            found=$(grep -o 'data-page-height="[0-9]*"' "$dumped" | head -n1 | tr -dc '0-9')
            if [[ -n $found && $found -gt 0 ]]; then
                echo "$found"
                return 0
            fi
        fi
        rm -rf -- "$tmp/profile"
    done
    return 1
}

if [[ -z $height ]]; then
    if ! height=$(measure); then
        echo "error: chromium could not measure the page's height; give HEIGHT. Its output:" >&2
        cat -- "$log" >&2
        exit 1
    fi
    if (( height > MAX_HEIGHT )); then
        echo "note: the page is $height px tall; the screenshot shows its top $MAX_HEIGHT px" >&2
        height=$MAX_HEIGHT
    fi
fi

ok=0
for headless in --headless=new --headless; do
    echo "### $browser $headless" >>"$log"
    if run_chromium "$headless" "$height" --screenshot="$abs_out" "file://$abs_report" >>"$log" 2>&1 \
        && [[ -s $abs_out ]]; then
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

echo "screenshot: $out (${width}x${height})"
