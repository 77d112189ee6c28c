#!/usr/bin/env python3
"""Dump TensorFlow's live kernel registry for `tfscan registry import`.

Run it on the machine that has TensorFlow and the vendor's plugin or build
installed (the accelerator itself need not be present: kernels are
registered when the library loads). Nothing in it is vendor-specific: it
works unchanged with Cambricon's, Kunlunxin's, Biren's or any other
TensorFlow build or PluggableDevice. It writes TensorFlow's KernelList,
exactly as TF_GetAllRegisteredKernels returns it, with every device type
(CPU, the accelerator, DEFAULT) included, and the registered OpDefs
(TF_GetAllOpList) so that a vendor's own ops are known too:

    python3 dump_registry.py -o mlu.pbtxt                  # text proto (default)
    python3 dump_registry.py --json -o mlu.json            # protojson with a header object
    python3 dump_registry.py --binary -o mlu.pb            # binary + mlu.pb.meta.json + mlu.pb.ops.pb
    python3 dump_registry.py --load /path/libplugin.so     # a PluggableDevice not auto-loaded
    python3 dump_registry.py --import tensorflow_musa      # C++ device packages loaded by import

Then on any machine:

    tfscan registry import mlu.pbtxt --name cambricon-mlu --vendor Cambricon -o mlu.json
    tfscan scan model/ --registry mlu.json --target cambricon-mlu

The header records the TensorFlow version, the device types the install
registers (from its kernels and the physical devices TensorFlow finds), the
Python distributions that provide TensorFlow and each loaded plugin with
their versions and the wheels they came from, the host, the date, and how
many kernels and OpDefs follow; `tfscan registry import` reads it (its flags
override it) and refuses a dump that holds fewer than the header says (a
truncated file).

Exit codes: 0 the dump is written; 2 a usage error; 3 TensorFlow, a --load
library or an --import module cannot be loaded (a missing or broken
install), one line on stderr says which and why; 1 the output cannot be
written.

Only the standard library and TensorFlow (which brings protobuf) are used;
Python 3.6 and TensorFlow 1.15 or later.
"""

import argparse
import datetime
import importlib
import json
import os
import platform
import sys

OP_LIST_MARKER = "# tfscan: op_list"


def plugin_libraries():
    """Libraries in site-packages/tensorflow-plugins, which `import
    tensorflow` loads automatically (tensorflow/api_template.__init__.py)."""
    found = []
    for base in sys.path:
        d = os.path.join(base, "tensorflow-plugins")
        if os.path.isdir(d):
            found.extend(os.path.join(d, f) for f in sorted(os.listdir(d))
                         if f.endswith((".so", ".dll", ".dylib")))
    return found


def distributions():
    """(name, version, files, WHEEL metadata text) of the installed
    distributions; empty when importlib.metadata (Python 3.8+) is missing."""
    try:
        from importlib import metadata
    except ImportError:
        return []
    out = []
    for dist in metadata.distributions():
        try:
            name = dist.metadata["Name"]
            files = [str(f) for f in (dist.files or [])]
            wheel = dist.read_text("WHEEL") or ""
        except Exception:  # a broken install must not stop the dump
            continue
        if name:
            out.append((name, dist.version, files, wheel))
    return out


def owning_packages(dists, paths, modules):
    """name==version of the distributions that install one of paths (files
    under site-packages) or the top-level modules."""
    owned = set()
    for name, version, files, _ in dists:
        for f in files:
            top = f.split("/")[0].split("\\")[0]
            base = os.path.basename(f)
            if top in modules or top.replace(".py", "") in modules or \
                    any(os.path.basename(p) == base and "tensorflow-plugins" in f for p in paths):
                owned.add("%s==%s" % (name, version))
                break
    return sorted(owned)


