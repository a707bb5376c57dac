"""An eval run as one self-contained HTML page (`report.html`): no server, no network.

The page holds the run's summary (overall metrics, pass^k, per server set, difficulty and
task family), its plots as data URIs, and the list of episodes, filterable by server,
outcome (pass, fail, error), family and task id. An episode opens onto its conversation,
every tool call with its status and result, its reward breakdown and its state diff.

Everything from the run is escaped as HTML text (tool results are hostile text); the only
script is the page's own filter code, which reads the page and never builds HTML from data.
The page stays small for any run: long texts are cut, only the first `MAX_LISTED` episodes
are listed, and the details of at most `MAX_DETAILED` of them (within `DETAIL_BUDGET` characters)
are embedded; the page says so when it leaves anything out.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections import defaultdict
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any, Literal

from mcpgym.baselines.metrics import SUCCESS, pass_hat_ks, summarize, task_family
from mcpgym.baselines.run_folder import REPORT, RunManifest, agent_name, run_label, write_atomic

MAX_TEXT = 2_000
"""Characters of one message, argument list or tool result shown; the rest is cut with a note."""
MAX_LISTED = 5_000
"""Episodes listed (with their scores) at most."""
MAX_DETAILED = 400
"""Episodes whose conversation, calls, reward and state diff are embedded at most."""
DETAIL_BUDGET = 4_000_000
"""Characters of embedded episode details at most, over all episodes."""
MAX_PLOT_BYTES = 3_000_000
"""A plot larger than this is left out of the page."""
PLOTS = (("reward_by_server.png", "Reward by server set"), ("reward_by_difficulty.png", "Reward by difficulty"))

Outcome = Literal["pass", "fail", "error"]


def outcome(record: dict[str, Any]) -> Outcome:
    """`error` when the model failed the episode, `pass` at reward 1, `fail` otherwise."""
    if record.get("error"):
        return "error"
    return "pass" if _number(record.get("reward")) >= SUCCESS else "fail"


def family_of(record: dict[str, Any]) -> str:
    """The episode's task family: as recorded, or read from the task id (runs recorded before families were)."""
    family = record.get("family")
    return family if isinstance(family, str) and family else task_family(str(record.get("task_id", "")))


def write_report(
    records: Sequence[dict[str, Any]],
    summary: dict[str, Any],
    out: Path,
    manifest: RunManifest | None = None,
) -> Path:
    """Write `out/report.html` for the run's records and summary; the plots already in `out` are embedded."""
    page = render_report(records, summary, out, manifest)
    path = out / REPORT
    write_atomic(path, page)
    return path


def render_report(
    records: Sequence[dict[str, Any]],
    summary: dict[str, Any],
    out: Path,
    manifest: RunManifest | None = None,
) -> str:
    """The report page as text."""
    label = run_label(out, manifest)
    ordered = sorted(records, key=lambda r: (str(r.get("task_id", "")), _int(r.get("episode"))))
    body = [
        _header(label, out, manifest, summary),
        _overview(summary),
        _group_tables(summary, ordered),
        _plots(out),
        _episodes(ordered),
    ]
    return _PAGE.format(title=escape(f"mcpgym eval: {label}"), style=_STYLE, body="\n".join(body), script=_SCRIPT,
                        script_hash=_SCRIPT_HASH)


def _header(label: str, out: Path, manifest: RunManifest | None, summary: dict[str, Any]) -> str:
    facts: list[tuple[str, str]] = [("run folder", out.resolve().name or str(out))]
    if manifest is not None:
        facts.append(("agent", agent_name(manifest.agent)))
        facts += [(f"agent {key}", str(value)) for key, value in manifest.agent.items() if key not in ("kind", "model")]
        facts += [("tasks", str(manifest.tasks)), ("episodes per task", str(manifest.episodes_per_task)),
                  ("seed", str(manifest.seed))]
        facts += [(key, str(value)) for key, value in manifest.env.items()]
        facts.append(("task set digest", manifest.tasks_digest[:12]))
    else:
        facts.append(("manifest", "none (run.json missing): agent and settings unknown"))
    items = "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(_cut(v, 200))}</dd></div>" for k, v in facts)
    return f'<header><h1>Eval report</h1><p class="label">{escape(label)}</p><dl class="facts">{items}</dl></header>'


