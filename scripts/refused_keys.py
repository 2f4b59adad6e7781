#!/usr/bin/env python3
"""Which keys does an Azure ML SDK schema load that its entity's constructor refuses?

For every marshmallow schema of azure-ai-ml with a @post_load hook, call the hooks with the
keys they need (gen_schemas.post_load_required, a placeholder value each), then with one
more field at a time. A field whose presence makes the hooks fail with a TypeError of an
argument the constructor does not take ("unexpected keyword argument",
"object.__init__() takes exactly one argument") is a candidate for
gen_schemas.ENTITY_REFUSES_FIELDS.

The hooks see placeholder values, so a candidate is only a lead: a key a real load routes to
another entity fails the same way here (BatchDeploymentSchema's `component`). List one in
ENTITY_REFUSES_FIELDS only after loading a file that gives it through the SDK's `load_*`
(../shared/oracle/aml_oracle.py) and a file without it that loads, and add both as a fixture
under fixtures/schema/.

Usage (with the SDK venv, from the repository's root):
    /work/venv/bin/python scripts/refused_keys.py
Prints one line per candidate: schema class | key | the SDK's error.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")
import logging  # noqa: E402

logging.disable(logging.CRITICAL)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import marshmallow  # noqa: E402

import azure.ai.ml._schema as sdk_schemas  # noqa: E402
from gen_schemas import post_load_required  # noqa: E402

REFUSALS = ("unexpected keyword", "takes exactly one argument", "takes no arguments")


def schema_classes():
    for m in pkgutil.walk_packages(sdk_schemas.__path__, sdk_schemas.__name__ + "."):
        try:
            importlib.import_module(m.name)
        except Exception:  # noqa: BLE001 - a module that does not import has no schema to probe
            pass
    seen, stack = set(), [marshmallow.Schema]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
    return sorted((c for c in seen if c.__module__.startswith("azure.ai.ml")),
                  key=lambda c: (c.__module__, c.__name__))


def main() -> int:
    for cls in schema_classes():
        hooks = [h[0] for h in getattr(cls, "_hooks", {}).get("post_load", [])]
        if not hooks:
            continue
        try:
            inst = cls(context={"base_path": "."})
        except Exception:  # noqa: BLE001 - a schema that needs more context is not probed
            continue
        names = {n: (f.data_key or n) for n, f in inst.load_fields.items()}
        needed = post_load_required(inst)
        base = {n: "x" for n, dk in names.items() if dk in needed}

        def run(data):
            try:
                for h in hooks:
                    getattr(inst, h)(dict(data), many=False, partial=False)
                return None
            except Exception as e:  # noqa: BLE001 - every failure is compared
                return f"{type(e).__name__}: {e}"

        without = run(base)
        for n, dk in names.items():
            if n in base:
                continue
            err = run({**base, n: "x"})
            if err and err != without and err.startswith("TypeError") and any(r in err for r in REFUSALS):
                print(f"{cls.__name__} | {dk} | {err[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