def wheel_names(dists, owned):
    """The wheel file names of the distributions in owned (name==version),
    rebuilt from each one's WHEEL tags (PEP 427: the tags of one wheel are
    compressed into dot-joined sets), e.g.
    tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl."""
    out = []
    for name, version, _, wheel in dists:
        if "%s==%s" % (name, version) not in owned:
            continue
        parts = [[], [], []]
        for line in wheel.splitlines():
            if line.startswith("Tag:"):
                for i, t in enumerate(line.split(":", 1)[1].strip().split("-")[:3]):
                    if t not in parts[i]:
                        parts[i].append(t)
        if all(parts):
            out.append("%s-%s-%s.whl" % (name.replace("-", "_"), version, "-".join(".".join(p) for p in parts)))
    return sorted(out)


def fail(what, err):
    """One line on stderr naming what could not be loaded, and exit 3."""
    msg = [l.strip() for l in str(err).splitlines() if l.strip()]
    print("dump_registry.py: %s: %s: %s" % (what, type(err).__name__, msg[0] if msg else "no message"),
          file=sys.stderr)
    sys.exit(3)


def all_kernels():
    """TensorFlow's KernelList, through whichever binding this version has."""
    try:
        from tensorflow.python.framework import kernels
        return kernels.get_all_registered_kernels()
    except ImportError:
        pass
    from tensorflow.core.framework import kernel_def_pb2
    from tensorflow.python import pywrap_tensorflow as c_api  # TensorFlow 1.x
    return read_buffer(c_api, c_api.TF_GetAllRegisteredKernels(), kernel_def_pb2.KernelList())


def read_buffer(c_api, buf, message):
    """Parses a TF_Buffer the C API returned into message, and frees it."""
    try:
        message.ParseFromString(c_api.TF_GetBuffer(buf))
        return message
    finally:
        c_api.TF_DeleteBuffer(buf)


def all_ops():
    """The registered OpDefs (TF_GetAllOpList), or None when this
    TensorFlow does not expose them."""
    from tensorflow.core.framework import op_def_pb2
    for mod in ("tensorflow.python.client.pywrap_tf_session", "tensorflow.python.pywrap_tensorflow"):
        try:
            c_api = importlib.import_module(mod)
            buf = c_api.TF_GetAllOpList()
        except (ImportError, AttributeError):
            continue
        return read_buffer(c_api, buf, op_def_pb2.OpList())
    return None


def physical_device_types(tf):
    """Device types of the physical devices TensorFlow finds (needs the
    hardware; a PluggableDevice or a fork's device shows up here)."""
    for get in (lambda: tf.config.list_physical_devices(),
                lambda: tf.config.experimental.list_physical_devices()):
        try:
            return sorted({d.device_type for d in get()})
        except Exception:
            continue
    return []


def write_dump(args, header, kernel_list, op_list):
    """Writes the dump in the format args chose."""
    if args.binary:
        with open(args.output, "wb") as f:
            f.write(kernel_list.SerializeToString())
        with open(args.output + ".meta.json", "w") as f:
            json.dump(header, f, indent=2)
        if op_list is not None:
            with open(args.output + ".ops.pb", "wb") as f:
                f.write(op_list.SerializeToString())
    elif args.json:
        from google.protobuf import json_format
        body = json.loads(json_format.MessageToJson(kernel_list, preserving_proto_field_name=True))
        items = [("tfscan_dump", header)] + list(body.items())
        if op_list is not None:
            items.append(("op_list", json.loads(json_format.MessageToJson(op_list, preserving_proto_field_name=True))))
        with open(args.output, "w") as f:
            json.dump(dict(items), f, indent=1)
    else:
        from google.protobuf import text_format
        with open(args.output, "w") as f:
            f.write("# tfscan live dump (tools/dump_registry.py)\n")
            f.write("# tf_version: %s\n" % header["tf_version"])
            f.write("# device_types: %s\n" % ", ".join(header["device_types"]))
            f.write("# packages: %s\n" % (", ".join(header["packages"]) or "none"))
            f.write("# wheels: %s\n" % (", ".join(header["wheels"]) or "none"))
            f.write("# host: %s\n" % header["host"])
            f.write("# plugins: %s\n" % (", ".join(header["plugins"]) or "none"))
            f.write("# date: %s\n" % header["date"])
            f.write("# kernels: %d\n" % header["kernels"])
            f.write("# op_defs: %d\n" % header["op_defs"])
            f.write(text_format.MessageToString(kernel_list))
            if op_list is not None:
                f.write("\n%s\n" % OP_LIST_MARKER)
                f.write(text_format.MessageToString(op_list))



