"""Eval runs people can read: pass^k in every table, runs compared by name and honestly,
plots that name the run, plain progress lines in logs, and the self-contained HTML report
(escaped, bounded, filterable in a real browser)."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mcpgym.baselines import report_html
from mcpgym.baselines.evaluate import plot_summary
from mcpgym.baselines.metrics import pass_hat_ks, summarize_run, task_family
from mcpgym.baselines.run_folder import REPORT, TRAJECTORIES
from mcpgym.cli import main
from mcpgym.progress import PLAIN_EVERY_S, PlainProgress, SilentProgress, progress_bar

HOSTILE = "</script><script>document.documentElement.className='pwned'</script><img src=x onerror=\"document.title='pwned'\">"
CHROMIUM = next(
    (p for p in (shutil.which("chromium"), shutil.which("chromium-browser"), "/usr/bin/chromium") if p and Path(p).exists()),
    None,
)


def run_eval(out: Path, *extra: str) -> None:
    assert main(["eval", "--out", str(out), "--quiet", *extra]) == 0


def read_records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / TRAJECTORIES).read_text().splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An oracle run (1 zendesk task x 2 episodes) and a random run (2 zendesk tasks x 3 episodes)."""
    base = tmp_path_factory.mktemp("runs")
    run_eval(base / "oracle-run", "--tasks", "zendesk", "--limit", "1", "--episodes-per-task", "2")
    run_eval(base / "random-run", "--agent", "random", "--tasks", "zendesk", "--limit", "2", "--episodes-per-task", "3")
    return {"oracle": base / "oracle-run", "random": base / "random-run"}


# --- pass^k everywhere


