"""Hub cards: the dataset card beside every task export and the model card in every checkpoint."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

datasets = pytest.importorskip("datasets", reason="the Hugging Face export needs the optional extra: pip install 'mcpgym[hf]'")
yaml = pytest.importorskip("yaml", reason="PyYAML comes with datasets: pip install 'mcpgym[hf]'")

from mcpgym.baselines.integrations.cards import CARD, model_card  # noqa: E402
from mcpgym.baselines.train.config import load_config  # noqa: E402
from mcpgym.synth.export import COLUMNS, export_tasks  # noqa: E402
from mcpgym.tasks.loader import synthesized_tasks  # noqa: E402


def front_matter(text: str) -> dict[str, Any]:
    assert text.startswith("---\n")
    head, _, body = text[4:].partition("\n---\n")
    assert body.strip(), "the card has a body"
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


def test_export_writes_a_dataset_card_that_load_dataset_follows(tmp_path: Path) -> None:
    shipped = synthesized_tasks()
    tasks = [t for t in shipped if "split:test" in t.tags][:3] + [t for t in shipped if "split:train" in t.tags][:7]
    export_tasks(tasks, tmp_path / "ds")
    text = (tmp_path / "ds" / CARD).read_text(encoding="utf-8")
    meta = front_matter(text)
    assert meta["license"] == "apache-2.0" and "text-generation" in meta["task_categories"]
    [config] = meta["configs"]
    assert {f["split"]: f["path"] for f in config["data_files"]} == {"train": "train/*.arrow", "test": "test/*.arrow"}
    assert all(f"`{name}`" in text for name in COLUMNS)
    loaded = datasets.load_dataset(str(tmp_path / "ds"))
    assert (len(loaded["train"]), len(loaded["test"])) == (7, 3)
    assert loaded["train"][0]["task"] == datasets.load_from_disk(str(tmp_path / "ds"))["train"][0]["task"]


def test_model_card_names_the_base_model_settings_and_eval() -> None:
    config = load_config(preset="lora-8b", overrides=["steps=7"])
    card = model_card(config, 7, {"mean_reward": 0.4321, "pass@1.0": 0.25, "episodes": 16}, eval_step=5)
    meta = front_matter(card)
    assert meta["base_model"] == "Qwen/Qwen3-8B" and meta["library_name"] == "peft"
    assert meta["datasets"] == ["synth-train"]
    assert "| mean_reward | 0.4321 |" in card and "evaluated at step 5" in card
    assert '"steps_done": 7' in card and "with LoRA adapters" in card
    assert "No held-out evaluation" in model_card(config, 0)


def test_every_checkpoint_the_trainer_saves_has_a_model_card(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="the train extra: pip install 'mcpgym[train]'")
    from mcpgym.baselines.train.trainer import GrpoTrainer

    class Saves:
        def save_pretrained(self, folder: Path) -> None:
            Path(folder).mkdir(parents=True, exist_ok=True)
            (Path(folder) / "config.json").write_text("{}")

    model = torch.nn.Linear(2, 2)
    model.save_pretrained = Saves().save_pretrained  # type: ignore[attr-defined]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    config = load_config(preset="tiny-cpu", overrides=[f"out={tmp_path}", "model.path=runs/some-model"])
    trainer = SimpleNamespace(
        out=tmp_path, step=3, config=config, policy=SimpleNamespace(model=model, tokenizer=Saves()),
        optimizer=optimizer, scheduler=torch.optim.lr_scheduler.LambdaLR(optimizer, lambda n: 1.0), reference=None,
        last_eval=(2, {"mean_reward": 0.5, "episodes": 4}),
    )
    folder = GrpoTrainer.save(trainer)  # type: ignore[arg-type]
    card = (folder / "model" / CARD).read_text(encoding="utf-8")
    assert front_matter(card)["base_model"] == "runs/some-model"
    assert "step 3" in card and "evaluated at step 2" in card and "| mean_reward | 0.5 |" in card
