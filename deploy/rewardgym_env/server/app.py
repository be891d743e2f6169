"""The OpenEnv app, ``server.app:app``: ``rewardgym serve`` configured by environment variables.

``REWARDGYM_ENV_ID`` (default rewardgym/Household-v1), ``REWARDGYM_REWARD`` (e.g. shop-r1),
``REWARDGYM_SPLIT`` and ``REWARDGYM_MAX_SESSIONS`` (default 8) pick what is served; ``main``
(the ``server`` script, ``uv run server``) listens on ``HOST``:``PORT`` (0.0.0.0:8000, as in a
container; use 127.0.0.1 on a shared machine).
"""

from __future__ import annotations

import os

from rewardgym.envs import HOUSEHOLD_ID
from rewardgym.integrations.openenv_serve import Serve
from rewardgym.integrations.openenv_server import build_app

SERVE = Serve(
    env_id=os.environ.get("REWARDGYM_ENV_ID", HOUSEHOLD_ID),
    reward=os.environ.get("REWARDGYM_REWARD") or None,
    split=os.environ.get("REWARDGYM_SPLIT") or None,
    max_sessions=int(os.environ.get("REWARDGYM_MAX_SESSIONS", "8")),
)
app = build_app(
    SERVE.env_id,
    SERVE.reward,
    max_sessions=SERVE.max_sessions,
    session_timeout_s=SERVE.session_timeout,
    env_kwargs=SERVE.make_kwargs(),
)


def main() -> None:
    """Serve ``app`` on ``HOST``:``PORT`` until Ctrl-C."""
    import uvicorn

    host = os.environ.get("HOST", "0.0.0.0")
    uvicorn.run(app, host=host, port=int(os.environ.get("PORT", "8000")), log_level="warning")


if __name__ == "__main__":
    main()
