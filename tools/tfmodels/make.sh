#!/usr/bin/env bash
# Prints the folder of the model zoo (tools/tfmodels/zoo.py), building it
# first when missing: $TFSCAN_CACHE/zoo-<hash>[-full], keyed by the hash of
# the generators (zoo.py, train_steps.py, tools/tf/export_train_step.py) and
# of the TensorFlow lock, so a change to any builds a fresh zoo. Concurrent callers wait for one build (flock). Progress goes to
# stderr, the path to stdout.
#
#   make.sh          the small zoo (CI)
#   make.sh --full   the small zoo and the large keras.applications set
#
#   TFSCAN_CACHE   cache folder (default: $XDG_CACHE_HOME/tfscan or ~/.cache/tfscan)
#
# Exit codes: 0 ready, 1 the build failed (the reason on stderr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
full=
case ${1:-} in
  --full) full=-full ;;
  "") ;;
  *) echo "tools/tfmodels/make.sh: unknown argument $1 (want --full or nothing)" >&2; exit 1 ;;
esac
py=$("$root/tools/tf/ensure.sh")
cache=${TFSCAN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tfscan}
key=$(cat "$here/zoo.py" "$here/train_steps.py" "$root/tools/tf/export_train_step.py" "$root/tools/tf/requirements.lock" | sha256sum | cut -c1-16)
zoo=$cache/zoo-$key$full

if [ -f "$zoo/.ready" ]; then
  echo "$zoo"
  exit 0
fi
mkdir -p "$cache"
exec 9>"$cache/.zoo.lock"
flock 9
if [ ! -f "$zoo/.ready" ]; then
  tmp=$zoo.tmp.$$
  rm -rf "$tmp"
  echo "tools/tfmodels/make.sh: building the model zoo into $zoo" >&2
  if ! TF_CPP_MIN_LOG_LEVEL=2 CUDA_VISIBLE_DEVICES= TF_ENABLE_ONEDNN_OPTS=0 PYTHONHASHSEED=0 \
      "$py" "$here/zoo.py" "$tmp" ${full:+--full} 2>"$tmp.log" >&2; then
    grep -v '^WARNING\|^Instructions for updating\|^W0000\|^[0-9-]* [0-9:.]*: W ' "$tmp.log" | tail -40 >&2 || true
    echo "tools/tfmodels/make.sh: zoo.py failed (log: $tmp.log)" >&2
    rm -rf "$tmp"
    exit 1
  fi
  grep '^zoo: ' "$tmp.log" >&2 || true
  mv "$tmp.log" "$tmp/build.log"
  rm -rf "$zoo"
  mv "$tmp" "$zoo"
  touch "$zoo/.ready"
fi
echo "$zoo"