def _overview(summary: dict[str, Any]) -> str:
    overall = summary.get("overall", {})
    if not overall.get("episodes"):
        return '<section><h2>Summary</h2><p class="note">No finished episodes yet.</p></section>'
    cards = [
        ("mean reward", f"{overall['mean_reward']:.3f}", "average over all episodes"),
        ("pass@1.0", _pct(overall["pass_rate"].get("1.0")), "episodes with reward 1"),
    ]
    cards += [(f"pass^{k}", _pct(overall["pass_hat_k"].get(k)),
               "a task's try passes" if k == "1" else f"all of {k} tries at a task pass") for k in pass_hat_ks(summary)]
    cards += [
        ("pass@0.5", _pct(overall["pass_rate"].get("0.5")), "episodes with reward at least 0.5"),
        ("finish rate", _pct(overall["finish_rate"]), "episodes that ended with an answer"),
        ("calls / episode", f"{overall['calls_per_episode']:.1f}", "tool calls made"),
        ("invalid calls", _pct(overall["invalid_call_rate"]), "malformed or rejected calls"),
        ("model errors", str(overall["model_errors"]), "episodes the model failed"),
        ("episodes", f"{overall['episodes']} ({overall['tasks']} tasks)", ""),
    ]
    tokens = overall.get("tokens", {})
    if tokens.get("prompt") or tokens.get("completion"):
        cards.append(("tokens", f"{tokens['prompt']:,} in / {tokens['completion']:,} out", "prompt / completion"))
    html = "".join(
        f'<div class="card"><div class="k">{escape(name)}</div><div class="v">{escape(value)}</div>'
        f'<div class="hint">{escape(hint)}</div></div>'
        for name, value, hint in cards
    )
    components = "".join(
        f"<tr><td>{escape(name)}</td><td>{_bar(value)}</td></tr>" for name, value in overall["components"].items()
    )
    return (
        f'<section><h2>Summary</h2><div class="cards">{html}</div>'
        f'<h3>Reward components (mean)</h3><table class="components">{components}</table></section>'
    )


def _group_tables(summary: dict[str, Any], records: Sequence[dict[str, Any]]) -> str:
    if not summary.get("overall", {}).get("episodes"):
        return ""
    families: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        families[family_of(record)].append(record)
    by_family = {name: summarize(rs) for name, rs in sorted(families.items())}
    ks = pass_hat_ks(summary)
    parts = ["<section><h2>By group</h2>"]
    for title, groups in (("Server set", summary["by_server"]), ("Difficulty (ground-truth calls)", summary["by_difficulty"]),
                          ("Task family", by_family)):
        head = "".join(f"<th>{escape(c)}</th>" for c in (title, "episodes", "mean reward", "pass@1.0",
                                                          *(f"pass^{k}" for k in ks), "finish", "calls/ep", "invalid"))
        rows = []
        for name, s in groups.items():
            cells = [f'<td class="name">{escape(_cut(name, 120))}</td>', f"<td>{s['episodes']}</td>",
                     f"<td>{_bar(s['mean_reward'])}</td>", f"<td>{_pct(s['pass_rate']['1.0'])}</td>"]
            cells += [f"<td>{_pct(s['pass_hat_k'].get(k))}</td>" for k in ks]
            cells += [f"<td>{_pct(s['finish_rate'])}</td>", f"<td>{s['calls_per_episode']:.1f}</td>",
                      f"<td>{_pct(s['invalid_call_rate'])}</td>"]
            rows.append("<tr>" + "".join(cells) + "</tr>")
        parts.append(f'<div class="scroll"><table class="groups"><thead><tr>{head}</tr></thead>'
                     f'<tbody>{"".join(rows)}</tbody></table></div>')
    parts.append("</section>")
    return "".join(parts)