def test_summary_md_and_the_console_show_pass_hat_k_for_every_k(runs: dict[str, Path], tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    table = (runs["random"] / "summary.md").read_text()
    header = next(line for line in table.splitlines() if line.startswith("| group"))
    assert [c.strip() for c in header.split("|") if c.strip().startswith("pass^")] == ["pass^1", "pass^2", "pass^3"]
    assert table.splitlines()[0] == "random-run: random"
    capsys.readouterr()
    assert main(["eval", "--out", str(runs["oracle"]), "--quiet", "--tasks", "zendesk", "--limit", "1",
                 "--episodes-per-task", "2"]) == 0  # resumes: nothing to play, prints the summary
    printed = capsys.readouterr().out
    assert "| pass^1 | pass^2 |" in printed and "pass^1 1.00, pass^2 1.00" in printed and "report.html" in printed


def test_tables_bound_the_pass_hat_k_columns() -> None:
    summary = {"overall": {"pass_hat_k": {str(k): 0.5 for k in range(1, 101)}}}
    assert pass_hat_ks(summary) == [str(k) for k in (*range(1, 11), 16, 32, 64, 100)]


# --- compare


def test_compare_names_the_runs_and_warns_when_they_cover_other_episodes(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["eval", "compare", str(runs["oracle"]), str(runs["random"])]) == 0
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert "A: oracle-run: oracle" in out and "B: random-run: random" in out
    assert "warning: different task sets (A 1 task, B 2 tasks" in err
    assert "different episodes per task (A 2, B 3)" in err
    assert "> warning: different task sets" in out
    common = out.split("### The 2 episodes both runs played (1 task): like for like", 1)
    assert len(common) == 2, out
    assert "| episodes | 2 | 2 | +0 |" in common[1] and "| mean reward | 1.000 |" in common[1]
    assert "| pass^3 |" in common[0] and "| pass^3 |" not in common[1]
    assert main(["eval", "compare", str(runs["random"]), str(runs["random"])]) == 0
    same = capsys.readouterr()
    assert "warning" not in same.out + same.err and "| mean reward |" in same.out and "+0.000" in same.out


def test_compare_refuses_a_folder_that_is_not_a_run(tmp_path: Path, runs: dict[str, Path],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "summary.json").write_text('{"overall": {"episodes": 3}}')
    assert main(["eval", "compare", str(tmp_path), str(runs["random"])]) == 1
    assert capsys.readouterr().err.startswith("mcpgym: a summary.json of")


# --- plots


def test_every_plot_names_the_run_and_its_agent(runs: dict[str, Path], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.figure

    titles: list[str] = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda self, *a, **k: titles.append(self.axes[0].get_title()))
    shutil.copytree(runs["random"], tmp_path / "my-run")
    summary = json.loads((tmp_path / "my-run" / "summary.json").read_text())
    plot_summary(summary, tmp_path / "my-run")
    assert titles == ["Reward by server set\nmy-run: random", "Reward by difficulty\nmy-run: random"]


# --- progress


def test_plain_progress_prints_lines_every_tenth_or_thirty_seconds_without_carriage_returns() -> None:
    now = [0.0]
    stream = io.StringIO()
    bar = PlainProgress(200, desc="episodes", unit="ep", stream=stream, clock=lambda: now[0])
    for _ in range(19):
        now[0] += 0.1
        bar.update(1)
    assert stream.getvalue() == ""  # under a tenth, under 30 s
    now[0] += 0.1
    bar.update(1)
    assert stream.getvalue().splitlines() == ["episodes: 20/200 (10%), 10.0 ep/s, 18 s left"]
    now[0] += PLAIN_EVERY_S
    bar.update(1)
    assert len(stream.getvalue().splitlines()) == 2
    bar.write("model error in t (episode 0): boom")
    for _ in range(179):
        bar.update(1)
    bar.close()
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue() and len(lines) == 12
    assert lines[2] == "model error in t (episode 0): boom" and lines[-1].startswith("episodes: 200/200 (100%)")
    assert "done in" in lines[-1]


def test_the_bar_is_tqdm_on_a_terminal_only() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    from tqdm import tqdm

    assert isinstance(progress_bar(10, stream=io.StringIO()), PlainProgress)
    assert isinstance(progress_bar(10, stream=Terminal()), tqdm)
    assert isinstance(progress_bar(10, enabled=False), SilentProgress)


def test_eval_into_a_log_writes_plain_progress_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--tasks", "zendesk", "--limit", "2", "--out", str(tmp_path / "run")]) == 0  # stderr: not a TTY
    err = capsys.readouterr().err
    assert "\r" not in err and re.search(r"^episodes: 2/2 \(100%\), .* done in \d+ s$", err, re.M), err


# --- families


def test_task_families_come_from_tags_or_ids() -> None:
    assert task_family("zendesk.merge-duplicates-00012") == "zendesk.merge-duplicates"
    assert task_family("cross.ticket-owner-meeting-00000", ["family:cross.ticket-owner-meeting"]) == "cross.ticket-owner-meeting"
    assert task_family("zendesk-billing-window-report", ["analytics"]) == "hand-written"


# --- the HTML report


def mixed_records(runs: dict[str, Path]) -> list[dict[str, Any]]:
    """Oracle passes, random fails, a model error in another server and a hostile tool result."""
    oracle = read_records(runs["oracle"])
    records = [*oracle, *(dict(r, episode=r["episode"] + 2) for r in oracle), *read_records(runs["random"])[:4]]
    errored = json.loads(json.dumps(records[-1]))
    errored.update(task_id="crm.deal-stage-00003", servers=["crm"], family="crm.deal-stage", error="APIError: 500",
                   episode=0)
    hostile = json.loads(json.dumps(records[0]))
    hostile["task_id"] = "zendesk.hostile-00001"
    hostile["family"] = "zendesk.hostile"
    hostile["trajectory"]["calls"][0]["result"] = {"body": HOSTILE}
    hostile["trajectory"]["calls"][0]["tool"] = HOSTILE
    hostile["messages"][-1]["content"] = HOSTILE
    hostile["trajectory"]["answers"] = [HOSTILE]
    return [*records, errored, hostile]


def write_mixed(runs: dict[str, Path], out: Path) -> Path:
    out.mkdir()
    records = mixed_records(runs)
    (out / TRAJECTORIES).write_text("".join(json.dumps(r) + "\n" for r in records))
    shutil.copy(runs["oracle"] / "run.json", out / "run.json")
    return report_html.write_report(records, summarize_run(records), out, None)


def test_the_report_escapes_hostile_text_and_lets_only_its_own_script_run(runs: dict[str, Path], tmp_path: Path) -> None:
    page = write_mixed(runs, tmp_path / "mixed").read_text()
    assert page.count("<script>") == 1 and "<img src=x" not in page and "onerror=\"document" not in page
    assert "&lt;/script&gt;&lt;script&gt;document.documentElement.className=" in page
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/=]{44}'", page)
    assert "data:image" not in page  # no plots in that folder: none embedded, none fetched
    assert not re.search(r'(?:src|href)="(?!data:)', page)


