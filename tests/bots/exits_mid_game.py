"""A bot that answers its first request, then exits on the second (mid-game in classic play
with agent pickups; at the next game's hand in tactical)."""
import json
import sys

requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "exits", "decisions": ["hand", "pickup"]}),
              flush=True)
        continue
    requests += 1
    if requests == 2:
        sys.exit(0)
    n = len(message["hand"] if message["type"] == "hand" else message["cards"])
    print(json.dumps({"type": "order", "order": list(range(n))}), flush=True)
