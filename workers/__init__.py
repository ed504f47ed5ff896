"""Workers, installed as ``pyanitsa.workers``: what plays scheduled games in other processes.

A worker builds the agents once from a :class:`~pyanitsa.workers.worker.WorkerConfig` and
plays games by key (:mod:`~pyanitsa.workers.schedule`), scoring each as a row
(:mod:`~pyanitsa.workers.games`), while its parent reads where it is deciding
(:mod:`~pyanitsa.workers.worker`). The backends run them: a local process pool
(:mod:`~pyanitsa.workers.pool`) or Ray actors (:mod:`~pyanitsa.workers.ray_backend`), their
output capped (:mod:`~pyanitsa.workers.output`); :mod:`~pyanitsa.workers.deaths` decides what
happens to the games of a worker that was lost. Tournaments drive them; this wing knows
nothing of tournaments.
"""
