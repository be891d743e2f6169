"""The shopping half of rewardgym: session data, the synthetic shopper and ``ShopSession-v0``."""

from __future__ import annotations

from rewardgym.envs.shopping.context import build_context
from rewardgym.envs.shopping.loaders import load_jsonl, load_opera, load_parquet
from rewardgym.envs.shopping.metrics import ShopMetrics, shop_metrics
from rewardgym.envs.shopping.parsing import ParsedOutput, format_output, parse_output
from rewardgym.envs.shopping.schema import (
    ACTION_TYPES,
    DataValidationError,
    ShopAction,
    ShopSession,
    ShopStep,
    actions_match,
    normalize_text,
)
from rewardgym.envs.shopping.session_log import SessionLog, write_session_log
from rewardgym.envs.shopping.session_sources import default_session_log, resolve_sessions

__all__ = [
    "ACTION_TYPES",
    "DataValidationError",
    "ParsedOutput",
    "SessionLog",
    "ShopAction",
    "ShopMetrics",
    "ShopSession",
    "ShopStep",
    "actions_match",
    "build_context",
    "default_session_log",
    "format_output",
    "load_jsonl",
    "load_opera",
    "load_parquet",
    "normalize_text",
    "parse_output",
    "resolve_sessions",
    "shop_metrics",
    "write_session_log",
]
