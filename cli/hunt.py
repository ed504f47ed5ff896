"""``pyanitsa hunt``: search two-player classic deals for long games and cycles.

The search is :class:`pyanitsa.research.hunt.Hunt` (seeded local search on the batch core); its
finds and its state go to a hunt store (:mod:`pyanitsa.research.hunt_store`) in ``--output DIR``, so a
hunt resumes exactly and every find replays with ``pyanitsa replay``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from pyanitsa.cli import argtypes
from pyanitsa.cli.errors import CliError
from pyanitsa.cli.rules_args import add_rules_arguments, rules_from_args
from pyanitsa.interrupts import INTERRUPTED

TASK_DEALS = 1 << 18
"""Deals a searcher plays in one round of a hunt with several searchers or on Ray (a second
or two of one core on 32 cards)."""
CHECKPOINT_SECONDS = 2.0
"""Wall time between checkpoints: a kill loses at most this much work (played again on
``--resume``; the results never depend on it)."""


class HuntError(CliError):
    """A combination of flags that cannot run."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "hunt", help="search two-player classic deals for record games and cycles",
        description="Search two-player classic deals for long games and cycles. --method "
                    "climb: chains of deals that move to a neighbour (one to three card "
                    "swaps, between or within the stacks) whose game is at least as long, "
                    "restarting from a random deal when stuck or after a cycle. --method "
                    "blocks: random compositions of cycling block pairs (small pieces of both "
                    "stacks whose rounds never reach into the next piece and rebuild it), "
                    "deals that cycle from their first round. Every new longest game and every "
                    "cycle is stored in --output DIR (SQLite) with its replayable record; "
                    "--export writes them for pyanitsa replay --check.",
        epilog="examples:\n"
               "  pyanitsa hunt --deck 32 --set pickup_order=natural \\\n"
               "      --set dispute_exhausted=discard --target cycle --output h32\n"
               "  pyanitsa hunt --output h32 --resume --minutes 10   # rules from the store\n"
               "  pyanitsa hunt --output h32 --export finds.jsonl\n"
               "  pyanitsa replay --check finds.jsonl")
    add_rules_arguments(p)
    p.add_argument("--target", choices=("longest", "cycle"), default="longest",
                   help="longest (default): hunt records for the whole budget; cycle: stop at "
                        "the first cycle")
    p.add_argument("--method", choices=("climb", "blocks"), default=None,
                   help="climb: local search on game length (the default for --target "
                        "longest); blocks: compositions of cycling block pairs (the default "
                        "for --target cycle; two players, dispute: one_up)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local (default): the searchers one after the other in this process; "
                        "ray: each searcher's work as a Ray task, one core each, on a local "
                        "cluster of --workers CPUs (default: every core) or --ray-address")
    p.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="the Ray cluster to join (default: start a local one)")
    p.add_argument("--searchers", type=argtypes.positive_int, default=1, metavar="S",
                   help="independent searchers, each with its own stream of the seed (default "
                        f"1); they advance in rounds of up to {TASK_DEALS:,} deals each, "
                        "committed in searcher order, so every backend finds the same")
    p.add_argument("--output", metavar="DIR", required=True,
                   help="the hunt store: finds and search state (SQLite)")
    p.add_argument("--resume", action="store_true",
                   help="continue the hunt in DIR with the same random stream")
    p.add_argument("--seed", type=argtypes.seed, default=None,
                   help="the search's seed (default 0; a resumed hunt keeps its own)")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=argtypes.positive_seconds, default=None, metavar="M",
                        help="stop after M minutes (default 10)")
    budget.add_argument("--deals", type=argtypes.positive_int, default=None, metavar="N",
                        help="stop when N deals in all have been played (rounded up to whole "
                             "generations), counting those of earlier runs")
    p.add_argument("--chains", type=argtypes.positive_int, default=32, metavar="C",
                   help="deals searched side by side (default 32)")
    p.add_argument("--proposals", type=argtypes.positive_int, default=8, metavar="K",
                   help="neighbours each chain plays per generation (default 8)")
    p.add_argument("--patience", type=argtypes.nonneg_int, default=200, metavar="G",
                   help="generations without a longer game before a chain restarts "
                        "(default 200; 0: restart at the first generation without a longer game)")
    p.add_argument("--workers", type=argtypes.workers, default=None, metavar="N",
                   help="threads for the batch core (default 1: a generation is a few "
                        "milliseconds of play, which threads slow down on a busy machine; run "
                        "one hunt per core instead); with --backend ray, the CPUs of the local "
                        "cluster")
    p.add_argument("--export", metavar="FILE", default=None,
                   help="write the stored finds of DIR as JSON lines ({record, expected}) to "
                        "FILE (- for standard output) and play nothing")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.ray_address is not None and args.backend != "ray":
        raise HuntError("--ray-address: needs --backend ray")
    if args.export is not None:
        return _export(args)
    from pyanitsa.research.hunt_store import DB_NAME, HuntStore
    if args.resume:
        rules, config = _stored(Path(args.output) / DB_NAME, args)
    else:
        rules = rules_from_args(args)
        config = {"seed": 0 if args.seed is None else args.seed, "chains": args.chains,
                  "proposals": args.proposals, "patience": args.patience}
        method = args.method or ("blocks" if args.target == "cycle" else "climb")
        if method != "climb":  # a one-searcher climbing hunt's config is what it always was
            config["method"] = method
        if args.searchers > 1:
            config["searchers"] = args.searchers
    from pyanitsa.batch import set_workers
    from pyanitsa.research.hunt import Hunt

    hunt = Hunt(rules, chains=config["chains"], proposals=config["proposals"],
                patience=config["patience"], method=config.get("method", "climb"))
    # Hunt refused the rules it cannot hunt, before any file
    set_workers(1 if args.workers is None or args.backend == "ray" else args.workers)
    store = HuntStore(args.output, rules, config, resume=args.resume)
    try:
        if args.backend == "ray" or config.get("searchers", 1) > 1:
            return _hunt_rounds(hunt, store, config, args)
        return _hunt(hunt, store, config, args)
    finally:
        store.close()


