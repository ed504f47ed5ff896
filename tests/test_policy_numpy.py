"""Policies play from numpy: the core's observation encoding, the ``.npz`` actor and its checks,
parity with torch (logits, greedy and sampled play), and a tournament with no torch at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from pyanitsa.agents import hand_view, make_agent
from pyanitsa.dealing import deal
from pyanitsa.policies.numpy_actor import NumpyActor, actor_shapes
from pyanitsa.policies.ppo import (
    POLICIES_DIR,
    PolicyLoadError,
    PolicyMeta,
    load_numpy_policy,
)
from pyanitsa.rng import Rng
from pyanitsa.rules import preset

RULES = preset("tactical")
SHIPPED = POLICIES_DIR / "tactical-2p.pt"
RL_MODULES = ("torch", "gymnasium", "stable_baselines3", "sb3_contrib", "pettingzoo")
SITECUSTOMIZE = f"""
import sys

class Absent:
    # as if not installed (None in sys.modules would break scipy, which probes sys.modules)
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {RL_MODULES!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

sys.meta_path.insert(0, Absent())
"""


def run_python(code: str, tmp_path: Path, *, block: bool) -> str:
    """``code`` in a fresh interpreter; with ``block``, importing any RL library fails there and
    in every process it starts (a ``sitecustomize`` on ``PYTHONPATH``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if block:
        site = tmp_path / "site"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
        env["PYTHONPATH"] = str(site)
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"subprocess failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def played_observations(deals: int, seed: int = 0) -> np.ndarray:
    """Every observation of both seats ordering their hands at random, ``deals`` deals."""
    from pyanitsa.observation import TacticalLayout, TacticalSeat

    lay = TacticalLayout(RULES, 2)
    rng = np.random.default_rng(seed)
    out = []
    for i in range(deals):
        d = deal(RULES, 2, Rng(seed + i))
        for s in (0, 1):
            seat = TacticalSeat(lay)
            seat.deal(s, d.seats[s])
            while not seat.done:
                out.append(seat.obs.copy())
                seat.play(int(rng.choice(np.flatnonzero(seat.mask))))
    return np.array(out)


def views(n: int, seed: int = 0) -> list:
    out = []
    for i in range(n):
        d = deal(RULES, 2, Rng(seed + i))
        out.append(hand_view(RULES, i % 2, d.seats, len(d.set_aside)))
    return out


# -- the encoding in the core ---------------------------------------------------------------------


def test_the_observation_encodes_without_gymnasium(tmp_path):
    code = ("import json; from pyanitsa.observation import TacticalLayout, TacticalSeat\n"
            "from pyanitsa.rules import preset\n"
            "s = TacticalSeat(TacticalLayout(preset('tactical'), 2)); s.deal(1, list(range(18)))\n"
            "s.play(3); s.play(0); print(json.dumps([s.obs.tolist(), s.mask.tolist()]))")
    obs, mask = json.loads(run_python(code, tmp_path, block=True))

    from pyanitsa import observation
    from pyanitsa.envs import tactical

    assert tactical.TacticalSeat is observation.TacticalSeat
    assert issubclass(tactical.TacticalLayout, observation.TacticalLayout)
    env = tactical.TacticalEnv("tactical", seat=1)
    env.reset(seed=0)
    env._me.deal(1, list(range(18)))
    env.step(3)
    got, _, _, _, info = env.step(0)
    assert got.tolist() == obs and info["action_mask"].tolist() == mask
    assert env.observation_space.shape == (len(obs),)


# -- the numpy actor ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch_policies(tmp_path_factory):
    """The shipped policy and a small Tanh one saved by ``save_policy``: (path, torch policy;
    an ensemble's: a list of them)."""
    torch = pytest.importorskip("torch")
    from pyanitsa.policies.ppo import build_policy, load_policy, save_policy

    torch.manual_seed(1)
    m = PolicyMeta("MaskablePPO", {"pi": [64, 32], "vf": [16]}, "Tanh", RULES.to_json(), 2,
                   192, 9, {"seed": 1})
    small = save_policy(build_policy(m), m, tmp_path_factory.mktemp("np") / "net")
    return [(p, load_policy(p)[0]) for p in (SHIPPED, small)]


@pytest.mark.usefixtures("one_torch_thread")
def test_numpy_logits_equal_torch_logits(torch_policies):
    import torch

    from pyanitsa.policies.ppo import action_logits

    obs = played_observations(200)
    assert len(obs) == 200 * 2 * 18
    for path, policy in torch_policies:
        actors, _ = load_numpy_policy(path)
        nets = policy if isinstance(policy, list) else [policy]
        actors = actors if isinstance(actors, list) else [actors]
        assert len(actors) == len(nets)
        for actor, net in zip(actors, nets, strict=True):
            with torch.no_grad():
                want = action_logits(net, torch.from_numpy(obs)).numpy()
            got = actor.logits(obs)
            assert got.shape == want.shape
            assert np.abs(got - want).max() < 1e-5, path


@pytest.mark.usefixtures("one_torch_thread")
@pytest.mark.parametrize("greedy", [True, False])
def test_numpy_play_is_torch_play(torch_policies, greedy):
    """Greedy and sampled (the default: the same rng draws the same order on both backends)."""
    vs = views(1500, seed=7)
    for path, _ in torch_policies:
        flag = ", greedy=True" if greedy else ""
        fast = make_agent(f"ppo:{path}(backend=numpy{flag})")
        slow = make_agent(f"ppo:{path}(backend=torch{flag})")
        assert all(isinstance(m, NumpyActor) for m in fast.members)
        assert not any(isinstance(m, NumpyActor) for m in slow.members)
        rngs = [[np.random.default_rng(i) for i in range(len(vs))] for _ in range(2)]
        assert fast.order_hands(vs, rngs[0]) == slow.order_hands(vs, rngs[1])


def test_ppo_plays_from_numpy_when_the_npz_is_there(torch_policies, tmp_path):
    path = torch_policies[1][0]
    assert path.with_suffix(".npz").is_file()  # save_policy wrote it
    assert isinstance(make_agent(f"ppo:{path}").policy, NumpyActor)
    assert all(isinstance(m, NumpyActor) for m in make_agent("ppo:tactical-2p").members)
    # with only the .npz and the sidecar, a stem still resolves, and torch says what it lacks
    for suffix in (".npz", ".json"):
        (tmp_path / f"only{suffix}").write_bytes(path.with_suffix(suffix).read_bytes())
    assert isinstance(make_agent(f"ppo:{tmp_path / 'only'}").policy, NumpyActor)
    with pytest.raises(ValueError, match="only.pt is missing"):
        make_agent(f"ppo:{tmp_path / 'only'}(backend=torch)")
    with pytest.raises(ValueError, match="backend"):
        make_agent("ppo:tactical-2p(backend=jax)")


# -- a tampered .npz is refused before it is read -------------------------------------------------


@pytest.fixture
def npz_copy(tmp_path):
    """The shipped policy's first network as a one-network policy (its sidecar without
    ``members``, its arrays under their one-network names), with a writer of ``.npz`` files."""
    side = json.loads(SHIPPED.with_suffix(".json").read_text())
    pre = "m0." if side.pop("members", 1) > 1 else ""
    (tmp_path / "p.json").write_text(json.dumps(side))
    meta = PolicyMeta.from_json(side, "p.json")
    shipped = np.load(SHIPPED.with_suffix(".npz"), allow_pickle=False)
    good = {k[len(pre):]: shipped[k] for k in shipped.files if k.startswith(pre)}
    assert set(good) == set(actor_shapes(meta))

    def write(arrays):
        with open(tmp_path / "p.npz", "wb") as f:
            np.savez(f, **arrays)
        return tmp_path / "p.pt"
    return good, write


def test_a_tampered_npz_is_one_clear_line(npz_copy):
    good, write = npz_copy
    w = good["pi.0.weight"]
    cases = {
        "members differ": {**good, "extra": np.zeros(1, np.float32)},
        f"pi.0.weight: a <f4 array of shape {w.T.shape}": {**good, "pi.0.weight": w.T.copy()},
        "Fortran order": {**good, "pi.0.weight": np.asfortranarray(w)},
        "bytes, but the sidecar": {**good, "pi.0.weight": w.astype(np.float64)},
        # as many bytes as the float32 bias, and one number less elsewhere to keep the total
        "pi.0.bias: a <f2": {**good, "pi.0.bias": np.zeros(2 * w.shape[0], np.float16),
                             "pi.1.bias": np.zeros(good["pi.1.bias"].size - 1, np.float32)},
    }
    for want, arrays in cases.items():
        with pytest.raises(PolicyLoadError) as info:
            load_numpy_policy(write(arrays))
        msg = str(info.value)
        assert want in msg and "\n" not in msg, (want, msg)
    assert isinstance(load_numpy_policy(write(good))[0], NumpyActor)


def test_a_sidecar_asking_for_more_than_the_npz_holds_is_refused(npz_copy):
    good, write = npz_copy
    path = write(good)
    side = json.loads(path.with_suffix(".json").read_text())
    side["net_arch"] = {"pi": [4096] * 8, "vf": [1]}
    path.with_suffix(".json").write_text(json.dumps(side))
    need = 4 * sum(int(np.prod(s)) for s in actor_shapes(
        PolicyMeta.from_json(side, "p.json")).values())
    with pytest.raises(PolicyLoadError, match=f"{path.with_suffix('.npz').stat().st_size:,} bytes, but the "
                                              f"sidecar.s net_arch needs {need:,}"):
        load_numpy_policy(path)


def test_a_pickled_npz_member_is_never_unpickled(npz_copy, tmp_path):
    good, write = npz_copy
    path = write(good)
    # the same bytes, one member replaced by a pickled object array of the same length
    evil = np.array([object()] * 1, dtype=object)
    npz = path.with_suffix(".npz")
    with zipfile.ZipFile(npz) as z:
        members = {n: z.read(n) for n in z.namelist()}
    import io

    buf = io.BytesIO()
    np.save(buf, evil, allow_pickle=True)
    members["action.bias.npy"] = buf.getvalue().ljust(len(members["action.bias.npy"]), b" ")
    with zipfile.ZipFile(npz, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)
    with pytest.raises(PolicyLoadError, match=r"action.bias: a \|O array"):
        load_numpy_policy(path)


def test_an_npz_member_without_npy_is_refused(npz_copy):
    """np.load reads a member "x" for key "x" before "x.npy": a second, unchecked copy."""
    good, write = npz_copy
    npz = write(good).with_suffix(".npz")
    with zipfile.ZipFile(npz, "a") as z:
        z.writestr("pi.0.bias", z.read("pi.0.bias.npy"))
    with pytest.raises(PolicyLoadError, match=r"unexpected \['pi.0.bias'\], 7 in all"):
        load_numpy_policy(npz.with_suffix(".pt"))


# -- playing with no RL library installed ---------------------------------------------------------

TOURNAMENT = """
import json, sqlite3, sys
from pyanitsa.tournaments import run
spec = {spec!r}
summary = run({{"agents": [{{"name": "ppo", "spec": "ppo:tactical-2p" + spec}},
                {{"name": "ppo_greedy", "spec": "ppo:tactical-2p(greedy=True" +
                  spec.replace("(", ", ").rstrip(")") + ")"}}, "descending", "random"],
             "rules": "tactical", "deals": 8, "seed": 5, "workers": 2, "bootstrap": 0,
             "output": "out"}}, overwrite=True, reports=False)
db = sqlite3.connect("out/tournament.db")
rows = db.execute("SELECT pairing, deal, rotation, seats, outcome, points, scores, record, "
                  "forfeit_kind FROM games ORDER BY pairing, deal, rotation").fetchall()
print(json.dumps({{"rows": rows, "torch": "torch" in sys.modules,
                  "standings": [(s.name, s.games, s.wins, s.draws, s.losses, s.forfeits)
                                for s in summary.standings]}}))
"""


def test_a_tournament_without_torch_plays_as_with_torch(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    bare = json.loads(run_python(TOURNAMENT.format(spec=""), tmp_path / "a", block=True))
    full = json.loads(run_python(TOURNAMENT.format(spec="(backend=torch)"), tmp_path / "b",
                                 block=False))
    assert not bare["torch"] and full["torch"]
    assert len(bare["rows"]) == 6 * 8 * 2
    assert all(row[-1] is None for row in bare["rows"]), "a forfeit"
    assert bare["rows"] == full["rows"]
    assert bare["standings"] == full["standings"]
