#!/usr/bin/env bash
# The trainer's GPU checks in one call of under ten minutes, each part under its own time
# limit. Each part's table and log go to $OUT/logs.tgz as it finishes (and the tables to
# $OUT/summary.txt), so a call cut short still brings back what finished:
#   1. decode speed: StaticDecoder (CUDA graph, compiled graph) against model.generate and the
#      floor, 34M model, batch 64, prompt 512, 256 new tokens, bfloat16;
#   2. the same in float32, greedy, for token-for-token equality with model.generate;
#   3. one GRPO step of ours against TRL's GRPOTrainer (needs trl and datasets);
#   4. a short GRPO run end to end on the Zendesk tasks (benchmarks/grpo_demo.sh), before and
#      after, curves included.
#
#   bash benchmarks/gpu_check.sh            # all parts
#   PARTS="decode equal" bash benchmarks/gpu_check.sh
set -uo pipefail
OUT=${OUT:-runs/gpu-check}
PARTS=${PARTS:-decode equal trl demo}
LOGS=$(mktemp -d)
mkdir -p "$OUT"
here=$(dirname "$0")
[ -d /tmp/site/bin ] && export PATH=/tmp/site/bin:$PATH

part() {  # part NAME SECONDS COMMAND...: run it under a limit, its output to $OUT/NAME.txt
    local name=$1 limit=$2
    shift 2
    local start=$SECONDS
    timeout "$limit" "$@" >"$LOGS/$name.txt" 2>"$LOGS/$name.log"
    local rc=$?
    echo "== $name: exit $rc after $((SECONDS - start)) s (limit $limit s)" | tee -a "$OUT/summary.txt"
    tail -n 14 "$LOGS/$name.txt" | tee -a "$OUT/summary.txt"
    tar -czf "$OUT/logs.tgz" -C "$LOGS" .
}

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'
} 2>&1 | tee "$OUT/summary.txt"

for p in $PARTS; do
    case $p in
    decode) part decode 150 python3 "$here/bench_decode.py" --repeats 1 ;;
    equal) part equal 90 python3 "$here/bench_decode.py" --dtype float32 --variants graph --repeats 1 ;;
    trl) part trl 75 python3 "$here/bench_trl.py" --steps 2 ;;
    demo)
        export RUN=${RUN:-/tmp/gpu-demo} SERVERS=${SERVERS:-zendesk} N=${N:-400} SIZE=${SIZE:-34m}
        export PRESET=${PRESET:-gpu-small} SFT_EPOCHS=${SFT_EPOCHS:-2} STEPS=${STEPS:-30} LIMIT=${LIMIT:-100}
        export EXTRA=${EXTRA:-"tasks.max_test=64 rollout.tasks_per_step=8 eval_every=10 save_every=10"}
        for stage_limit in tasks:40 model:40 sft:80 before:50 grpo:130 report:30; do
            part "demo-${stage_limit%:*}" "${stage_limit#*:}" bash "$here/grpo_demo.sh" "${stage_limit%:*}"
        done
        cp "$RUN/report.md" "$OUT/demo-report.md" 2>/dev/null
        cp "$RUN/grpo/plots/curves.png" "$OUT/demo-curves.png" 2>/dev/null
        cp "$RUN/grpo/metrics.jsonl" "$OUT/demo-metrics.jsonl" 2>/dev/null
        cp "$RUN/before/metrics.jsonl" "$OUT/demo-before.jsonl" 2>/dev/null ;;
    *) echo "unknown part $p (decode, equal, trl, demo)" >&2; exit 2 ;;
    esac
done