def _plots(out: Path) -> str:
    images = []
    for name, title in PLOTS:
        path = out / name
        try:
            if path.stat().st_size > MAX_PLOT_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            continue
        encoded = base64.b64encode(data).decode("ascii")
        images.append(f'<figure><img alt="{escape(title)}" src="data:image/png;base64,{encoded}"><figcaption>'
                      f"{escape(title)}</figcaption></figure>")
    return f'<section><h2>Plots</h2><div class="plots">{"".join(images)}</div></section>' if images else ""


def _episodes(records: Sequence[dict[str, Any]]) -> str:
    listed = records[:MAX_LISTED]
    budget, detailed = DETAIL_BUDGET, 0
    rows = []
    for index, record in enumerate(listed):
        details = ""
        if detailed < MAX_DETAILED and budget > 0:
            details = _details(record)
            budget -= len(details)
            detailed += 1
        rows.append(_episode(index, record, details))
    servers = sorted({s for r in listed for s in _servers(r)})
    families = sorted({family_of(r) for r in listed})
    notes = []
    if len(records) > len(listed):
        notes.append(f"Only the first {len(listed):,} of {len(records):,} episodes (by task id) are listed here.")
    if detailed < len(listed):
        notes.append(f"The conversation, calls and state diff are embedded for the first {detailed:,} listed "
                     f"episodes only, to keep this page small.")
    notes.append(f"Texts longer than {MAX_TEXT:,} characters are cut; trajectories.jsonl holds every episode in full.")
    counts: dict[str, int] = defaultdict(int)
    for record in listed:
        counts[outcome(record)] += 1
    return (
        '<section id="episodes"><h2>Episodes</h2>'
        + "".join(f'<p class="note">{escape(n)}</p>' for n in notes)
        + '<form class="filters" id="filters">'
        + _select("server", "server", servers)
        + _select("outcome", "outcome", [f"pass ({counts['pass']})", f"fail ({counts['fail']})",
                                         f"error ({counts['error']})"], values=["pass", "fail", "error"])
        + _select("family", "family", families)
        + '<label>task <input type="search" name="q" id="f-q" placeholder="task id contains" maxlength="200"></label>'
        + '<button type="button" id="expand">open shown</button><button type="button" id="collapse">close all</button>'
        + f'<span class="count" id="shown" aria-live="polite">{len(listed)} of {len(listed)} shown</span></form>'
        + f'<div id="episode-list">{"".join(rows)}</div></section>'
    )


def _select(name: str, label: str, options: Sequence[str], values: Sequence[str] | None = None) -> str:
    values = options if values is None else values
    items = "".join(f'<option value="{escape(v)}">{escape(_cut(o, 80))}</option>' for o, v in zip(options, values, strict=True))
    return f'<label>{escape(label)} <select name="{name}" id="f-{name}"><option value="">all</option>{items}</select></label>'


def _episode(index: int, record: dict[str, Any], details: str) -> str:
    result = outcome(record)
    reward = _number(record.get("reward"))
    task_id = str(record.get("task_id", ""))
    servers = _servers(record)
    family = family_of(record)
    attrs = (f'data-outcome="{result}" data-servers="{escape(" ".join(servers))}" '
             f'data-family="{escape(family)}" data-task="{escape(task_id.lower())}"')
    head = (
        f'<span class="badge {result}">{result}</span>'
        f'<span class="task">{escape(_cut(task_id, 160))}</span>'
        f'<span class="ep">episode {_int(record.get("episode"))}</span>'
        f'<span class="meta">{escape(", ".join(servers))} · {escape(_cut(family, 80))}</span>'
        f'<span class="calls">{_int(record.get("calls"))} calls</span>'
        f'<span class="reward">{_bar(reward)}</span>'
    )
    if not details:
        return f'<div class="episode flat" id="ep-{index}" {attrs}><div class="row">{head}</div></div>'
    return f'<details class="episode" id="ep-{index}" {attrs}><summary class="row">{head}</summary>{details}</details>'


