"""``pyanitsa train CONFIG.yaml [--set key=value ...]``: train an ordering policy."""

from __future__ import annotations

import argparse
import sys

from pyanitsa.cli.argtypes import add_set_argument


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train", help="train a tactical hand-ordering policy (MaskablePPO) from a YAML config",
        description="Train a tactical hand-ordering policy with stable-baselines3 against an "
                    "opponent pool (scripted, search, frozen snapshots of the learner), with "
                    "periodic duplicate evaluation. The run folder (out_dir) gets model.pt + "
                    "model.json (play it with --agents ppo:OUT_DIR), model.zip, config.yaml, "
                    "run.json, eval.csv and learning_curve.png. Fields: --help-config.",
        epilog="examples:\n"
               "  pyanitsa train configs/train/smoke.yaml --check   # the config, resolved\n"
               "  pyanitsa train configs/train/smoke.yaml --set total_steps=2000\n"
               "  pyanitsa train configs/train/smoke.yaml --resume   # after a Ctrl-C")
    p.add_argument("config", metavar="CONFIG.yaml", nargs="?",
                   help="the training config (examples in configs/train/)")
    add_set_argument(p, "total_steps=20000, out_dir=/tmp/run, opponents.0.weight=2")
    p.add_argument("--check", action="store_true",
                   help="validate the config, print it resolved, and exit")
    p.add_argument("--help-config", action="store_true",
                   help="list every config field with its default and meaning")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no log lines")
    p.add_argument("--resume", action="store_true",
                   help="continue the run from the checkpoint in its folder (the same CONFIG "
                        "and --set values; Ctrl-C or SIGTERM saves one and says so)")
    p.add_argument("--force", action="store_true",
                   help="overwrite an existing export: policy, and start over a run folder "
                        "holding an unfinished run's checkpoint")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pyanitsa.training.train import config_help, load_config

    if args.help_config:
        print("Config fields (YAML keys; nested ones as dotted --set paths):")
        print(config_help())
        return 0
    if not args.config:
        print("pyanitsa train: error: give a CONFIG.yaml (see configs/train/)", file=sys.stderr)
        return 2
    overrides = list(args.overrides)
    if args.quiet:
        overrides.append("progress=false")
    cfg = load_config(args.config, overrides)
    if args.check:
        import yaml

        print(yaml.safe_dump(cfg.model_dump(mode="json"), sort_keys=False), end="")
        return 0
    from pyanitsa.training.checkpoint import TrainingStopped
    from pyanitsa.training.train import train

    log = (lambda msg: None) if args.quiet else None
    try:
        run_dir = train(cfg, log=log, resume=args.resume, force=args.force)
    except TrainingStopped as stop:
        print(f"pyanitsa train: {stop}; checkpoint {stop.path}; resume with: "
              f"{resume_command(args)}", file=sys.stderr)
        return 128 + stop.signum  # 130 for SIGINT, 143 for SIGTERM, as the shell reports them
    print(run_dir / "model.pt")
    return 0


def resume_command(args: argparse.Namespace) -> str:
    """The command line that resumes this run: the same config and --set values."""
    import shlex

    words = ["pyanitsa", "train", args.config]
    for o in args.overrides:
        words += ["--set", o]
    words += ["--quiet"] if args.quiet else []
    return shlex.join([*words, "--resume"])
