"""A bot that plays (its cards as dealt) but will not die: it ignores SIGTERM and SIGINT, and
at end-of-file on stdin it sleeps on instead of exiting. Only SIGKILL ends it. Any arguments
(a marker the tests look it up by) are ignored."""
import json
import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = {"type": "hello", "name": "immortal", "decisions": ["hand", "pickup"]}
    else:
        n = len(message["hand"] if message["type"] == "hand" else message["cards"])
        answer = {"type": "order", "order": list(range(n))}
    print(json.dumps(answer), flush=True)
while True:
    time.sleep(3600)
