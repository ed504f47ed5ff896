"""``distill.members``: several networks fitted to one teacher, side by side on ``workers``
processes, saved as one policy that plays the mean of their distributions.

Member ``m``'s fit is :func:`~pyanitsa.training.distill.fit_actor` with its own state file
(``teacher/fit.pt`` for member 0, ``fitM.pt`` after), its own batch order and, past member 0,
its own initialisation (``derive_seed(seed, 3, m)``): member 0 is exactly the fit that
``members: 1`` makes. A stop terminates the workers; every finished epoch is on disk, so
``--resume`` continues each member where it was.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pyanitsa.rng import derive_seed
from pyanitsa.rules import Rules
from pyanitsa.training.distill import (
    DistillStopped,
    fit_actor,
    load_teacher_data,
    network_of,
)


def member_path(folder: Path, m: int) -> Path:
    """Member ``m``'s fit state (member 0's is the one-network fit's)."""
    return folder / ("fit.pt" if m == 0 else f"fit{m}.pt")


def fit_members(policy: Any, rules: Rules, dcfg: Mapping[str, Any], folder: Path,
                stop: Mapping[str, Any], progress: bool, log: Callable[[str], None],
                algorithm: str, players: int = 2
                ) -> tuple[list[Any], list[list[dict[str, float]]]]:
    """Fit every member (``policy`` is member 0) of a policy for ``players`` seats; returns
    the other members' networks and every member's curve."""
    import torch as th

    from pyanitsa.policies.files import build_policy
    from pyanitsa.policies.meta import policy_meta

    members, epochs = int(dcfg["members"]), int(dcfg["epochs"])
    meta = policy_meta(policy, algorithm, rules, players)
    nets = [policy]
    for m in range(1, members):
        with th.random.fork_rng():  # the run's own generators stay where they were
            th.manual_seed(derive_seed(dcfg["seed"], 3, m))
            nets.append(build_policy(meta))
    done = {m: _epochs_done(member_path(folder, m), network_of(nets[m], dcfg, m))
            for m in range(members)}
    todo = [m for m in range(members) if done[m] < epochs]
    if todo:
        jobs = [(meta.to_json(), dict(dcfg), str(folder), m,
                 {k: v.clone() for k, v in nets[m].state_dict().items()}) for m in todo]
        _run_jobs(jobs, min(int(dcfg["workers"]), len(jobs)), epochs * members,
                  sum(done.values()), stop, progress)
    curves = []
    for m, net in enumerate(nets):
        state = th.load(member_path(folder, m), weights_only=False)
        net.load_state_dict(state["best"][1])
        curves.append(state["curve"])
        best = min(state["curve"], key=lambda r: r["held_kl"])
        log(f"distilled member {m}: held-out KL {best['held_kl']:.4f} nats a decision "
            f"(epoch {best['epoch']} of {epochs})")
    return nets[1:], curves


def _epochs_done(path: Path, network: dict[str, Any]) -> int:
    """The epochs of this network's fit already on disk (0: none, or another network's)."""
    import torch as th

    if not path.exists():
        return 0
    state = th.load(path, weights_only=False)
    return int(state["epoch"]) if state.get("network") == network else 0


def _run_jobs(jobs: list[tuple[Any, ...]], workers: int, total: int, initial: int,
              stop: Mapping[str, Any], progress: bool) -> None:
    """The fits on ``workers`` processes at a time, one bar over every member's epochs.

    Plain processes and one pipe, not a ``Pool``: a pool's queues hold semaphores that, with
    ``spawn``, outlive a pool not yet collected at exit (a "leaked semaphore" warning). Each
    message is one small write (under ``PIPE_BUF``), so the workers' writes never interleave.
    """
    from tqdm.auto import tqdm

    ctx = mp.get_context("spawn")
    inbox, tell = ctx.Pipe(duplex=False)
    bar = tqdm(total=total, initial=initial, unit="epoch", disable=not progress,
               desc=f"fit {len(jobs)} members to the teacher", dynamic_ncols=True)
    waiting, running = list(jobs), []
    try:
        while waiting or running:
            while waiting and len(running) < workers:
                running.append(ctx.Process(target=_member_job, args=(waiting.pop(0), tell)))
                running[-1].start()
            if stop.get("signum"):
                raise DistillStopped
            ended = [p for p in running if p.exitcode is not None]
            _read(inbox, bar, 0.2)  # after the exit codes: an ended fit's last words are in
            for proc in ended:
                if proc.exitcode != 0:
                    raise RuntimeError(f"distill.members: a fit's process ended with exit "
                                       f"code {proc.exitcode}")
                running.remove(proc)
    finally:
        for proc in running:
            proc.terminate()  # an epoch in progress is lost; the finished ones are on disk
            proc.join()
        inbox.close()
        tell.close()
        bar.close()


def _read(inbox: Any, bar: Any, wait: float) -> None:
    """Every message waiting: an epoch moves the bar, an error stops the run."""
    while inbox.poll(wait):
        kind, text = inbox.recv()
        if kind == "error":
            raise RuntimeError(f"distill.members: a fit failed: {text}")
        bar.update()
        wait = 0


def _member_job(job: tuple[Any, ...], tell: Any) -> None:
    """One member's fit, in its own process: the network from the sidecar and its initial
    weights; every finished epoch and any error told on ``tell``."""
    import signal
    import traceback

    import torch as th

    from pyanitsa.policies.files import build_policy
    from pyanitsa.policies.meta import PolicyMeta

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; it terminates us
    meta_json, dcfg, folder, m, init = job
    try:
        th.set_num_threads(1)
        net = build_policy(PolicyMeta.from_json(meta_json, "member"))
        net.load_state_dict(init)
        fit_actor(net, load_teacher_data(Path(folder), int(dcfg["deals"])), dcfg,
                  member_path(Path(folder), m), {}, False, lambda _: None, m,
                  lambda: tell.send(("epoch", "")))
    except Exception as exc:  # noqa: BLE001  (told to the parent, which stops the run)
        tell.send(("error", f"member {m}: {type(exc).__name__}: {exc}"))
        traceback.print_exc()