def _details(record: dict[str, Any]) -> str:
    raw = record.get("trajectory")
    trajectory: dict[str, Any] = raw if isinstance(raw, dict) else {}
    parts = ['<div class="body">']
    if record.get("error"):
        parts.append(f'<p class="error-line">Model error: {escape(_cut(str(record["error"]), MAX_TEXT))}</p>')
    facts = [
        ("seed", record.get("seed")), ("steps", record.get("steps")), ("terminated", record.get("terminated")),
        ("truncated", record.get("truncated")), ("invalid calls", record.get("invalid_calls")),
        ("ground-truth calls", record.get("ground_truth_calls")),
    ]
    parts.append('<p class="facts-line">' + " · ".join(f"{escape(k)} {escape(_fmt(v))}" for k, v in facts) + "</p>")
    parts.append('<div class="columns"><div>')
    parts.append(_breakdown(record.get("reward_breakdown")))
    parts.append(_answers(trajectory.get("answers")))
    parts.append(_state_diff(trajectory.get("changes")))
    parts.append("</div><div>")
    parts.append(_calls(trajectory.get("calls")))
    parts.append("</div></div>")
    parts.append(_conversation(record.get("messages")))
    parts.append("</div>")
    return "".join(parts)


def _breakdown(breakdown: Any) -> str:
    if not isinstance(breakdown, dict):
        return "<h4>Reward</h4><p class=\"note\">No breakdown recorded.</p>"
    raw_weights, raw_components = breakdown.get("weights"), breakdown.get("components")
    weights: dict[str, Any] = raw_weights if isinstance(raw_weights, dict) else {}
    components: dict[str, Any] = raw_components if isinstance(raw_components, dict) else {}
    rows = "".join(
        f"<tr><td>{escape(str(name))}</td><td>{'n/a' if value is None else _bar(_number(value))}</td>"
        f"<td>{escape(_fmt(weights.get(name)))}</td></tr>"
        for name, value in list(components.items())[:50]
    )
    extra = " · ".join(f"{k} {_fmt(breakdown.get(k))}" for k in ("efficiency", "penalty") if k in breakdown)
    return (f"<h4>Reward {escape(_fmt(breakdown.get('reward')))}</h4>"
            f'<table class="breakdown"><thead><tr><th>component</th><th>value</th><th>weight</th></tr></thead>'
            f"<tbody>{rows}</tbody></table><p class=\"note\">{escape(extra)}</p>")


def _answers(answers: Any) -> str:
    if not isinstance(answers, list) or not answers:
        return ""
    items = "".join(f"<li><pre>{escape(_cut(str(a), MAX_TEXT))}</pre></li>" for a in answers[:50])
    return f"<h4>Answers</h4><ol class=\"answers\">{items}</ol>"


def _state_diff(changes: Any) -> str:
    if not isinstance(changes, list) or not changes:
        return '<h4>State diff</h4><p class="note">No rows changed.</p>'
    rows = "".join(
        f'<tr><td class="op {escape(str(c.get("op")))}">{escape(str(c.get("op")))}</td>'
        f"<td>{escape(str(c.get('server')))}.{escape(str(c.get('table')))}</td><td>{escape(_cut(str(c.get('key')), 80))}</td>"
        f"<td><pre>{escape(_json(c.get('fields')))}</pre></td></tr>"
        for c in changes[:200] if isinstance(c, dict)
    )
    more = f'<p class="note">{len(changes) - 200} more changes not shown.</p>' if len(changes) > 200 else ""
    return (f"<h4>State diff ({len(changes)} rows)</h4><table class=\"diff\"><thead><tr><th>op</th><th>table</th>"
            f"<th>key</th><th>fields</th></tr></thead><tbody>{rows}</tbody></table>{more}")