def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", required=True, help="output file")
    fmt = ap.add_mutually_exclusive_group()
    fmt.add_argument("--binary", action="store_true", help="binary KernelList plus OUTPUT.meta.json and OUTPUT.ops.pb")
    fmt.add_argument("--json", action="store_true", help="protojson KernelList with a tfscan_dump header and op_list")
    ap.add_argument("--load", action="append", default=[], metavar="LIB",
                    help="PluggableDevice library to load first (repeatable)")
    ap.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                    help="Python module that registers a device when imported (repeatable)")
    ap.add_argument("--no-ops", action="store_true", help="leave the OpDefs out")
    args = ap.parse_args()

    try:
        import tensorflow as tf
        version = tf.__version__
    except Exception as e:  # ImportError, or a broken install's OSError or AttributeError
        fail("cannot import tensorflow (is it installed in %s?)" % sys.executable, e)

    libs = plugin_libraries()
    for lib in args.load:
        try:
            from tensorflow.python.framework import load_library
            load_library.load_pluggable_device_library(lib)
        except Exception as e:
            fail("cannot load the PluggableDevice library %s" % lib, e)
        libs.append(lib)
    for mod in args.imports:
        try:
            importlib.import_module(mod)
        except Exception as e:
            fail("cannot import %s" % mod, e)

    try:
        kernel_list = all_kernels()
    except Exception as e:
        fail("TensorFlow %s cannot list its kernels" % version, e)
    op_list = None if args.no_ops else all_ops()
    kernel_types = sorted({k.device_type for k in kernel_list.kernel})
    device_types = sorted(set(kernel_types) | set(physical_device_types(tf)))
    dists = distributions()
    packages = owning_packages(dists, libs, set(["tensorflow"] + [m.split(".")[0] for m in args.imports]))
    header = {
        "tf_version": version,
        "device_types": device_types,
        "packages": packages,
        "wheels": wheel_names(dists, set(packages)),
        "host": "%s (%s %s, Python %s)" % (platform.node(), platform.system(), platform.machine(),
                                           platform.python_version()),
        "plugins": [os.path.basename(p) for p in libs] + list(args.imports),
        "date": datetime.date.today().isoformat(),
        "kernels": len(kernel_list.kernel),
        "op_defs": 0 if op_list is None else len(op_list.op),
    }

    try:
        write_dump(args, header, kernel_list, op_list)
    except OSError as e:
        print("dump_registry.py: cannot write %s: %s" % (args.output, e.strerror or e), file=sys.stderr)
        sys.exit(1)

    counts = {}
    for k in kernel_list.kernel:
        counts[k.device_type] = counts.get(k.device_type, 0) + 1
    print("wrote %s: %d kernels, %s OpDefs" % (args.output, len(kernel_list.kernel),
                                               "no" if op_list is None else len(op_list.op)), file=sys.stderr)
    for t in device_types:
        print("  device type %s: %d kernels" % (t, counts.get(t, 0)), file=sys.stderr)
    accel = [t for t in kernel_types if t not in ("CPU", "DEFAULT")]
    if accel:
        print("import one with: tfscan registry import %s --name NAME --vendor VENDOR --device-type %s -o NAME.json"
              % (args.output, accel[0]), file=sys.stderr)
    else:
        print("no accelerator kernels: is the vendor's TensorFlow or plugin installed in this Python?", file=sys.stderr)


if __name__ == "__main__":
    main()
