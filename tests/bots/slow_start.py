"""A bot that takes a second to start (loading, say), then answers at once."""
import json
import sys
import time

time.sleep(1.0)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "slow", "decisions": ["hand"]}), flush=True)
    else:
        print(json.dumps({"type": "order", "order": list(range(len(message["hand"])))}),
              flush=True)
