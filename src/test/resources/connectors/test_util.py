#!/usr/bin/env python3
"""A transform/utility step for tests: writes its argv to the file named by TRANSFORM_OUT (and, when
TRANSFORM_ENV_OUT is set, the environment variables it got that end in _INPUT_DIR or _NESTED_DEPTH or
start with MELTANO_, as JSON, to that file) and exits with TRANSFORM_EXIT (default 0)."""
import json
import os
import sys

out = os.environ.get("TRANSFORM_OUT")
if out:
    with open(out, "w") as f:
        f.write(json.dumps(sys.argv[1:]))
env_out = os.environ.get("TRANSFORM_ENV_OUT")
if env_out:
    with open(env_out, "w") as f:
        json.dump({k: v for k, v in os.environ.items() if k.startswith("MELTANO_") or k.endswith("_INPUT_DIR")
                   or k.endswith("_NESTED_DEPTH") or k.endswith("_API_TOKEN")}, f, sort_keys=True)
print("transform ran with " + " ".join(sys.argv[1:]))
sys.stderr.write("transform stderr line\n")
sys.exit(int(os.environ.get("TRANSFORM_EXIT", "0")))
