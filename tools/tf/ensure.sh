#!/usr/bin/env bash
# Prints the Python interpreter of the pinned TensorFlow environment, creating
# it first when missing: a virtual environment in the cache folder, keyed by
# the lock file's hash, installed with `pip install --require-hashes` from
# requirements.lock. Reused while the lock is unchanged; concurrent callers
# wait for one install (flock). Progress goes to stderr, the path to stdout.
#
#   TFSCAN_CACHE   cache folder (default: $XDG_CACHE_HOME/tfscan or ~/.cache/tfscan)
#   TFSCAN_PYTHON3 the interpreter the environment is made from (default: python3;
#                  TensorFlow 2.15 supports Python 3.9 to 3.11)
#
# Exit codes: 0 ready, 1 the install failed (the reason on stderr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lock=$here/requirements.lock
cache=${TFSCAN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tfscan}
key=$(sha256sum "$lock" | cut -c1-16)
env=$cache/tf-$key
py3=${TFSCAN_PYTHON3:-python3}

if [ -f "$env/.ready" ]; then
  echo "$env/bin/python"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ ! -f "$env/.ready" ]; then
  ver=$("$py3" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || {
    echo "tools/tf/ensure.sh: $py3 not found: TensorFlow 2.15 needs Python 3.9 to 3.11" >&2; exit 1; }
  case $ver in 3.9|3.10|3.11) ;; *)
    echo "tools/tf/ensure.sh: $py3 is Python $ver: TensorFlow 2.15 needs Python 3.9 to 3.11 (set TFSCAN_PYTHON3)" >&2; exit 1;;
  esac
  tmp=$env.tmp.$$
  rm -rf "$tmp" "$env"
  echo "tools/tf/ensure.sh: installing the pinned TensorFlow into $env (once per lock)" >&2
  "$py3" -m venv "$tmp"
  if ! "$tmp/bin/python" -m pip install --quiet --no-input --disable-pip-version-check \
      --require-hashes --no-deps --only-binary=:all: -r "$lock" >&2; then
    rm -rf "$tmp"
    echo "tools/tf/ensure.sh: pip could not install $lock" >&2
    exit 1
  fi
  if ! "$tmp/bin/python" -c 'import tensorflow as tf; assert tf.__version__ == "2.15.0", tf.__version__' >/dev/null 2>&1; then
    rm -rf "$tmp"
    echo "tools/tf/ensure.sh: the installed TensorFlow does not import" >&2
    exit 1
  fi
  mv "$tmp" "$env"
  touch "$env/.ready"
fi
echo "$env/bin/python"
