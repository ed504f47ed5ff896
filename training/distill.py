"""Distil an equilibrium into the policy network: ``distill:`` in a training config.

Two teachers (:mod:`pyanitsa.training.teacher`, ``distill.teacher``): ``solve``, two-player
tactical deals solved one at a time by :mod:`pyanitsa.solvers.cfr` (DCFR or CFR+, 0.7 to 1.5 s
of CPU a deal); or ``stored``, the whole-game strategy ``nash`` plays at 3+ players
(:mod:`pyanitsa.solvers.mccfr`), at the table it was solved for. The policy network learns to
play what the teacher plays, across deals, in one forward pass per card:

1. **Teacher data** (``teacher/cNNN.npz`` in the run folder, :data:`CHUNK` deals a file). Deal
   ``i`` is ``deal_from_seed(rules, players, derive_seed(seed, i))``; ``samples`` orders are
   drawn from each taught seat's strategy (generator ``derive_seed(seed, i, 1)``) and, at
   every position of each, the observation the seat would see and the teacher's distribution
   over the next rank are kept (:func:`~pyanitsa.training.teacher.deal_teaching`). A file is
   written atomically once complete, so a stop loses at most the chunks in progress and
   ``--resume`` makes only the missing ones; a chunk is the same bytes whoever makes it, with
   any number of workers.
2. **Fit** the actor (the prior and the features included) to those distributions by
   ``KL(teacher || policy)``, Adam with a one-cycle schedule; the last ``holdout`` deals are held
   out and the epoch with the lowest held-out KL is kept. ``distill.csv`` and
   ``distill_curve.png`` have the curve; ``teacher/fit.pt`` holds the fit's state after every
   epoch, so a stop in the fit resumes at the next epoch.
3. With ``members: N``, N fits (``fit.pt``, ``fit1.pt``, ...), each network initialised and
   its batches ordered from its own seed, on ``workers`` processes; the policy saved is all of
   them (:mod:`pyanitsa.policies.ppo`: it plays the mean of their distributions). Member 0 is
   the fit ``members: 1`` makes.

Why the features matter: the teacher's strategy is a function of (ranks still held, rank played
last, the opponent's hand); with ``ppo.features: last`` the network is given the rank played last
instead of finding it in the ``order`` slice, and its held-out KL halves (BENCHMARKS.md).
"""

from __future__ import annotations

import csv
import json
import multiprocessing as mp
import signal
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from pyanitsa.observation import TacticalLayout, TacticalSeat
from pyanitsa.rng import derive_seed
from pyanitsa.rules import Rules
from pyanitsa.training.teacher import deal_teaching

CHUNK = 100
"""Deals per teacher file."""
ROWS = 8192
"""Rows a forward pass takes outside training (the features computed once, the KL measured)."""
OBS_SCALE = 8
"""Observations are stored as ``uint8(obs * 8)``: every entry is a multiple of 1/8 (counts of
at most 4 copies, one-hots, players / 8), so the round trip is exact."""


class DistillStopped(Exception):
    """A SIGINT or SIGTERM arrived during distillation (what is finished is on disk)."""


def teacher_chunk(rules: Rules, dcfg: Mapping[str, Any], c: int, players: int = 2
                  ) -> dict[str, np.ndarray]:
    """The observations, masks and teacher distributions of deals ``c*CHUNK`` to the next."""
    from pyanitsa.agents.specs import make_agent

    lay = TacticalLayout(rules, players)
    model = make_agent(dcfg["model"]) if dcfg.get("model") else None
    obs, masks, tgt, deals = [], [], [], []
    for i in range(c * CHUNK, min((c + 1) * CHUNK, int(dcfg["deals"]))):
        for seat, hand, order, targets in deal_teaching(rules, players, dcfg, i, model):
            view = TacticalSeat(lay)
            view.deal(seat, hand)
            for r, p in zip(order, targets, strict=True):
                obs.append((view.obs * OBS_SCALE).round().astype(np.uint8))
                masks.append(view.mask.copy())
                tgt.append(p)
                deals.append(i)
                view.play(int(r))
    return {"obs": np.array(obs), "mask": np.array(masks), "tgt": np.array(tgt),
            "deal": np.array(deals, np.int32)}