def _calls(calls: Any) -> str:
    if not isinstance(calls, list) or not calls:
        return '<h4>Tool calls</h4><p class="note">No tool calls.</p>'
    items = []
    for number, call in enumerate(calls[:200], start=1):
        if not isinstance(call, dict):
            continue
        status = str(call.get("status"))
        tool = str(call.get("tool") or "(unreadable)")
        outcome_text = call.get("error") if call.get("error") is not None else call.get("result")
        shown = _cut(outcome_text, MAX_TEXT) if isinstance(outcome_text, str) else _json(outcome_text)
        items.append(
            f'<li class="call"><div class="call-head"><span class="n">{number}</span>'
            f'<span class="status {escape(status)}">{escape(status)}</span><code>{escape(_cut(tool, 120))}</code>'
            f'<span class="turn">turn {_int(call.get("turn"))}</span></div>'
            f'<pre class="args">{escape(_json(call.get("arguments")))}</pre>'
            f'<pre class="result">{escape(shown)}</pre></li>'
        )
    more = f'<p class="note">{len(calls) - 200} more calls not shown.</p>' if len(calls) > 200 else ""
    return f"<h4>Tool calls ({len(calls)})</h4><ol class=\"calls\">{''.join(items)}</ol>{more}"


def _conversation(messages: Any) -> str:
    if not isinstance(messages, list) or not messages:
        return ""
    items = []
    for message in messages[:400]:
        if not isinstance(message, dict):
            continue
        role = str(message.get("role", "?"))
        content = message.get("content")
        text = content if isinstance(content, str) else _json(content) if content is not None else ""
        extra = ""
        if role == "tool" and message.get("name"):
            extra = f' <code>{escape(_cut(str(message["name"]), 120))}</code>'
        calls = message.get("tool_calls")
        if isinstance(calls, list) and calls and "<tool_call>" not in text:
            shown = [f"→ {c.get('function', {}).get('name')}({c.get('function', {}).get('arguments')})"
                     for c in calls[:50] if isinstance(c, dict) and isinstance(c.get("function"), dict)]
            text = (text + "\n" if text else "") + "\n".join(shown)
        body = f"<pre>{escape(_cut(text, MAX_TEXT))}</pre>"
        if role == "system":
            items.append(f'<li class="msg system"><details><summary>system prompt</summary>{body}</details></li>')
        else:
            items.append(f'<li class="msg {escape(role)}"><div class="role">{escape(role)}{extra}</div>{body}</li>')
    return f'<h4>Conversation ({len(messages)} messages)</h4><ol class="conversation">{"".join(items)}</ol>'


def _servers(record: dict[str, Any]) -> list[str]:
    servers = record.get("servers")
    return [str(s)[:60] for s in servers[:20]] if isinstance(servers, list) else []


def _bar(value: float | None) -> str:
    if value is None:
        return "-"
    width = max(0.0, min(1.0, value)) * 100
    return f'<span class="bar"><span style="width:{width:.0f}%"></span></span><span class="num">{value:.2f}</span>'


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:.3f}" if isinstance(value, float) else "-" if value is None else str(value)


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _json(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return _cut(text, MAX_TEXT)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit:,} more characters cut]"


