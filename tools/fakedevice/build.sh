#!/usr/bin/env bash
# Builds the fake PluggableDevice of one pack (fakedevice.c) against the
# pinned TensorFlow wheel:
#
#   tools/fakedevice/build.sh PACK OUTDIR
#
# PACK is a built-in pack name or a pack or dump file (as `tfscan registry
# show` reads it). The plugin registers device type TFSCAN_<pack device type>
# with exactly the pack's kernels of its device type, and is written to
# OUTDIR/PACKNAME.so with OUTDIR/PACKNAME.json beside it ({"device_type",
# "source_type", "pack", "kernels"}): tools/tf/tfplace.py reads both.
#
#   TFSCAN     the tfscan binary (default: bin/tfscan, built when missing)
#   TFSCAN_PYTHON  the pinned TensorFlow's python (default: tools/tf/ensure.sh)
#   TFSCAN_TF_SYSCONFIG  "INCLUDE LIB" of the wheel (default: asked of TensorFlow,
#                  which takes a TensorFlow start)
#
# Exit codes: 0 built; 2 usage; 3 a bad or empty pack (tfscan's line on
# stderr); 1 the compiler or TensorFlow failed. Nothing is left in OUTDIR on
# failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ $# -ne 2 ]; then
  echo "usage: tools/fakedevice/build.sh PACK OUTDIR" >&2
  exit 2
fi
pack=$1 out=$2
tfscan=${TFSCAN:-$root/bin/tfscan}
if [ ! -x "$tfscan" ]; then
  (cd "$root" && CGO_ENABLED=0 go build -o bin/tfscan ./cmd/tfscan)
fi
py=${TFSCAN_PYTHON:-$("$root/tools/tf/ensure.sh")}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
"$tfscan" registry show "$pack" --format kernellist-pb >"$tmp/kernels.pb" || rc=$?
if [ $rc -ne 0 ]; then
  [ $rc -eq 2 ] || [ $rc -eq 3 ] || rc=3
  exit $rc
fi
"$tfscan" registry show "$pack" --format json >"$tmp/pack.json"
read -r name src kernels < <("$py" - "$tmp/pack.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
print(re.sub(r"[^A-Za-z0-9_.-]", "_", d["name"]), d["device_type"], d["kernels"])
PY
)
if ! [[ $src =~ ^[A-Z][A-Z_]*$ ]]; then
  echo "tools/fakedevice/build.sh: $pack: device type \"$src\" is not a TensorFlow device type name ([A-Z][A-Z_]*)" >&2
  exit 3
fi
dev=TFSCAN_$src
if [ -n "${TFSCAN_TF_SYSCONFIG:-}" ]; then
  read -r inc lib <<<"$TFSCAN_TF_SYSCONFIG"
else
  read -r inc lib < <(TF_CPP_MIN_LOG_LEVEL=3 "$py" -c 'import tensorflow as tf; print(tf.sysconfig.get_include(), tf.sysconfig.get_lib())' 2>/dev/null)
fi
if [ -z "${lib:-}" ]; then
  echo "tools/fakedevice/build.sh: $py cannot import tensorflow" >&2
  exit 1
fi
gcc -O1 -std=c11 -fPIC -shared -Wall -Werror \
  -DFAKE_DEVICE_TYPE="\"$dev\"" -DFAKE_SOURCE_TYPE="\"$src\"" -DFAKE_KERNELS="\"$tmp/kernels.pb\"" \
  -I"$inc" "$here/fakedevice.c" -o "$tmp/plugin.so" \
  -L"$lib" -l:libtensorflow_framework.so.2 -Wl,-rpath,"$lib"
mkdir -p "$out"
mv "$tmp/plugin.so" "$out/$name.so.tmp"
"$py" - "$tmp/kernels.pb" "$name" "$src" "$dev" >"$out/$name.json.tmp" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
# Count the KernelList's top-level KernelDefs (field 1, length-delimited).
n, i = 0, 0
while i < len(data):
    i += 1  # tag 0x0a
    ln, shift = 0, 0
    while True:
        b = data[i]; i += 1
        ln |= (b & 0x7F) << shift; shift += 7
        if not b & 0x80:
            break
    i += ln; n += 1
print(json.dumps({"pack": sys.argv[2], "source_type": sys.argv[3], "device_type": sys.argv[4], "kernels": n}, sort_keys=True))
PY
mv "$out/$name.so.tmp" "$out/$name.so"
mv "$out/$name.json.tmp" "$out/$name.json"