def _chunk_job(args: tuple[dict[str, Any], dict[str, Any], int, str, int]) -> int:
    options, dcfg, c, folder, players = args
    rules = Rules.from_json({**options, "mode": "tactical"})
    path = Path(folder) / f"c{c:03d}.npz"
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **teacher_chunk(rules, dcfg, c, players))
    tmp.replace(path)
    return c


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; it terminates us


def make_teacher_data(folder: Path, rules_options: dict[str, Any], dcfg: Mapping[str, Any],
                      stop: Mapping[str, Any], progress: bool, players: int = 2) -> None:
    """Every missing chunk of the teacher data, on ``dcfg["workers"]`` processes."""
    from tqdm.auto import tqdm

    folder.mkdir(parents=True, exist_ok=True)
    _same_teacher(folder, rules_options, dcfg, players)
    chunks = -(-int(dcfg["deals"]) // CHUNK)
    todo = [c for c in range(chunks) if not (folder / f"c{c:03d}.npz").exists()]
    if not todo:
        return
    jobs = [(rules_options, dict(dcfg), c, str(folder), players) for c in todo]
    bar = tqdm(total=chunks, initial=chunks - len(todo), unit="chunk", disable=not progress,
               desc=f"teacher data ({CHUNK} deals a chunk)", dynamic_ncols=True)
    pool = mp.get_context("spawn").Pool(int(dcfg["workers"]), initializer=_ignore_sigint)
    try:
        results = pool.imap_unordered(_chunk_job, jobs)
        for _ in jobs:
            while True:
                if stop.get("signum"):
                    raise DistillStopped
                try:
                    results.next(timeout=0.5)
                    break
                except mp.TimeoutError:
                    continue
            bar.update()
        pool.close()
    finally:
        pool.terminate()  # a chunk in progress is lost whole: its file was never renamed in
        pool.join()
        bar.close()


TEACHER_KEYS = ("deals", "samples", "iterations", "algorithm", "seed", "model", "confidence",
                "response")
"""What a chunk's bytes depend on (with the rules): the teacher folder is made anew if they
change."""


def _same_teacher(folder: Path, rules_options: dict[str, Any], dcfg: Mapping[str, Any],
                  players: int) -> None:
    """Keep the chunks only if they were made for these rules and these :data:`TEACHER_KEYS`
    (a stored teacher's: and its player count; a solve's record is as it was before there
    were two teachers, so older run folders resume)."""
    want = {"rules": rules_options, **{k: dcfg.get(k) for k in TEACHER_KEYS}}
    if dcfg.get("teacher", "solve") != "solve":
        want.update(teacher=dcfg["teacher"], players=players)
    meta = folder / "teacher.json"
    if meta.exists() and json.loads(meta.read_text(encoding="utf-8")) == want:
        return
    for old in [*folder.glob("c*.npz"), *folder.glob("fit*.pt")]:
        old.unlink(missing_ok=True)
    meta.write_text(json.dumps(want, sort_keys=True) + "\n", encoding="utf-8")


def load_teacher_data(folder: Path, deals: int) -> dict[str, np.ndarray]:
    """The teacher data of deals ``0..deals-1``."""
    parts = [np.load(folder / f"c{c:03d}.npz") for c in range(-(-deals // CHUNK))]
    data = {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "tgt", "deal")}
    keep = data["deal"] < deals
    return {k: v[keep] for k, v in data.items()}


def _kl(policy: Any, obs: Any, mask: Any, tgt: Any, features: Any = None) -> Any:
    """Mean ``KL(teacher || policy)`` in nats a decision, the prior and features included
    (``features``: the extractor's output for ``obs``, when :func:`fixed_features` made it)."""
    import torch as th

    from pyanitsa.policies.ppo import action_logits

    logits = action_logits(policy, obs, features)
    if hasattr(policy, "log_prior"):
        logits = logits + policy.log_prior(obs)
    logp = th.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
    return (tgt * (th.log(tgt.clamp_min(1e-12)) - logp)).sum(1).mean()


def fixed_features(policy: Any, obs: Any) -> Any:
    """The features extractor's output for every row, computed once, or None when the
    extractor has weights to learn. Why: ``features: model`` computes the opponent model's
    marginals in numpy, hand by hand; redone on every batch of every epoch, that was about three
    quarters of a fit's time (BENCHMARKS.md). The extractor is then a fixed function of the
    observation, so its output is the same numbers whichever way it is batched."""
    import torch as th

    extractor = policy.pi_features_extractor
    if any(p.requires_grad for p in extractor.parameters()):
        return None
    with th.no_grad():
        return th.cat([policy.extract_features(obs[i:i + ROWS], extractor)
                       for i in range(0, len(obs), ROWS)])


def network_of(policy: Any, dcfg: Mapping[str, Any], member: int = 0) -> dict[str, Any]:
    """What a saved fit must match to be continued: the network's inputs and shapes and the
    fit's schedule (a changed ``ppo.features`` or ``net_arch`` in the same run folder starts
    the fit anew instead of failing to load, or worse, loading other inputs' weights)."""
    extractor = getattr(policy, "features_extractor", None)
    return {"features": getattr(extractor, "features_kind", "obs"),
            "opponent_model": getattr(extractor, "opponent_model", None),
            "prior": getattr(policy, "prior_kind", "none"),
            "shapes": {k: list(v.shape) for k, v in policy.state_dict().items()},
            **{k: dcfg[k] for k in ("epochs", "lr", "batch_size", "holdout", "seed")},
            **({"member": member} if member else {})}


def fit_actor(policy: Any, data: Mapping[str, np.ndarray], dcfg: Mapping[str, Any],
              state_path: Path, stop: Mapping[str, Any], progress: bool,
              log: Callable[[str], None], member: int = 0,
              on_epoch: Callable[[], None] | None = None) -> list[dict[str, float]]:
    """Fit the actor's layers to the teacher (``member`` > 0: batches in that member's own
    order); returns the curve (one row an epoch)."""
    import torch as th
    from tqdm.auto import tqdm

    deals = data["deal"]
    cut = int(dcfg["deals"]) - int(dcfg["holdout"])
    train, held = np.flatnonzero(deals < cut), np.flatnonzero(deals >= cut)
    obs = th.from_numpy(data["obs"].astype(np.float32) / OBS_SCALE)
    mask, tgt = th.from_numpy(data["mask"]), th.from_numpy(data["tgt"])
    params = [*policy.features_extractor.parameters(),
              *policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]
    batch, epochs = int(dcfg["batch_size"]), int(dcfg["epochs"])
    per_epoch = max(len(train) // batch, 1)
    opt = th.optim.Adam(params, lr=dcfg["lr"])
    sched = th.optim.lr_scheduler.OneCycleLR(opt, dcfg["lr"], total_steps=epochs * per_epoch)
    state = {"epoch": 0, "curve": [], "best": None,
             "network": network_of(policy, dcfg, member)}
    if state_path.exists():  # a stop during the fit: continue at the next epoch
        saved = th.load(state_path, weights_only=False)
        if saved.get("network") == state["network"]:
            state = saved
            policy.load_state_dict(state["policy"])
            opt.load_state_dict(state["opt"])
            sched.load_state_dict(state["sched"])
        else:  # the config's network or fit changed since: that fit is not this one's
            log(f"{state_path}: the fit there is of another network or schedule; fitting anew")

    feats = fixed_features(policy, obs)

    def kl(j: np.ndarray) -> Any:
        return _kl(policy, obs[j], mask[j], tgt[j], None if feats is None else feats[j])

    def measure(idx: np.ndarray) -> float:
        with th.no_grad():
            return float(np.mean([kl(j).item()
                                  for j in np.array_split(idx, max(len(idx) // ROWS, 1))]))

    bar = tqdm(total=epochs, initial=state["epoch"], unit="epoch", disable=not progress,
               desc="fit to the teacher" + (f" (member {member})" if member else ""),
               dynamic_ncols=True)
    for epoch in range(state["epoch"], epochs):
        order = (dcfg["seed"], 2, epoch, member) if member else (dcfg["seed"], 2, epoch)
        perm = np.random.default_rng(derive_seed(*order)).permutation(train)
        for b in range(per_epoch):
            j = perm[b * batch:(b + 1) * batch]
            loss = kl(j)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        row = {"epoch": epoch + 1, "train_kl": measure(train[:50_000]), "held_kl": measure(held)}
        state["curve"].append(row)
        if state["best"] is None or row["held_kl"] < state["best"][0]:
            state["best"] = (row["held_kl"], {k: v.clone() for k, v in
                                              policy.state_dict().items()})
        state.update(epoch=epoch + 1, policy=policy.state_dict(), opt=opt.state_dict(),
                     sched=sched.state_dict())
        tmp = state_path.with_name(state_path.name + ".tmp")
        th.save(state, tmp)
        tmp.replace(state_path)
        bar.update()
        bar.set_postfix(held_kl=f"{row['held_kl']:.4f}")
        if on_epoch is not None:
            on_epoch()
        if stop.get("signum") and epoch + 1 < epochs:
            bar.close()
            raise DistillStopped
    bar.close()
    policy.load_state_dict(state["best"][1])
    log(f"distilled{f' member {member}' if member else ''}: held-out KL "
        f"{state['best'][0]:.4f} nats a decision (epoch "
        f"{min(state['curve'], key=lambda r: r['held_kl'])['epoch']} of {epochs})")
    return state["curve"]


def write_curve(run: Path, curves: list[list[dict[str, float]]]) -> None:
    """``distill.csv`` and ``distill_curve.png``: KL to the teacher, train and held out, of
    each member's fit (a ``member`` column when there are several)."""
    several = len(curves) > 1
    with open(run / "distill.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["member"] * several + ["epoch", "train_kl", "held_kl"])
        w.writeheader()
        for m, curve in enumerate(curves):
            w.writerows({**({"member": m} if several else {}), **row} for row in curve)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for m, curve in enumerate(curves):
        for key, label, style in (("train_kl", "training deals", "--"),
                                  ("held_kl", "held-out deals", "-")):
            name = f"member {m}, {label}" if several else label
            ax.plot([r["epoch"] for r in curve], [r[key] for r in curve], style, marker="o",
                    color=f"C{m}" if several else None, label=name)
    ax.set_xlabel("epoch")
    ax.set_ylabel("KL(teacher || policy), nats a decision")
    ax.set_title("distillation of the teacher")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(run / "distill_curve.png", dpi=100)
    plt.close(fig)


def distill(policy: Any, rules: Rules, players: int, dcfg: Mapping[str, Any], run: Path,
            stop: Mapping[str, Any], progress: bool, log: Callable[[str], None],
            algorithm: str = "MaskablePPO") -> list[Any]:
    """Teacher data, then the fit; the policy's actor ends as the best held-out epoch. With
    ``members`` > 1, the other members' networks are returned (``policy`` is member 0)."""
    if rules.mode != "tactical" or (players != 2 and dcfg.get("teacher") != "stored"):
        raise ValueError(f"distill: the teacher solves two-player tactical deals (or plays a "
                         f"stored strategy), not {players} players of {rules.mode}")
    start = time.perf_counter()
    folder = run / "teacher"
    options = {k: v for k, v in rules.to_json().items() if k != "mode"}
    make_teacher_data(folder, options, dcfg, stop, progress, players)
    log(f"teacher data: {dcfg['deals']} deals in {folder} "
        f"({time.perf_counter() - start:.0f} s this session)")
    if int(dcfg.get("members", 1)) > 1:
        from pyanitsa.training.distill_members import fit_members

        nets, curves = fit_members(policy, rules, dcfg, folder, stop, progress, log, algorithm,
                                   players)
        write_curve(run, curves)
        return nets
    curve = fit_actor(policy, load_teacher_data(folder, int(dcfg["deals"])), dcfg,
                      folder / "fit.pt", stop, progress, log)
    write_curve(run, [curve])
    return []
