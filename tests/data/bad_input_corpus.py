"""The bad-input corpus of tests/test_bad_input_corpus.py: tables of (input channel x bad
value) across every subcommand, the cases built from them, and the files they name.

A case is ``(name, argv, expected exit code)``; ``{tmp}`` in an argument is the folder that
:func:`write_files` fills.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

HUGE = "9" * 5000  # over Python's 4,300-digit limit for int()
TWO64 = str(2**64)
EMPTY = '""'
ROOT = Path(__file__).resolve().parents[2]

# -- bad values, by what the flag expects ---------------------------------------------------------

NOT_INT = ["", " ", "abc", "1.5", "1e3", "0x10", "nan", "inf", "-inf", "true", "[1]", "１２",
           "٣", "1_000", HUGE, "5 5", "\x00", "ß"]
BAD = {
    "seed": NOT_INT + ["-1", TWO64, "-" + TWO64, "-" + HUGE],
    "count": NOT_INT + ["0", "-1", "-" + HUGE, TWO64],
    "nonneg": NOT_INT + ["-1", "-" + HUGE],
    "seconds": ["", "abc", "nan", "-nan", "inf", "-inf", "0", "-0", "-1", "1e400", "1e-400",
                "true", "1,5", "one"],
    "workers": NOT_INT + ["0", "-1", "-" + HUGE],
    "players": NOT_INT + ["0", "1", "9", "-2", TWO64],
}

FLAGS = [  # (command prefix, flag, kind)
    (["play"], "--seed", "seed"),
    (["play"], "--players", "players"),
    (["play", "--agents", "random,random"], "--time-limit", "seconds"),
    (["simulate"], "--games", "count"),
    (["simulate", "--games", "3"], "--seed", "seed"),
    (["simulate", "--games", "3"], "--workers", "workers"),
    (["simulate", "--games", "3"], "--players", "players"),
    (["enumerate", "--deck", "ranks=2,suits=2"], "--workers", "count"),
    (["solve", "--hand", "1", "--hand", "2", "--deck", "ranks=2,suits=1"], "--max-orders",
     "workers"),  # any bound over 0 is a bound: 2^64 orders is no bad input
    (["exploit", "descending"], "--deals", "count"),
    (["exploit", "descending", "--deals", "1"], "--seed", "seed"),
    (["exploit", "random", "--deals", "1"], "--samples", "count"),
    (["exploit", "random", "--deals", "1"], "--fresh", "count"),
    (["report", "{tmp}/adir"], "--bootstrap", "nonneg"),
    (["demo"], "--seed", "seed"),
]
# Fewer values for the slower commands keep the file fast; the slow sweep takes all of them.
FAST_KINDS = {"exploit": 8, "solve": 8, "report": 8}


def _flag_cases(full: bool) -> list[tuple[str, list[str], int]]:
    cases = []
    for prefix, flag, kind in FLAGS:
        values = BAD[kind]
        if not full and prefix[0] in FAST_KINDS:
            values = values[::max(1, len(values) // FAST_KINDS[prefix[0]])]
        for i, value in enumerate(values):
            cases.append((f"{prefix[0]}{flag}-{i}", [*prefix, flag, value], 2))
    return cases


# -- rules: --set KEY=VALUE, --rules FILE, --deck, --preset ---------------------------------------

LITERAL_BAD = ["sideways", "", "TABLE", "1", "[a]", "{a: 1}", "null", "ÿ", "true", ".nan"]
BOOL_BAD = ["maybe", "2", "-1", "", "[true]", "{a: 1}", "null", "yes please", ".inf"]
INT_BAD = ["-1", "1.5", ".nan", ".inf", "-.inf", HUGE, "true", "[1]", "{a: 1}", "", "null",
           "abc", "1e3", "0x"]
RULE_KEYS = {
    "mode": ["chess", "", "[1]", "{a: 1}", "null", "TACTICAL", "7"],
    "cycle_rule": LITERAL_BAD, "dispute": LITERAL_BAD, "dispute_exhausted": LITERAL_BAD,
    "pickup_to": LITERAL_BAD, "refill": LITERAL_BAD, "pickup_order": LITERAL_BAD,
    "deal": LITERAL_BAD,
    "weakest_beats_ace": BOOL_BAD, "misere": BOOL_BAD, "new_tour_on_elimination": BOOL_BAD,
    "detect_cycles": BOOL_BAD,
    "stakes": [*INT_BAD, "0", "1000000", "9223372036854775808"],
    "max_rounds": [*INT_BAD, "0", "18446744073709551616"],
    "dealer": [*INT_BAD, "2", "99", "rand", "RANDOM"],
    "deck": ["banana", "", "0", "37", "-36", "[36]", "{ranks: 0}", "ranks=0,suits=4",
             f"ranks={HUGE},suits=1", "ranks=100000,suits=100000", "ranks=4,suits=4,jokers=-1",
             "ranks=4,suits=4,jokers=1000000000", "ranks=4,suits=4,colour=2",
             "ranks=a,suits=b", "ranks=4,ranks=5,suits=1", "ranks=4,suits=1.5"],
    "preset": ["nope", "", "[1]", "{a: 1}", "CLASSIC-RU", "7"],
}
SET_SHAPES = ["=5", "max_rounds", "max_rounds==3", "colour=blue", "ÿ=1", " =1", "MODE=classic",
              "rules.max_rounds=3", "max_rounds=3=4", "\x00=1"]
DECKS = RULE_KEYS["deck"] + ["52,36", "ranks=4,suits=4,", ",", "ranks=,suits=", "ranks=-4,suits=-4",
                             "ranks=4;suits=4", "ranks=٣,suits=٣", "ranks=1,suits=1"]


def _rules_cases() -> list[tuple[str, list[str], int]]:
    cases = []
    for key, values in RULE_KEYS.items():
        for i, value in enumerate(values):
            cases.append((f"set-{key}-{i}", ["play", "--set", f"{key}={value}"], 2))
            cases.append((f"rules-{key}-{i}", ["play", "--rules", f"{{tmp}}/rules_{key}_{i}.yaml"],
                          2))
    cases += [(f"set-shape-{i}", ["play", "--set", s], 2) for i, s in enumerate(SET_SHAPES)]
    cases += [(f"deck-{i}", ["simulate", "--games", "3", "--deck", d], 2)
              for i, d in enumerate(DECKS)]
    cases += [(f"preset-{i}", ["enumerate", "--preset", p], 2)
              for i, p in enumerate(["", "nope", "tactical", "war-52", "ÿ" * 300])]
    cases += [(f"mode-{i}", ["play", "--mode", m], 2) for i, m in enumerate(["", "chess", "Classic"])]
    for cmd in (["simulate", "--games", "3"], ["enumerate"], ["exploit", "descending"],
                ["solve", "--hand", "1", "--hand", "2"]):
        for what in ("missing", "adir", "binary", "list", "scalar", "empty_key", "deep", "alias",
                     "tabs", "python_tag", "dup_key", "bom_nul"):
            cases.append((f"{cmd[0]}-rules-{what}", [*cmd, "--rules", f"{{tmp}}/r_{what}.yaml"], 2))
    return cases


def _write_rules_files(tmp: Path) -> None:
    for key, values in RULE_KEYS.items():
        for i, value in enumerate(values):
            (tmp / f"rules_{key}_{i}.yaml").write_text(f"{key}: {value or EMPTY}\n")
    files = {
        "adir": None, "binary": b"\x89PNG\r\n\x1a\n\x00\x00\xff", "list": b"- 1\n- 2\n",
        "scalar": b"classic-ru\n", "empty_key": b": 3\n", "deep": b"a: " + b"[" * 5000 + b"]" * 5000,
        "alias": b"a: &a [1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                 b"c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
                 b"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n",
        "tabs": b"preset:\tclassic-ru\n\tmisere: true\n", "python_tag": b"a: !!python/object/apply:os.system ['true']\n",
        "dup_key": b"stakes: 1\nstakes: x\n", "bom_nul": b"\xef\xbb\xbfpreset: classic-ru\x00\n",
    }
    for name, data in files.items():
        path = tmp / f"r_{name}.yaml"
        if data is None:
            path.mkdir()
        else:
            path.write_bytes(data)


# -- agent specs: play, simulate, exploit, tournament, train --------------------------------------

SPECS = [
    "", " ", "no_such_agent", "Random", "random(", "random)", "random(x=1)", "random(1)",
    "random(**{})", "random[0]", "random()()", "mc_search(samples=-1)", "mc_search(samples=0)",
    "mc_search(samples=nan)", "mc_search(samples='a')", f"mc_search(samples={HUGE})",
    "mc_search(samples=10**100)", "mc_search(samples=1, samples=2)", "mc_search(budget_ms=-5)",
    "mc_search(budget_ms=inf)", "mc_search(budget_ms=nan)", "mc_search(opponent='nope')",
    "mc_search(objective='x')", "mc_search(samples=True)", "mc_search(samples=[1])",
    "strongest_first(k=-1)", "strongest_first(k=1.5)", "strongest_first(k='3')",
    "mixed(pool='')", "mixed(pool='nope')", "mixed(weights='a')", "mixed(pool='random',weights='1,2')",
    "mixed(pool='mixed(pool=\\'x\\')')", "sacrifice(assume='nope')", "equilibrium(max_orders=0)",
    "equilibrium(fallback='nope')", "equilibrium(objective=1)", "nash(iterations=0)",
    "nash(max_states=-1)", "nash(strategy='/no/such.npz')", "nash(strategy=3)",
    "nash(strategy='{tmp}/binary.pt')", "best_response(target='nope')",
    "best_response(samples=0)",
    "best_response(target=" + "'best_response(target=" * 60 + "1" + ")'" * 60 + ")",
    "random(" * 2000, "pickup_table(x=1)", "human(stdin=3)", "human(stdout='x')",
    "os:system", "os:system(command='true')", "builtins:eval", "builtins:exec(source='1')",
    "subprocess:Popen(args='true')", "pyanitsa.rules:Rules", "pyanitsa.agents:BaseAgent",
    "no.such.module:X", ":X", "os:", ":", "os:path.join", "pyanitsa.agents:register",
    "__import__('os').system('true')", "lambda: 0", "random; rm -rf /", "${HOME}", "../../etc/passwd",
    "случайный", "ÿ" * 500, "\x00", "random\nrandom", "cmd:", "cmd:/no/such/program",
    "cmd:{tmp}/adir", "cmd:{tmp}/binary.pt", "cmd:'unbalanced", "cmd:true(timeout=-1)",
    "cmd:true(timeout=nan)", "cmd:true(start_timeout=0)", "cmd:true(colour=1)", "ppo:",
    "ppo:/no/such/policy", "ppo:{tmp}/adir", "ppo:{tmp}/binary.pt", "ppo:nope-2p",
    "ppo:tactical-2p(trust=2)", "ppo:tactical-2p(colour=1)", "ppo:{tmp}/garbage.zip",
    *[f"ppo:{{tmp}}/side_{name}" for name in (
        "garbage", "list", "huge_arch", "neg_arch", "no_format", "format", "actions", "obs",
        "players", "rules", "nan", "no_pt", "bad_pt", "str_arch", "bool_arch")],
]


def _spec_cases() -> list[tuple[str, list[str], int]]:
    cases = []
    for i, spec in enumerate(SPECS):
        cases.append((f"play-agents-{i}", ["play", "--preset", "tactical", "--agents",
                                           f"{spec},random"], 2))
        cases.append((f"exploit-agent-{i}", ["exploit", spec, "--deals", "1"], 2))
    for i, spec in enumerate(SPECS[::5]):
        cases.append((f"simulate-agents-{i}", ["simulate", "--games", "2", "--preset", "tactical",
                                               "--agents", f"random,{spec}"], 2))
    cases += [(f"play-agents-shape-{i}", ["play", "--agents", a], 2) for i, a in enumerate(
        ["", ",", "random", ",random", "random,,random", ",".join(["random"] * 9),
         "random(a=1) + (2)"])]
    return cases


def _write_sidecars(tmp: Path) -> None:
    good = json.loads((ROOT / "policies" / "shipped" /
                       "tactical-2p.json").read_text())
    pt = (ROOT / "policies" / "shipped" / "tactical-2p.pt")
    edits = {
        "list": [1, 2], "huge_arch": {**good, "net_arch": [60000, 60000]},
        "neg_arch": {**good, "net_arch": {"pi": [-5], "vf": [0]}},
        "no_format": {k: v for k, v in good.items() if k != "format"},
        "format": {**good, "format": "pyanitsa-policy/99"}, "actions": {**good, "actions": -1},
        "obs": {**good, "obs_size": 10**12}, "players": {**good, "players": 99},
        "rules": {**good, "rules": {"mode": "chess"}}, "nan": {**good, "actions": float("nan")},
        "deep": {**good, "config": json.loads("[" * 500 + "]" * 500)},
        "str_arch": {**good, "net_arch": "big"}, "bool_arch": {**good, "net_arch": [True]},
        "no_pt": good, "bad_pt": good,
    }
    for name, obj in edits.items():
        (tmp / f"side_{name}.json").write_text(json.dumps(obj))
        if name not in ("no_pt",):
            data = b"not a torch file" if name == "bad_pt" else pt.read_bytes()
            (tmp / f"side_{name}.pt").write_bytes(data)
    (tmp / "side_garbage.json").write_text("{not json")
    (tmp / "side_garbage.pt").write_bytes(pt.read_bytes())
    (tmp / "garbage.zip").write_bytes(b"PK\x03\x04 not a zip")


# -- tournament configs: every field of tournaments/config.py wrong -------------------------------

T_BASE = {"agents": ["descending", "ascending"], "rules": {"preset": "tactical",
          "deck": "ranks=4,suits=2"}, "players": 2, "deals": 1, "bootstrap": 0,
          "output": "{tmp}/t_out"}
STR_BAD = ["", 7, [1], {"a": 1}, None, True, "ÿ" * 5000]
NUM_BAD = ["abc", "", -1, 0, 1.5, True, [1], {"a": 1}, None, float("nan"), float("inf"), 10**30]
T_FIELDS = {
    "name": STR_BAD, "players": [*NUM_BAD, 1, 9, 3],
    "agents": [[], ["random"], "random", None, [1, 2], [{"spec": "random"}, {"spec": "random"}],
               [{"name": "a"}, {"name": "b"}], [{"name": "", "spec": "x"}, "random"],
               ["random", {"spec": "random", "colour": 1}], ["random", {"name": "x" * 61,
                                                                        "spec": "random"}],
               [{"name": "a", "spec": ""}, "random"], ["random", "os:system"], {"a": 1}],
    "rules": [[1, 2], 7, {"preset": {"a": 1}}, {"preset": [1]}, {"colour": 1},
              {"max_rounds": 2**63}, {"deck": "ranks=1,suits=1"}, {"mode": "chess"}, "nope"],
    "format": STR_BAD + ["swiss", "ROUND_ROBIN"], "candidate": ["nobody", 3, [1], ""],
    "deals": [*NUM_BAD, 10**12 + 1, 2**63], "duplicate": ["yes please", 2, [1], None, "nan"],
    # (null is no bad seed: a config without one draws it)
    "seed": [*NUM_BAD[:3], *NUM_BAD[4:6], 2**64, -(2**64), [1], float("nan")],
    "agent_key": STR_BAD + ["secret"], "workers": [*NUM_BAD, 513],
    "backend": STR_BAD + ["cloud"], "ray_address": [7, [1], {"a": 1}],
    "time_limit": ["abc", "", -1, 0, True, [1], float("nan"), float("inf"), float("-inf")],
    "engine": STR_BAD + ["gpu"], "hang_timeout": ["abc", -1, 0, float("nan"), float("inf"),
                                                  True],
    "sprt": [7, "x", [1], {"elo0": 10, "elo1": 5}, {"alpha": 0}, {"alpha": 0.5}, {"beta": -1},
             {"colour": 1}, {"elo0": float("nan")}, {"elo1": float("inf")}, {"alpha": "x"}],
    "bootstrap": [*NUM_BAD[:3], *NUM_BAD[4:8], 100_001],  # 0: no bootstrap
    "output": ["", 7, [1], "{tmp}/afile", "{tmp}/afile/sub", "{tmp}/garbage_db",
               "{tmp}/dir_db", "{tmp}/schema_db", "/proc/no/such", "\x00"],
    "exploit": [7, "x", [1], {"deals": 0}, {"samples": -1}, {"fresh": "x"}, {"seed": -1},
                {"colour": 1}, {"deals": 10**7}, {"deals": True}],
}


def _yaml(obj) -> str:
    import yaml

    return yaml.safe_dump(obj, allow_unicode=True)


def _tournament_cases() -> list[tuple[str, list[str], int]]:
    cases = []
    for field, values in T_FIELDS.items():
        for i, _ in enumerate(values):
            cases.append((f"tournament-{field}-{i}", ["tournament", f"{{tmp}}/t_{field}_{i}.yaml",
                                                       "--quiet"], 2))
    base = ["tournament", "{tmp}/t_base.yaml", "--quiet"]
    for i, s in enumerate(["deals", "=1", "deals=abc", "seed=-1", "agents.-1=x", "agents.x=y",
                           "agents.9=x", "rules.=x", "nope.deep=1", "deals.x=1", "rules.preset=[",
                           f"deals={HUGE}", "agents=random", "rules.deck=banana",
                           "players=1", "agents.0.spec=os:system", "agents.0.colour=1"]):
        cases.append((f"tournament-set-{i}", [*base, "--set", s], 2))
    cases += [("tournament-events-dir", [*base, "--events", "{tmp}/adir"], 2),
              ("tournament-events-missing", [*base, "--events", "{tmp}/no/such/e.jsonl"], 2),
              ("tournament-resume-overwrite", [*base, "--resume", "--overwrite"], 2)]
    for what in ("missing", "adir", "binary", "list", "scalar", "deep", "alias", "python_tag",
                 "bom_nul", "empty_key"):
        cases.append((f"tournament-file-{what}", ["tournament", f"{{tmp}}/r_{what}.yaml"], 2))
    return cases


def _write_tournaments(tmp: Path) -> None:
    def fill(value):
        return value.replace("{tmp}", str(tmp)) if isinstance(value, str) else value

    (tmp / "t_base.yaml").write_text(_yaml({k: fill(v) for k, v in T_BASE.items()}))
    for field, values in T_FIELDS.items():
        for i, value in enumerate(values):
            # each case its own output folder: one wrongly accepted run must not make the
            # others fail for "already holds a tournament" instead of their own cause
            data = {**{k: fill(v) for k, v in T_BASE.items()}, "output": f"{tmp}/t_out_{field}_{i}"}
            (tmp / f"t_{field}_{i}.yaml").write_text(_yaml({**data, field: fill(value)}))
    (tmp / "afile").write_text("a file\n")
    for name in ("garbage_db", "dir_db", "empty_db", "schema_db"):
        (tmp / name).mkdir()
    (tmp / "garbage_db" / "tournament.db").write_bytes(b"garbage" * 100)
    (tmp / "dir_db" / "tournament.db").mkdir()
    (tmp / "empty_db" / "tournament.db").write_bytes(b"")
    import sqlite3

    with contextlib.closing(sqlite3.connect(tmp / "schema_db" / "tournament.db")) as db:
        db.execute("create table games (x)")
        db.execute("create table meta (key, value)")
        db.execute("insert into meta values ('config', '{not json')")
        db.commit()


# -- train configs (configs/train/smoke.yaml, each field wrong; --check validates only) ----------

TR_FIELDS = {
    "name": STR_BAD[:6], "algorithm": ["DQN", "", 7, None], "env": [7, "x", {"id": "nope-v0"},
                                                                  {"colour": 1}],
    "env.kwargs": [7, {"rules": "nope"}, {"players": 99}, {"seat": 7}, {"reward": "x"},
                   {"opponents": ["random"]}, {"colour": 1}, {"engine": "gpu"}],
    "opponents": [[], "random", [7], [{"spec": "nope"}], [{"spec": "random", "weight": 0}],
                  [{"spec": "random", "weight": float("nan")}], [{"spec": "os:system"}]],
    "self_play": [7, {"every": -1}, {"keep": 0}, {"weight": 0}, {"colour": 1}],
    "total_steps": [*NUM_BAD[:11], None], "n_envs": [*NUM_BAD[:8], 257], "vec_env": ["fork", 7, ""],
    "seed": [-1, 2**32, "x", True, float("nan")], "torch_threads": [0, -1, "x", True],
    "eval": [7, {"every": -1}, {"deals": 0}, {"final_deals": 0}, {"baselines": ["nope"]},
             {"baselines": "random"}, {"seed": -1}],
    "ppo": [7, {"learning_rate": 0}, {"learning_rate": float("nan")}, {"n_steps": 0},
            {"batch_size": 1}, {"gamma": 2}, {"gae_lambda": -1}, {"net_arch": [60000, 60000]},
            {"net_arch": [-1]}, {"net_arch": [8] * 9}, {"net_arch": "big"}, {"activation": "Nope"},
            {"lr_schedule": "cosine"}, {"clip_range": float("inf")}],
    "out_dir": ["", 7, [1]], "export": [7, ""], "save_zip": ["maybe", 2],
    "tensorboard": ["maybe", 2], "progress": ["maybe", 2], "colour": [1],
}


def _train_cases() -> list[tuple[str, list[str], int]]:
    cases = [(f"train-{f}-{i}", ["train", f"{{tmp}}/tr_{f}_{i}.yaml", "--check"], 2)
             for f, values in TR_FIELDS.items() for i, _ in enumerate(values)]
    base = ["train", "{tmp}/tr_base.yaml", "--check"]
    cases += [(f"train-set-{i}", [*base, "--set", s], 2) for i, s in enumerate(
        ["total_steps", "total_steps=abc", "ppo.net_arch.9=3", "opponents.x=1", "nope=1",
         f"total_steps={HUGE}", "=1", "ppo.net_arch=[60000,60000]"])]
    cases += [(f"train-file-{w}", ["train", f"{{tmp}}/r_{w}.yaml", "--check"], 2)
              for w in ("missing", "adir", "binary", "list", "deep", "alias")]
    cases.append(("train-no-config", ["train"], 2))
    return cases


def _write_train(tmp: Path) -> None:
    import yaml

    base = yaml.safe_load((ROOT / "configs" / "train" /
                           "smoke.yaml").read_text())
    base["out_dir"] = str(tmp / "tr_out")
    (tmp / "tr_base.yaml").write_text(_yaml(base))
    for field, values in TR_FIELDS.items():
        for i, value in enumerate(values):
            data = json.loads(json.dumps(base))
            value = value.replace("{tmp}", str(tmp)) if isinstance(value, str) else value
            if "." in field:
                top, sub = field.split(".")
                data[top][sub] = value
            else:
                data[field] = value
            (tmp / f"tr_{field}_{i}.yaml").write_text(_yaml(data))


# -- records for replay ----------------------------------------------------------------------------

REC = {"mode": "tactical", "deck": {"ranks": 4, "suits": 2}, "rules": {},
       "hands": [[4, 3, 2, 1], [1, 2, 3, 4]]}
REC_FIELDS = {
    "mode": ["chess", 7, None, [1], {"a": 1}, ""],
    "deck": ["banana", 7, None, [1], {"ranks": 0, "suits": 2}, {"ranks": -1, "suits": 2},
             {"ranks": 10**30, "suits": 2}, {"ranks": 4}, {"ranks": 4, "suits": 2, "x": 1},
             {"ranks": 1.5, "suits": 2}, {"ranks": True, "suits": 2}, {"ranks": 100000,
                                                                      "suits": 100000}],
    "rules": [7, "x", [1], {"colour": 1}, {"max_rounds": 2**63}, {"preset": [1]},
              {"preset": {"a": 1}}, {"stakes": "x"}, {"mode": "classic"}],
    "hands": [None, 7, [], [[]], [[1, 2, 3, 4]], [[5, 3, 2, 1],
              [1, 2, 3, 4]], [[0, 3, 2, 1], [1, 2, 3, 4]], [[-1, 3, 2, 1], [1, 2, 3, 4]],
              [["x", 3, 2, 1], [1, 2, 3, 4]], [[4.0, 3, 2, 1], [1, 2, 3, 4]],
              [[True, 3, 2, 1], [1, 2, 3, 4]], [[4, 3, 2, 1], [1, 2, 3, 4]] * 5,
              [[10**30, 3, 2, 1], [1, 2, 3, 4]], [[4, 4, 4, 4], [4, 4, 4, 4]], "4321"],
    "dealer": [-1, 2, 1.5, "x", [0], True, 10**30],
    "stacks": [[[1, 2]], 7, [[0, 99], [1]]],
    "decisions": [7, "x", [[9, 9]], [None], [{"a": 1}]],
}


def _replay_cases() -> list[tuple[str, list[str], int]]:
    cases = [(f"replay-{f}-{i}", ["replay", f"{{tmp}}/rec_{f}_{i}.json"], 2)
             for f, values in REC_FIELDS.items() for i, _ in enumerate(values)]
    for name in RAW_RECORDS:
        if "expected" in name:  # only --check reads "expected"
            continue
        cases.append((f"replay-raw-{name}", ["replay", f"{{tmp}}/raw_{name}.json"], 2))
    cases += [("replay-check-no-expected", ["replay", "--check", "{tmp}/rec_ok.json"], 2),
              ("replay-check-bad-expected", ["replay", "--check", "{tmp}/raw_bad_expected.json"],
               2),
              ("replay-fifo-dir", ["replay", "{tmp}"], 2), ("replay-empty-name", ["replay", ""], 2)]
    return cases


RAW_RECORDS = {
    "empty": b"", "ws": b"   \n\n", "null": b"null", "list": b"[]", "str": b'"x"', "num": b"1e999",
    "nan": b'{"mode": NaN}', "bom": b"\xef\xbb\xbf" + json.dumps(REC).encode(),
    "utf16": json.dumps(REC).encode("utf-16"), "nul": b"\x00" * 10, "deep": b"[" * 100_000,
    "deep_obj": b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "record_num": b'{"record": 5}',
    "record_list": b'{"record": []}', "trailing": json.dumps(REC).encode() + b" x",
    "good_then_bad": json.dumps(REC).encode() + b"\n{bad\n", "dup": b'{"mode": "tactical", "mode": 7}',
    "huge_int": b'{"mode": "tactical", "dealer": ' + b"9" * 5000 + b"}",
    "bad_expected": json.dumps({"record": REC, "expected": 7}).encode(),
    "long_line": b'{"mode": "' + b"x" * 2_000_000 + b'"}', "png": b"\x89PNG\r\n\x1a\n\x00\x00",
}


def _write_records(tmp: Path) -> None:
    (tmp / "rec_ok.json").write_text(json.dumps(REC))
    for field, values in REC_FIELDS.items():
        for i, value in enumerate(values):
            (tmp / f"rec_{field}_{i}.json").write_text(json.dumps({**REC, field: value}))
    for name, data in RAW_RECORDS.items():
        (tmp / f"raw_{name}.json").write_bytes(data)


# -- report, solve hands, the top level ------------------------------------------------------------

def _other_cases() -> list[tuple[str, list[str], int]]:
    cases = [(f"report-{d}", ["report", f"{{tmp}}/{d}"], 2) for d in (
        "nowhere", "afile", "adir", "garbage_db", "dir_db", "empty_db", "schema_db")]
    cases += [("report-records-dir", ["report", "{tmp}/garbage_db", "--records", "{tmp}/adir"], 2),
              ("report-empty-name", ["report", ""], 2)]
    for i, hands in enumerate([["As"], ["As", "Kd", "Qh"], ["Zz", "As"], ["", "As"], [",", ","],
                               ["1,2", "1"], ["1,1,1,1,1", "2"], ["99", "1"], ["-1", "1"],
                               ["1.5", "1"], ["A♠", "K♦"], [HUGE, "1"], ["1," * 3000, "2"],
                               ["As,As", "Kd"], ["ÿ", "1"]]):
        cases.append((f"solve-hands-{i}", ["solve", *[a for h in hands for a in ("--hand", h)]],
                      2))
    cases += [("solve-classic", ["solve", "--preset", "classic-ru", "--hand", "1", "--hand", "2"],
               2), ("solve-objective", ["solve", "--objective", "x", "--hand", "1", "--hand", "2"], 2)]
    cases += [(f"top-{i}", argv, 2) for i, argv in enumerate(
        [["frobnicate"], ["--nonsense"], ["play", "--nonsense"], ["play", "extra"], ["agents", "x"],
         ["bench", "--only", "nope"], ["enumerate", "--engine", "gpu"], ["PLAY"], [""],
         ["play", "--seed"], ["demo", "extra"], ["report"], ["replay"], ["tournament"],
         ["exploit"], ["solve", "--objective"]])]
    return cases


SLOW_IN_FAST = ("exploit-agent-", "-rules-deep", "-file-deep")
"""Cases that take a second or more (exploit loads its solver; 5,000-deep YAML takes seconds to
refuse): the fast run keeps one in four of them."""


def corpus(full: bool = False) -> list[tuple[str, list[str], int]]:
    cases = (_flag_cases(full) + _rules_cases() + _spec_cases() + _tournament_cases()
             + _train_cases() + _replay_cases() + _other_cases())
    if full:
        return cases
    slow = [c for c in cases if any(s in c[0] for s in SLOW_IN_FAST)]
    return [c for c in cases if c not in slow] + slow[::4]


def write_files(tmp: Path) -> None:
    """Every file and folder a case names, under ``tmp``."""
    (tmp / "adir").mkdir()
    _write_rules_files(tmp)
    (tmp / "binary.pt").write_bytes(b"\x7fELF\x00\x00garbage")
    os.chmod(tmp / "binary.pt", 0o755)
    _write_sidecars(tmp)
    _write_tournaments(tmp)
    _write_train(tmp)
    _write_records(tmp)