def test_the_report_bounds_its_size(runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_html, "MAX_LISTED", 6)
    monkeypatch.setattr(report_html, "MAX_DETAILED", 2)
    record = read_records(runs["random"])[0]
    record["trajectory"]["calls"][0]["result"] = {"text": "x" * 1_000_000}
    records = [dict(record, episode=e) for e in range(10)]
    page = report_html.render_report(records, summarize_run(records), tmp_path)
    assert len(page) < 200_000
    assert "Only the first 6 of 10 episodes" in page and "embedded for the first 2 listed episodes" in page
    assert page.count('class="episode flat"') == 4 and page.count("<details class=\"episode\"") == 2
    assert "more characters cut]" in page


def test_eval_report_rewrites_the_report_of_a_run(runs: dict[str, Path], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(runs["random"], folder)
    (folder / REPORT).unlink()
    assert main(["eval", "report", str(folder)]) == 0
    page = (folder / REPORT).read_text()
    assert "copy: random" in page and page.count('class="episode"') == 6 and "data:image/png;base64," in page
    assert main(["eval", "report", str(tmp_path / "nothing")]) == 2
    assert "has no trajectories.jsonl" in capsys.readouterr().err


def dump_dom(page: Path, fragment: str = "") -> str:
    if CHROMIUM is None:
        pytest.skip("no Chromium to render the report: apt-get install chromium")
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.resolve().as_uri() + fragment],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def shown(dom: str) -> list[tuple[str, str]]:
    """(outcome, task) of the episode rows not hidden."""
    rows = re.findall(r'<(?:details|div) class="episode[^"]*" id="ep-\d+" ([^>]*)>', dom)
    return [
        (re.search(r'data-outcome="(\w+)"', r).group(1), re.search(r'data-task="([^"]*)"', r).group(1))  # type: ignore[union-attr]
        for r in rows if " hidden" not in f" {r}"
    ]


def test_in_a_browser_the_report_lists_the_episodes_and_a_filter_works(runs: dict[str, Path], tmp_path: Path) -> None:
    page = write_mixed(runs, tmp_path / "mixed")
    everything = dump_dom(page)
    assert "class=\"pwned\"" not in everything and "<title>pwned" not in everything
    assert len(shown(everything)) == 10 and "10 of 10 shown" in everything
    assert "document.documentElement.className='pwned'" in re.sub(r"&lt;|&gt;|&quot;|&amp;", "", everything)
    fails = dump_dom(page, "#outcome=fail&server=zendesk")
    assert [o for o, _ in shown(fails)] == ["fail"] * 4 and "4 of 10 shown" in fails


@pytest.mark.slow
def test_in_a_browser_every_filter_and_the_open_link_work(runs: dict[str, Path], tmp_path: Path) -> None:
    page = write_mixed(runs, tmp_path / "mixed")
    assert shown(dump_dom(page, "#server=crm")) == [("error", "crm.deal-stage-00003")]
    assert shown(dump_dom(page, "#family=zendesk.hostile&outcome=pass")) == [("pass", "zendesk.hostile-00001")]
    assert shown(dump_dom(page, "#family=zendesk.hostile&outcome=fail")) == []
    assert len(shown(dump_dom(page, "#q=HOSTILE"))) == 1
    assert re.search(r'<details class="episode" id="ep-0" [^>]*open', dump_dom(page, "#open=ep-0"))
