"""A hostile bot for the sandbox tests: ``attacker.py ATTACK ARG...``. It makes its attack when
it starts and says how it went on stderr (one JSON line), then plays its cards as dealt. ``memory`` attacks at its first decision instead.

Attacks: ``read PATH`` (print what it reads), ``proc`` (list /proc, read the parent's cmdline
and environ), ``connect PORT`` (127.0.0.1), ``kill PID`` (SIGKILL), ``parent`` (signal 0 to
getppid), ``daemon MARKER`` (a double-forked sleeper whose argv holds MARKER), ``write PATH``
(and into its scratch folder), ``memory MIB`` (allocate that much).
"""
import json
import os
import signal
import socket
import sys


def attempt(action):
    try:
        return {"ok": True, "value": action()}
    except Exception as exc:  # the attack failed: say how
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:200]}


def read(path):
    with open(path, "rb") as f:
        return f.read(200).decode("utf-8", "replace")


def proc():
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    parent = os.getppid()
    return {"pids": len(pids), "ppid": parent,
            "cmdline": attempt(lambda: read(f"/proc/{parent}/cmdline")),
            "environ": attempt(lambda: read(f"/proc/{parent}/environ"))}


def connect(port):
    with socket.create_connection(("127.0.0.1", int(port)), timeout=2) as s:
        s.sendall(b"the deal\n")
    return "sent"


def daemon(marker):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)",
                                      marker])
        os._exit(0)
    os.wait()
    return "forked"


def write(path):
    with open(path, "w") as f:
        f.write("owned\n")
    with open("scratch.txt", "w") as f:  # its own folder: allowed
        f.write("mine\n")
    return "written"


def attack(kind, args):
    if kind == "read":
        return attempt(lambda: read(args[0]))
    if kind == "proc":
        return proc()
    if kind == "connect":
        return attempt(lambda: connect(args[0]))
    if kind == "kill":
        return attempt(lambda: os.kill(int(args[0]), signal.SIGKILL))
    if kind == "parent":
        return {"ppid": os.getppid(), **attempt(lambda: os.kill(os.getppid(), 0))}
    if kind == "daemon":
        return attempt(lambda: daemon(args[0]))
    if kind == "write":
        result = attempt(lambda: write(args[0]))
        result["scratch"] = attempt(lambda: read("scratch.txt"))
        return result
    return {"ok": None}


def main():
    kind, args = sys.argv[1], sys.argv[2:]
    hoard = []
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps(attack(kind, args)), file=sys.stderr, flush=True)
            answer = {"type": "hello", "name": "attacker", "decisions": ["hand", "pickup"]}
        else:
            if kind == "memory":
                hoard.append(bytearray(int(args[0]) << 20))  # touched: really allocated
            n = len(message["hand"] if message["type"] == "hand" else message["cards"])
            answer = {"type": "order", "order": list(range(n))}
        print(json.dumps(answer), flush=True)


main()
