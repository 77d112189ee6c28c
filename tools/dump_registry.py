#!/usr/bin/env python3
"""Dump TensorFlow's live kernel registry for `tfscan registry import`.

Run it on the machine that has TensorFlow and the vendor's plugin installed
(the accelerator itself need not be present: kernels are registered when the
plugin library loads). It writes TensorFlow's KernelList, exactly as
tensorflow.python.framework.kernels.get_all_registered_kernels() returns it,
with every device type (CPU, the accelerator, and DEFAULT) included:

    python3 dump_registry.py -o xpu.pbtxt                  # text proto (default)
    python3 dump_registry.py --json -o xpu.json            # protojson with a header object
    python3 dump_registry.py --binary -o xpu.pb            # binary + xpu.pb.meta.json
    python3 dump_registry.py --load /path/libplugin.so     # a PluggableDevice not auto-loaded
    python3 dump_registry.py --import tensorflow_musa      # C++ device packages loaded by import

Then on any machine:

    tfscan registry import xpu.pbtxt --name itex-2.15 --vendor Intel -o itex.json
    tfscan scan model/ --registry xpu.pbtxt --target XPU

The header records the TensorFlow version, the host, the loaded plugins and
the date; `tfscan registry import` reads it (its flags override it).

Only the standard library and TensorFlow (which brings protobuf) are used.
"""

import argparse
import datetime
import importlib
import json
import os
import platform
import sys


def plugin_names():
    """Libraries in site-packages/tensorflow-plugins, which `import
    tensorflow` loads automatically (tensorflow/api_template.__init__.py)."""
    names = []
    for base in sys.path:
        d = os.path.join(base, "tensorflow-plugins")
        if os.path.isdir(d):
            names.extend(sorted(f for f in os.listdir(d) if f.endswith((".so", ".dll", ".dylib"))))
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", required=True, help="output file")
    fmt = ap.add_mutually_exclusive_group()
    fmt.add_argument("--binary", action="store_true", help="binary KernelList plus OUTPUT.meta.json")
    fmt.add_argument("--json", action="store_true", help="protojson KernelList with a tfscan_dump header")
    ap.add_argument("--load", action="append", default=[], metavar="LIB",
                    help="PluggableDevice library to load first (repeatable)")
    ap.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                    help="Python module that registers a device when imported (repeatable)")
    args = ap.parse_args()

    import tensorflow as tf
    from tensorflow.python.framework import kernels, load_library

    loaded = plugin_names()
    for lib in args.load:
        load_library.load_pluggable_device_library(lib)
        loaded.append(os.path.basename(lib))
    for mod in args.imports:
        importlib.import_module(mod)
        loaded.append(mod)

    kernel_list = kernels.get_all_registered_kernels()
    header = {
        "tf_version": tf.__version__,
        "host": "%s (%s %s, Python %s)" % (platform.node(), platform.system(), platform.machine(),
                                           platform.python_version()),
        "plugins": loaded,
        "date": datetime.date.today().isoformat(),
    }

    if args.binary:
        with open(args.output, "wb") as f:
            f.write(kernel_list.SerializeToString())
        with open(args.output + ".meta.json", "w") as f:
            json.dump(header, f, indent=2)
    elif args.json:
        from google.protobuf import json_format
        body = json.loads(json_format.MessageToJson(kernel_list, preserving_proto_field_name=True))
        body = dict([("tfscan_dump", header)] + list(body.items()))
        with open(args.output, "w") as f:
            json.dump(body, f, indent=1)
    else:
        from google.protobuf import text_format
        with open(args.output, "w") as f:
            f.write("# tfscan live dump (tools/dump_registry.py)\n")
            f.write("# tf_version: %s\n" % header["tf_version"])
            f.write("# host: %s\n" % header["host"])
            f.write("# plugins: %s\n" % (", ".join(loaded) or "none"))
            f.write("# date: %s\n" % header["date"])
            f.write(text_format.MessageToString(kernel_list))

    types = sorted({k.device_type for k in kernel_list.kernel})
    print("wrote %s: %d kernels; device types: %s" % (args.output, len(kernel_list.kernel), ", ".join(types)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
