"""rewardgym reached through other projects' conventions: an OpenEnv server and verifiers tasksets.

Each lives behind an optional extra (``rewardgym[openenv]``, ``rewardgym[verifiers]``) and is
imported only by the code that uses it, so ``import rewardgym`` never needs either package.
"""
