#!/usr/bin/env python3
"""Checks that the per-ISA kernel objects define nothing outside their ISA's
namespace.

The sources in src/kernels/cpu/isa/ are compiled with per-ISA flags (e.g.
-march=x86-64-v4). Any function they emit with vague linkage outside
relite::cpu::isa_<name> (an inline helper from a shared header, a template
instantiation of the standard library) is a COMDAT the linker may keep for
the whole program: baseline code would then call an AVX-512 copy and crash on
a CPU without it. So every global or weak symbol an ISA object defines must
be in its own namespace.

  isa_symbols_check.py NM OBJECT...   (objects of relite_isa_<name> targets)
"""
import re
import subprocess
import sys


def main():
    nm = sys.argv[1]
    objects = [o for o in sys.argv[2:] if o]
    if not objects:
        print("no objects given")
        return 1
    bad = []
    checked = 0
    for obj in objects:
        m = re.search(r"relite_isa_([a-z0-9]+)\.dir", obj)
        if not m:
            print(f"cannot tell the ISA of {obj}")
            return 1
        # relite::cpu::isa_<name>::..., or an inline namespace named after it
        # (vector_math.h: relite::cpu::vmath_isa_<name>::...).
        own = re.compile(rf"(^|\s)relite::cpu::(\w+_)?isa_{m.group(1)}::")
        out = subprocess.run([nm, "-C", "--defined-only", obj], check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split(" ", 2)
            if len(parts) < 3:
                continue
            kind, name = parts[1], parts[2]
            if kind.islower() and kind not in ("u", "v", "w"):
                continue  # local to the object
            checked += 1
            # Guard variables and vtables of our own namespace are fine too.
            if own.search(re.sub(r"^(guard variable for|vtable for|typeinfo for|typeinfo name for) ", "", name)):
                continue
            bad.append(f"{obj}: {kind} {name}")
    if bad:
        print("symbols outside their ISA namespace (they could replace baseline code at link time):")
        print("\n".join(bad))
        return 1
    print(f"{len(objects)} objects, {checked} exported symbols, all in their ISA namespace")
    return 0


if __name__ == "__main__":
    sys.exit(main())