_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src '{script_hash}'">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<main>
{body}
</main>
<script>{script}</script>
</body>
</html>
"""

_STYLE = """
:root { --fg:#1d2430; --muted:#5d6878; --line:#e3e7ee; --bg:#f6f8fb; --card:#fff; --accent:#3b6fd8;
  --pass:#1f8a4c; --pass-bg:#e3f5ea; --fail:#c2410c; --fail-bg:#fdeee4; --error:#7c3aed; --error-bg:#f0e9fe; }
* { box-sizing:border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
main { max-width:1280px; margin:0 auto; padding:24px 28px 60px; }
h1 { margin:0; font-size:24px; } h2 { font-size:18px; margin:28px 0 12px; } h3 { font-size:14px; margin:18px 0 8px; color:var(--muted); }
h4 { margin:14px 0 6px; font-size:13px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); }
header { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:18px 22px; }
.label { margin:4px 0 12px; font-size:16px; color:var(--accent); font-weight:600; }
dl.facts { display:flex; flex-wrap:wrap; gap:6px 22px; margin:0; } dl.facts div { display:flex; gap:6px; }
dt { color:var(--muted); } dd { margin:0; font-weight:500; }
.cards { display:grid; grid-template-columns:repeat(auto-fill,minmax(160px,1fr)); gap:10px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:12px 14px; }
.card .k { color:var(--muted); font-size:12px; } .card .v { font-size:22px; font-weight:650; margin:2px 0; }
.card .hint { color:var(--muted); font-size:11px; }
table { border-collapse:collapse; background:var(--card); border:1px solid var(--line); border-radius:8px; }
th, td { padding:5px 10px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
th { background:#eef2f8; font-weight:600; font-size:12px; } td.name { font-weight:500; }
.scroll { overflow-x:auto; margin-bottom:12px; }
.bar { display:inline-block; width:70px; height:8px; background:#e6eaf1; border-radius:4px; margin-right:6px; vertical-align:middle; overflow:hidden; }
.bar span { display:block; height:100%; background:var(--accent); }
.num { font-variant-numeric:tabular-nums; }
.plots { display:grid; grid-template-columns:repeat(auto-fit,minmax(420px,1fr)); gap:14px; align-items:start; } figure { margin:0; background:var(--card); border:1px solid var(--line); border-radius:10px; padding:10px; }
figure img { max-width:100%; height:auto; display:block; } figcaption { color:var(--muted); font-size:12px; margin-top:4px; }
.note { color:var(--muted); font-size:12px; margin:4px 0; }
.filters { display:flex; flex-wrap:wrap; gap:10px 16px; align-items:center; background:var(--card); border:1px solid var(--line);
  border-radius:10px; padding:10px 14px; margin:10px 0; position:sticky; top:0; z-index:2; }
.filters select, .filters input, .filters button { font:inherit; padding:3px 6px; border:1px solid #c9d1dd; border-radius:6px; background:#fff; }
.filters button { cursor:pointer; } .count { margin-left:auto; color:var(--muted); }
.episode { background:var(--card); border:1px solid var(--line); border-radius:8px; margin:6px 0; }
.episode .row { display:flex; gap:12px; align-items:center; padding:8px 12px; cursor:pointer; list-style:none; }
.episode.flat .row { cursor:default; } .episode .row::-webkit-details-marker { display:none; }
.episode[open] > .row { border-bottom:1px solid var(--line); background:#fafbfd; }
.row .task { font-weight:600; flex:1 1 auto; overflow-wrap:anywhere; } .row .ep, .row .meta, .row .calls { color:var(--muted); font-size:12px; white-space:nowrap; }
.row .reward { white-space:nowrap; }
.badge { font-size:11px; font-weight:700; text-transform:uppercase; border-radius:10px; padding:1px 8px; min-width:46px; text-align:center; }
.badge.pass { color:var(--pass); background:var(--pass-bg); } .badge.fail { color:var(--fail); background:var(--fail-bg); }
.badge.error { color:var(--error); background:var(--error-bg); }
.body { padding:6px 16px 14px; } .columns { display:grid; grid-template-columns:minmax(0,1fr) minmax(0,1.4fr); gap:18px; }
@media (max-width:900px) { .columns { grid-template-columns:1fr; } }
pre { margin:0; white-space:pre-wrap; overflow-wrap:anywhere; font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; }
ol.calls, ol.conversation, ol.answers { list-style:none; padding:0; margin:0; }
.call { border:1px solid var(--line); border-radius:6px; padding:6px 8px; margin:4px 0; }
.call-head { display:flex; gap:8px; align-items:center; margin-bottom:3px; } .call .n { color:var(--muted); font-size:11px; }
.call .turn { color:var(--muted); font-size:11px; margin-left:auto; } .args { color:#334; } .result { color:#455; background:#f7f9fc; padding:4px 6px; border-radius:4px; margin-top:3px; max-height:220px; overflow:auto; }
.status { font-size:11px; font-weight:700; border-radius:4px; padding:0 6px; }
.status.ok { color:var(--pass); background:var(--pass-bg); } .status.error { color:var(--fail); background:var(--fail-bg); }
.status.rejected, .status.malformed { color:var(--error); background:var(--error-bg); }
.msg { border-left:3px solid var(--line); padding:4px 10px; margin:6px 0; }
.msg .role { font-size:11px; font-weight:700; text-transform:uppercase; color:var(--muted); margin-bottom:2px; }
.msg.user { border-color:#3b6fd8; } .msg.assistant { border-color:#1f8a4c; } .msg.tool { border-color:#b7bfcc; }
.msg.tool pre { max-height:240px; overflow:auto; } .msg.system summary { color:var(--muted); cursor:pointer; font-size:12px; }
.op.insert { color:var(--pass); } .op.update { color:var(--accent); } .op.delete { color:var(--fail); } .diff pre { max-width:420px; }
.error-line { color:var(--error); font-weight:600; } .facts-line { color:var(--muted); font-size:12px; }
[hidden] { display:none !important; }
"""

_SCRIPT = """
(function () {
  var form = document.getElementById("filters");
  var list = document.getElementById("episode-list");
  if (!form || !list) { return; }
  var episodes = Array.prototype.slice.call(list.children);
  var fields = { server: form.elements.server, outcome: form.elements.outcome, family: form.elements.family, q: form.elements.q };
  function apply() {
    var server = fields.server.value, result = fields.outcome.value, family = fields.family.value;
    var q = fields.q.value.trim().toLowerCase();
    var shown = 0;
    episodes.forEach(function (el) {
      var ok = (!server || el.dataset.servers.split(" ").indexOf(server) >= 0)
        && (!result || el.dataset.outcome === result)
        && (!family || el.dataset.family === family)
        && (!q || el.dataset.task.indexOf(q) >= 0);
      el.hidden = !ok;
      if (ok) { shown += 1; }
    });
    document.getElementById("shown").textContent = shown + " of " + episodes.length + " shown";
    var params = new URLSearchParams();
    Object.keys(fields).forEach(function (k) { if (fields[k].value) { params.set(k, fields[k].value); } });
    if (initial.get("open")) { params.set("open", initial.get("open")); }
    var hash = params.toString();
    if (history.replaceState) { history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search); }
  }
  var initial = new URLSearchParams(location.hash.replace(/^#/, ""));
  Object.keys(fields).forEach(function (k) {
    var value = initial.get(k);
    if (value === null) { return; }
    var field = fields[k];
    if (field.tagName === "SELECT") {
      var known = Array.prototype.some.call(field.options, function (o) { return o.value === value; });
      if (known) { field.value = value; }
    } else { field.value = value.slice(0, 200); }
  });
  var opened = initial.get("open");
  if (opened) {
    var target = document.getElementById(opened);
    if (target && target.tagName === "DETAILS" && target.parentNode === list) {
      target.open = true;
      target.scrollIntoView();
    }
  }
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  form.addEventListener("change", apply);
  form.addEventListener("input", apply);
  document.getElementById("expand").addEventListener("click", function () {
    episodes.forEach(function (el) { if (!el.hidden && el.tagName === "DETAILS") { el.open = true; } });
  });
  document.getElementById("collapse").addEventListener("click", function () {
    episodes.forEach(function (el) { if (el.tagName === "DETAILS") { el.open = false; } });
  });
  apply();
})();
"""
_SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(_SCRIPT.encode("utf-8")).digest()).decode("ascii")
"""The page's Content-Security-Policy lets only this script run: no other script, inline or not, ever does."""


__all__ = ["DETAIL_BUDGET", "MAX_DETAILED", "MAX_LISTED", "MAX_TEXT", "family_of", "outcome", "render_report", "write_report"]
