#!/usr/bin/env python3
"""A pyanitsa bot in plain Python (no pyanitsa import): it plays its cards in a random order.

Run it as an agent with the spec ``cmd:python examples/bots/random_bot.py``. It speaks the
protocol of docs/bots.md: JSON lines on stdin and stdout, one answer per request. Its random
order is drawn from the request's ``seed``, so the same game gets the same answer.
"""

import json
import random
import sys


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        kind = request["type"]
        if kind == "hello":
            answer = {"type": "hello", "name": "random_bot", "decisions": ["hand", "pickup"]}
        elif kind in ("hand", "pickup"):
            n = len(request["hand"] if kind == "hand" else request["cards"])
            order = list(range(n))
            random.Random(request["seed"]).shuffle(order)
            answer = {"type": "order", "order": order}
        else:
            print(f"random_bot: unknown request {kind!r}", file=sys.stderr)
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
