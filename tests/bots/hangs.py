"""A bot that shakes hands, then never answers (it sleeps past any time limit)."""
import json
import sys
import time

for line in sys.stdin:
    if json.loads(line)["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "hangs", "decisions": ["hand"]}), flush=True)
    else:
        time.sleep(3600)
