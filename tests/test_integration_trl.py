"""TRL's GRPOTrainer over mcpgym episodes: the rollout_func route (multi-turn, env mask) and environment_factory."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl", reason="the TRL adapter needs trl: pip install 'mcpgym[trl]'")
pytest.importorskip("datasets", reason="the TRL adapter needs datasets: pip install 'mcpgym[trl]'")
torch = pytest.importorskip("torch", reason="the train extra: pip install 'mcpgym[train]'")

from mcpgym.baselines.integrations.trl import (  # noqa: E402
    TASK_KEY,
    McpRollout,
    env_reward,
    environment_factory,
    final_answer_reward,
    to_trl,
)
from mcpgym.baselines.train.chat import TokenSequence  # noqa: E402
from mcpgym.baselines.train.episodes import Episode  # noqa: E402
from mcpgym.tasks.execute import complete_task  # noqa: E402
from mcpgym.tasks.model import Fact, GroundTruthCall, Task, Turn  # noqa: E402
from train_support import build_tiny, status_tasks, zendesk_ticket_ids  # noqa: E402

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
OPTIONS: dict[str, Any] = {"servers": ["zendesk"], "tools": ["get_ticket"], "max_new_tokens": 12, "max_turns": 3,
                           "max_total_tokens": 4000}


def two_requests(ticket_id: int) -> Task:
    """Status, then (a second user request) priority of the same ticket."""
    def turn(text: str, field: str, call: str) -> Turn:
        return Turn(user=text, calls=[GroundTruthCall(id=call, server="zendesk", tool="get_ticket", arguments={"ticket_id": ticket_id})],
                    facts=[Fact(name=field, expr=f"{{{call}.{field}}}", value=None)])
    return complete_task(Task(id=f"two-{ticket_id}", servers=["zendesk"], seed=0, turns=[
        turn(f"What is the status of ticket {ticket_id}?", "status", "c1"), turn("And what is its priority?", "priority", "c2")]))


# ---------------------------------------------------------------------- fast: no model


def test_dataset_rows_name_their_task_and_bad_prompts_are_refused() -> None:
    tasks = status_tasks(zendesk_ticket_ids(2)) + [two_requests(1100)]
    rollout = McpRollout(tasks, **OPTIONS)
    rows = rollout.dataset()
    assert rows["task_id"] == [t.id for t in tasks]
    for row, task in zip(rows, tasks, strict=True):
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert row["prompt"][-1]["content"] == task.turns[0].user
        assert rollout.task_of(row["prompt"]) is task
    for bad, message in [("text", "list of chat messages"), ([{"role": "user", "content": "hi"}], TASK_KEY),
                         ([{"role": "user", "content": "hi", TASK_KEY: "nope"}], "not among")]:
        with pytest.raises(ValueError, match=message):
            rollout.task_of(bad)
    with pytest.raises(ValueError, match="unique"):
        McpRollout(tasks + tasks[:1], **OPTIONS)
    with pytest.raises(ValueError, match="needs servers"):
        McpRollout(tasks, **{**OPTIONS, "servers": ["crm"]})
    with pytest.raises(ValueError, match="max_new_tokens"):
        McpRollout(tasks, **{**OPTIONS, "max_new_tokens": 0})


def test_to_trl_splits_prompt_and_completion_and_masks_only_sampled_tokens() -> None:
    [task] = status_tasks([1000])
    tokens = TokenSequence()
    tokens.extend([1, 2, 3], sampled=False)     # prompt
    tokens.extend([10, 11, 99], sampled=True)   # a turn ending in eos 99
    tokens.extend([4, 5], sampled=False)        # tool result, next user turn
    tokens.extend([12, 99], sampled=True)
    done = Episode(task=task, group=0, tokens=tokens, reward=0.75, prompt_tokens=3)
    cut = Episode(task=task, group=0, tokens=tokens, reward=0.25, prompt_tokens=3, overlong=True)
    out = to_trl([done, cut], [[-1.0] * 7, [-2.0] * 7], mask_overlong=True)
    assert out["prompt_ids"] == [[1, 2, 3]] * 2 and out["completion_ids"] == [[10, 11, 99, 4, 5, 12, 99]] * 2
    assert out["env_mask"] == [[1, 1, 1, 0, 0, 1, 1], [0] * 7]
    assert env_reward(completions=["a", "b"], env_reward=out["env_reward"]) == [0.75, 0.25]
    assert env_reward(completions=["a"]) == [None]
    assert to_trl([cut], None)["env_mask"] == [[1, 1, 1, 0, 0, 1, 1]]


def test_environment_factory_tools_run_in_the_episode_and_the_answer_is_scored() -> None:
    tasks = status_tasks([1000, 1007])
    factory = environment_factory(McpRollout(tasks, **OPTIONS))
    env = factory()
    assert {n for n in vars(type(env)) if not n.startswith("_")} >= {"get_ticket", "finish"}
    with pytest.raises(ValueError, match="task_id"):
        env.reset()
    env.reset(task_id=tasks[0].id)
    assert '"id":1000' in env.get_ticket(ticket_id=1000).replace(" ", "")
    status = tasks[0].turns[0].facts[0].value
    [reward] = final_answer_reward([[{"role": "assistant", "content": f"The status is {status}."}]], environments=[env])
    assert reward == 1.0
    assert env.get_ticket(ticket_id=1000).startswith("episode_ended")
    env.reset(task_id=tasks[1].id)
    assert final_answer_reward([[{"role": "assistant", "content": "No idea."}]], environments=[env])[0] < 0.5
    with pytest.raises(ValueError, match="single-request"):
        environment_factory(McpRollout([two_requests(1100)], **OPTIONS))


# ---------------------------------------------------------------------- slow: two TRL steps on a tiny model


def grpo_args(out: Path, steps: int, **extra: Any) -> Any:
    from trl import GRPOConfig

    return GRPOConfig(output_dir=str(out), max_steps=steps, per_device_train_batch_size=4, gradient_accumulation_steps=1,
                      num_generations=2, max_completion_length=12, use_cpu=True, report_to="none", save_strategy="no",
                      disable_tqdm=True, logging_steps=1, gradient_checkpointing=False, bf16=False, beta=0.0,
                      learning_rate=1e-3, seed=0, **extra)


def masked_runs(ids: list[int], mask: list[int]) -> list[tuple[int, ...]]:
    """The maximal runs of `ids` where `mask` is 1."""
    runs, current = [], []
    for token, keep in zip(ids, mask, strict=True):
        if keep:
            current.append(token)
        elif current:
            runs.append(tuple(current))
            current = []
    return runs + ([tuple(current)] if current else [])


@pytest.mark.slow
def test_two_grpo_steps_train_only_on_the_models_own_tokens(tmp_path: Path) -> None:
    """About 40 s of CPU time (a tiny model built, then 2 + 2 TRL steps); 90 s wall on two shared cores."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOTrainer
    from trl.chat_template_utils import qwen3_template

    from mcpgym.baselines.train.generation import cut_at_eos

    single = status_tasks(zendesk_ticket_ids(2))
    multi = [two_requests(i) for i in zendesk_ticket_ids(2, offset=10)]
    path = build_tiny(tmp_path / "model", single + multi)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path)
    eos = tokenizer.eos_token_id

    generated: list[tuple[int, ...]] = []
    inner_generate = model.generate

    def recording_generate(*args: Any, **kwargs: Any) -> Any:
        out = inner_generate(*args, **kwargs)
        width = kwargs["input_ids"].shape[1]
        generated.extend(tuple(cut_at_eos(row[width:].tolist(), eos)) for row in out)
        return out

    model.generate = recording_generate
    rollout = McpRollout(single + multi, **OPTIONS)
    trainer = GRPOTrainer(model=model, reward_funcs=[env_reward], args=grpo_args(tmp_path / "trl", 2), train_dataset=rollout.dataset(),
                          processing_class=tokenizer, rollout_func=rollout)
    seen: list[dict[str, Any]] = []
    inner_loss = trainer._compute_loss

    def recording_loss(model: Any, inputs: dict[str, Any]) -> Any:
        seen.append({k: v.detach().clone() for k, v in inputs.items() if isinstance(v, torch.Tensor)})
        return inner_loss(model, inputs)

    trainer._compute_loss = recording_loss
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    trainer.train()
    rollout.close()

    assert len(seen) == 2 and trainer.state.global_step == 2
    runs: list[tuple[int, ...]] = []
    second_request_masked = 0
    for inputs in seen:
        loss_mask = (inputs["completion_mask"] * inputs["tool_mask"]).tolist()
        for ids, mask in zip(inputs["completion_ids"].tolist(), loss_mask, strict=True):
            runs += masked_runs(ids, mask)
            env_text = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if not m])
            second_request_masked += "And what is its priority?" in env_text
        logps = inputs["sampling_per_token_logps"]
        assert bool((logps[inputs["tool_mask"] == 0] == 0).all()) and bool((logps[(inputs["completion_mask"] * inputs["tool_mask"]) == 1] < 0).all())
    assert Counter(runs) == Counter(generated), "the loss covers exactly the tokens the model generated"
    assert second_request_masked > 0, "a later user request is in the completion and masked"
    assert any(not torch.equal(before[n], p) for n, p in model.named_parameters()), "the steps changed the weights"

    # environment_factory on the single-request tasks
    tokenizer.response_template = qwen3_template  # the tiny model writes Qwen/Hermes tool calls
    factory_rollout = McpRollout(single, **OPTIONS)
    trainer = GRPOTrainer(model=model, reward_funcs=[final_answer_reward], args=grpo_args(tmp_path / "trl-env", 2, max_tool_calling_iterations=2),
                          train_dataset=factory_rollout.dataset(), processing_class=tokenizer,
                          environment_factory=environment_factory(factory_rollout))
    trainer.train()
    assert trainer.state.global_step == 2
    rewards = [row["rewards/final_answer_reward/mean"] for row in trainer.state.log_history if "rewards/final_answer_reward/mean" in row]
    assert len(rewards) == 2 and all(0.0 <= r <= 1.0 for r in rewards)
