#!/usr/bin/env bash
# Checks tfscan's HTML report in a real headless Chromium (make html-check).
# Installs what is missing: Debian's chromium (apt-get, retried while dpkg is
# locked) and playwright-core (npm ci, pinned in package-lock.json). Renders
# four reports into out/html-check/ and checks each with check.mjs:
#   fixture.html  the writers' golden fixture: every element must be present
#   attention.html  the same listing only the nodes that need attention (--nodes attention)
#   big.html      100,000 nodes: the node table must stay paged and searchable
#   errors.html   models that could not be scanned: their table and badge
#   example.html  a real scan of the bundled models (elements as its data calls for)
# and leaves a screenshot of each next to it (docs/report.png is a copy of example.png).
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
SHARED=${SHARED:-../shared}
OUT=out/html-check
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

if [ ! -x "$CHROMIUM" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  for i in 1 2 3 4 5 6 7 8 9 10; do
    if $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium; then break; fi
    echo "html-check: apt-get failed (dpkg locked?), retrying in 20 s" >&2
    sleep 20
  done
  [ -x "$CHROMIUM" ] || { echo "html-check: $CHROMIUM is missing" >&2; exit 1; }
fi
if [ ! -d tools/html_check/node_modules/playwright-core ]; then
  (cd tools/html_check && npm ci --no-audit --no-fund)
fi

mkdir -p "$OUT"
TFSCAN_HTML_OUT="$PWD/$OUT" $GO test ./reports/html -run TestWriteHTMLExamples -count=1 >/dev/null
$GO build -o "$OUT/tfscan" ./cmd/tfscan
examples=(testdata/models)
if [ -d "$SHARED/corpus/tfjs/centernet" ]; then examples+=("$SHARED/corpus/tfjs/centernet"); fi
"$OUT/tfscan" scan "${examples[@]}" --target rocm,cuda \
  --format html="$OUT/example.html" --format json="$OUT/example.json"

check() { node tools/html_check/check.mjs "$@"; }
check "$OUT/fixture.html" --require changes,newfallbacks,chart,matrix,partition,islands,wishlist,parity,findings,nodes --screenshot "$OUT/fixture.png"
check "$OUT/attention.html" --require changes,newfallbacks,chart,matrix,partition,islands,wishlist,parity,findings,nodes
check "$OUT/big.html" --require chart,matrix,nodes --min-rows 100
check "$OUT/errors.html" --require chart,errors,nodes
check "$OUT/example.html" --json "$OUT/example.json" --screenshot "$OUT/example.png"
echo "html-check: ok (screenshots in $OUT)"
