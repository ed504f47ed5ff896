"""A bot that shakes hands, then answers every request with garbage."""
import json
import sys

for line in sys.stdin:
    if json.loads(line)["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "garbage", "decisions": ["hand"]}), flush=True)
    else:
        print("this is not JSON {{{", flush=True)
