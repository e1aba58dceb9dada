#!/usr/bin/env python3
"""A transform/utility step for tests: writes its argv to the file named by TRANSFORM_OUT and exits
with TRANSFORM_EXIT (default 0)."""
import json
import os
import sys

out = os.environ.get("TRANSFORM_OUT")
if out:
    with open(out, "w") as f:
        f.write(json.dumps(sys.argv[1:]))
print("transform ran with " + " ".join(sys.argv[1:]))
sys.stderr.write("transform stderr line\n")
sys.exit(int(os.environ.get("TRANSFORM_EXIT", "0")))
