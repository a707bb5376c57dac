#!/usr/bin/env bash
# GRPO end to end, before and after: synthesize tasks, build a model from scratch, SFT warm
# start, evaluate, GRPO, evaluate again, and write the before/after table and the curves.
#
#   benchmarks/grpo_demo.sh STAGE      STAGE: tasks | model | sft | before | grpo | report | all
#
# Every stage reads what the one before wrote under $RUN and takes under 10 minutes on one
# GPU with the defaults; `grpo` stops at a checkpoint after $LIMIT seconds and goes on from
# it when run again (repeat it until it prints "done"). Settings (environment variables):
#   RUN=runs/demo  SERVERS=zendesk  N=1500 (tasks)  SIZE=34m  PRESET=gpu-small
#   SFT_EPOCHS=3  STEPS=200  LIMIT=540  EXTRA="key=value ..." (more trainer overrides)
# A CPU dry run of the whole pipeline (minutes):
#   RUN=/tmp/demo SIZE=tiny PRESET=tiny-cpu N=60 SFT_EPOCHS=1 STEPS=2 EXTRA="rollout.max_new_tokens=512" benchmarks/grpo_demo.sh all
set -euo pipefail

RUN=${RUN:-runs/demo}
SERVERS=${SERVERS:-zendesk}
N=${N:-1500}
SIZE=${SIZE:-34m}
PRESET=${PRESET:-gpu-small}
SFT_EPOCHS=${SFT_EPOCHS:-3}
STEPS=${STEPS:-200}
LIMIT=${LIMIT:-540}
EXTRA=${EXTRA:-}
MCPGYM=${MCPGYM:-mcpgym}

servers_json=$(printf '%s' "$SERVERS" | python3 -c 'import json, sys; print(json.dumps(sys.stdin.read().split(",")))')
# shellcheck disable=SC2206
common=(--preset "$PRESET" "tasks.servers=$servers_json" "tasks.train=\"$RUN/tasks.jsonl:train\""
        "tasks.test=\"$RUN/tasks.jsonl:test\"" "tasks.families=null" "tasks.tools=null" $EXTRA)

stage() {
    case "$1" in
    tasks)
        "$MCPGYM" synth --servers "$SERVERS" --n "$N" --seed 0 --out "$RUN/tasks.jsonl" --quiet ;;
    model)
        "$MCPGYM" train build-model --size "$SIZE" --tasks "$RUN/tasks.jsonl" --out "$RUN/model" ;;
    sft)
        "$MCPGYM" train sft "${common[@]}" "model.path=\"$RUN/model\"" "out=\"$RUN/sft-run\"" \
            "sft.epochs=$SFT_EPOCHS" ;;
    before)
        # steps=0: the held-out evaluation of the warm-started model, nothing trained
        "$MCPGYM" train grpo "${common[@]}" "model.path=\"$RUN/sft-run/sft/model\"" "out=\"$RUN/before\"" \
            "steps=0" "eval_every=1" "resume=false" ;;
    grpo)
        "$MCPGYM" train grpo "${common[@]}" "model.path=\"$RUN/sft-run/sft/model\"" "out=\"$RUN/grpo\"" \
            "steps=$STEPS" "time_limit_s=$LIMIT"
        if python3 - "$RUN/grpo/metrics.jsonl" "$STEPS" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
sys.exit(0 if any(r["phase"] == "eval" and r["step"] == int(sys.argv[2]) for r in rows) else 1)
PY
        then echo "done: $STEPS steps"; else echo "not done yet: run the grpo stage again"; fi ;;
    report)
        "$MCPGYM" plot "$RUN/grpo"
        python3 "$(dirname "$0")/grpo_report.py" "$RUN/before" "$RUN/grpo" | tee "$RUN/report.md" ;;
    all)
        for s in tasks model sft before grpo report; do stage "$s"; done ;;
    *)
        echo "unknown stage '$1' (tasks, model, sft, before, grpo, report, all)" >&2; exit 2 ;;
    esac
}

mkdir -p "$RUN"
stage "${1:?usage: benchmarks/grpo_demo.sh tasks|model|sft|before|grpo|report|all}"