def _stored(path: Path, args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """A resumed hunt's rules and settings, read from its store; flags that differ are refused."""
    from pyanitsa import store as sql
    from pyanitsa.research.enumeration_store import StoreError, rules_from_key
    from pyanitsa.research.hunt_store import WHAT
    if not path.exists():
        raise StoreError(f"--resume: {path.parent} holds no hunt ({path.name})")
    db = sql.connect_read_only(path, WHAT)
    try:
        meta = sql.read_meta(db, path, WHAT)
    finally:
        db.close()
    config = json.loads(meta["config"])
    config.setdefault("searchers", 1)
    given = {"seed": args.seed, "chains": args.chains, "proposals": args.proposals,
             "patience": args.patience, "searchers": args.searchers}
    defaults = {"seed": None, "chains": 32, "proposals": 8, "patience": 200, "searchers": 1}
    for key, value in given.items():
        if value != defaults[key] and value != config[key]:
            raise HuntError(f"--{key}: {path.parent} was started with {key}={config[key]}")
    method = config.get("method", "climb")
    if args.method is not None and args.method != method:
        raise HuntError(f"--method: {path.parent} was started with method={method}")
    if args.preset or args.deck or args.options or args.rules_file or args.mode:
        rules = rules_from_args(args)
        if rules != rules_from_key(meta["rules"]):
            raise StoreError(f"--resume: {path.parent} hunted with other rules or another deck")
    if config["searchers"] == 1:
        del config["searchers"]  # as the store has it
    return rules_from_key(meta["rules"]), config


def _hunt(hunt: Any, store: Any, config: dict[str, Any], args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from pyanitsa.records import Record
    from pyanitsa.research.hunt import HuntState
    saved = store.state()
    finds = store.finds()
    cycles = {repr(Record.from_json(f["record"]).seats) for f in finds if f["kind"] != "record"}
    state = (HuntState.from_json(saved, cycles) if saved is not None
             else hunt.start(config["seed"]))
    goal = args.deals
    seconds = 60.0 * (args.minutes if args.minutes is not None else 10.0) if goal is None \
        else None
    began = last = time.perf_counter()
    pending: list[tuple[Any, ...]] = []
    n_cycles = sum(f["kind"] == "cycle" for f in finds)
    done = args.target == "cycle" and n_cycles > 0
    bar = tqdm(total=goal, initial=min(state.played, goal or state.played), unit="deal",
               disable=args.no_progress, leave=False, dynamic_ncols=True, smoothing=0.1)
    try:
        while not done and (goal is None or state.played < goal) and (
                seconds is None or time.perf_counter() - began < seconds):
            before = state.played
            for row in hunt.rows(hunt.step(state)):  # each replayed by the reference engine
                pending.append(row)
                n_cycles += row[0] == "cycle"
                done = done or (args.target == "cycle" and row[0] == "cycle")
            bar.update(state.played - before)
            bar.set_postfix_str(f"longest {state.best >> 24} rounds, cycles {n_cycles}",
                                refresh=False)
            if pending or time.perf_counter() - last > CHECKPOINT_SECONDS:
                store.checkpoint(state.to_json(), pending)
                pending, last = [], time.perf_counter()
    except KeyboardInterrupt:
        store.checkpoint(state.to_json(), pending)
        bar.close()
        print(f"pyanitsa hunt: interrupted after {state.played} deals; --resume continues",
              file=sys.stderr)
        return INTERRUPTED
    store.checkpoint(state.to_json(), pending)
    bar.close()
    return _report(store, state.played, time.perf_counter() - began, args)


def _hunt_rounds(hunt: Any, store: Any, config: dict[str, Any], args: argparse.Namespace
                 ) -> int:
    """Several searchers (or Ray): rounds in which each searcher still short of its share of
    ``--deals`` plays up to TASK_DEALS more, committed with every state in searcher order."""
    from pyanitsa.records import Record
    from pyanitsa.research.enumeration_store import rules_key
    from pyanitsa.research.hunt import HuntState
    n = config.get("searchers", 1)
    saved, finds = store.state(), store.finds()
    if saved is None:
        states = [hunt.start(config["seed"], i) for i in range(n)]
    elif n == 1:
        states = [HuntState.from_json(saved, {repr(Record.from_json(f["record"]).seats)
                                              for f in finds if f["kind"] != "record"})]
    else:
        states = [HuntState.from_json(obj) for obj in saved["searchers"]]
    share = None if args.deals is None else -(-args.deals // n)
    seconds = 60.0 * (args.minutes if args.minutes is not None else 10.0)
    stop = args.target == "cycle"
    done = stop and any(f["kind"] == "cycle" for f in finds)
    settings = {"chains": hunt.chains, "proposals": hunt.proposals, "patience": hunt.patience,
                "method": hunt.method}
    began = time.perf_counter()
    started = False
    if args.backend == "ray":
        from pyanitsa.research.enumeration_ray import start_ray
        from pyanitsa.research.hunt_ray import run_round
        started = start_ray(args.ray_address, args.workers)
        key = rules_key(hunt.rules)

    def saved_json() -> dict[str, Any]:
        if n == 1:
            return states[0].to_json()
        return {"searchers": [st.to_json(with_cycles=True) for st in states]}

    try:
        while not done and (share is not None or time.perf_counter() - began < seconds):
            todo = [i for i, st in enumerate(states) if share is None or st.played < share]
            if not todo:
                break
            until = {i: states[i].played + TASK_DEALS if share is None
                     else min(states[i].played + TASK_DEALS, share) for i in todo}
            rows: list[tuple[Any, ...]] = []
            if args.backend == "ray":
                got = run_round(key, settings,
                                {i: (states[i].to_json(with_cycles=True), until[i])
                                 for i in todo}, stop)
                for i in todo:
                    states[i] = HuntState.from_json(got[i][0])
                    rows.extend(tuple(r) for r in got[i][1])
            else:
                for i in todo:
                    rows.extend(hunt.advance(states[i], until[i], stop))
            store.checkpoint(saved_json(), rows)
            done = stop and any(r[0] == "cycle" for r in rows)
    except KeyboardInterrupt:
        print("pyanitsa hunt: interrupted; --resume continues from the last whole round",
              file=sys.stderr)
        return INTERRUPTED
    finally:
        if started:
            import ray
            ray.shutdown()
    return _report(store, sum(st.played for st in states), time.perf_counter() - began, args)


def _report(store: Any, played: int, seconds: float, args: argparse.Namespace) -> int:
    finds = store.finds()
    records = [f for f in finds if f["kind"] == "record"]
    cycles = [f for f in finds if f["kind"] == "cycle"]
    capped = [f for f in finds if f["kind"] == "capped"]
    best = max(records, key=lambda f: (f["rounds"], f["showdowns"])) if records else None
    out = {"deals": played, "seconds": round(seconds, 3),
           "longest": None if best is None else {k: best[k] for k in ("rounds", "showdowns",
                                                                      "at_deal", "record")},
           "cycles": [{k: c[k] for k in ("period", "start", "at_deal", "record")}
                      for c in cycles],
           "capped": len(capped), "store": args.output}
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(f"hunt: {played} deals in all, this run {seconds:.1f} s; store {args.output}")
    if best is not None:
        print(f"  longest: {best['rounds']} rounds, {best['showdowns']} showdowns "
              f"(deal {best['at_deal']})")
    periods = sorted({c["period"] for c in cycles})
    print(f"  cycles: {len(cycles)}" + (f", periods {', '.join(map(str, periods))}"
                                       if periods else "") + f"   capped: {len(capped)}")
    return 0


def _export(args: argparse.Namespace) -> int:
    import sqlite3

    from pyanitsa import store as sql
    from pyanitsa.research.enumeration_store import StoreError
    from pyanitsa.research.hunt_store import DB_NAME, WHAT
    path = Path(args.output) / DB_NAME
    if not path.exists():
        raise StoreError(f"--export: {args.output} holds no hunt ({DB_NAME})")
    db = sql.connect_read_only(path, WHAT)
    try:
        rows = db.execute("SELECT record, result FROM finds ORDER BY id").fetchall()
    except sqlite3.DatabaseError as exc:
        raise sql.not_a_store(path, WHAT, exc) from None
    finally:
        db.close()
    lines = "".join(f'{{"record": {rec}, "expected": {res}}}\n' for rec, res in rows)
    if args.export == "-":
        sys.stdout.write(lines)
    else:
        Path(args.export).write_text(lines, encoding="utf-8")
    return 0
