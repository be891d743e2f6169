"""Every rewardgym environment, registered with Gymnasium under the ``rewardgym/`` namespace.

Entry points are strings (Minari serialises env specs and rejects callables), and an id's
``-vN`` suffix is bumped whenever its behaviour changes.
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

SHOP_SESSION_ID = "rewardgym/ShopSession-v0"
SHOP_STORE_ID = "rewardgym/ShopStore-v0"
HOUSEHOLD_V0_ID = "rewardgym/Household-v0"
HOUSEHOLD_ID = "rewardgym/Household-v1"
TRAJECTORY_REPLAY_ID = "rewardgym/TrajectoryReplay-v0"
VIRTUALHOME_ID = "rewardgym/VirtualHome-v0"
BABYAI_TEXT_LEVELS = ("GoToLocal", "PickupLoc", "PutNextLocal")


def babyai_text_id(level: str) -> str:
    """The registered id of the text version of BabyAI level ``level``."""
    return f"rewardgym/BabyAI-{level}-Text-v0"


def _register_all() -> None:
    if SHOP_SESSION_ID in registry:
        return
    register(id=SHOP_SESSION_ID, entry_point="rewardgym.envs.shopping.env:ShopSessionEnv")
    register(id=SHOP_STORE_ID, entry_point="rewardgym.envs.shopping.live.env:ShopStoreEnv")
    register(id=HOUSEHOLD_V0_ID, entry_point="rewardgym.envs.household.v0.env:HouseholdEnv")
    register(id=HOUSEHOLD_ID, entry_point="rewardgym.envs.household.v1.env:HouseholdV1Env")
    register(id=VIRTUALHOME_ID, entry_point="rewardgym.envs.virtualhome.env:VirtualHomeEnv")
    register(
        id=TRAJECTORY_REPLAY_ID,
        entry_point="rewardgym.envs.trajectories.replay:TrajectoryReplayEnv",
    )
    for level in BABYAI_TEXT_LEVELS:
        register(
            id=babyai_text_id(level),
            entry_point="rewardgym.envs.babyai.text_env:BabyAITextEnv",
            kwargs={"level": level},
        )


_register_all()


def rewardgym_ids() -> list[str]:
    """Every registered ``rewardgym/*`` environment id, sorted."""
    return sorted(env_id for env_id in registry if env_id.startswith("rewardgym/"))


__all__ = [
    "BABYAI_TEXT_LEVELS",
    "HOUSEHOLD_ID",
    "HOUSEHOLD_V0_ID",
    "SHOP_SESSION_ID",
    "SHOP_STORE_ID",
    "TRAJECTORY_REPLAY_ID",
    "VIRTUALHOME_ID",
    "babyai_text_id",
    "rewardgym_ids",
]
