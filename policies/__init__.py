"""Trained policies, installed as ``pyanitsa.policies``: the ``ppo:`` agent, the numpy actor that
plays without torch, the feature extractors, policy files and their metadata, and the shipped
policies (``shipped/``).

Training them is :mod:`pyanitsa.training`, above this wing; playing them needs neither the
envs nor torch. Nothing is imported here.
"""
