"""The `mcpgym` command: list servers and tools, serve a server over MCP, run agents, check tasks."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from mcpgym import arguments
from mcpgym.arguments import CliError, UsageError, bounded_float, bounded_int
from mcpgym.registration import env_ids
from mcpgym.servers.catalog import load_server, server_names

AGENTS = ("oracle", "noop", "random")


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line: what is wrong, and where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def cmd_list(args: argparse.Namespace) -> int:
    rows = [("server", "env id", "tools", "reads", "writes")]
    for name in server_names():
        tools = list(load_server(name).tools)
        writes = sum(t.writes for t in tools)
        rows.append((name, f"mcp/{name}-v0", str(len(tools)), str(len(tools) - writes), str(writes)))
    _print_table(rows)
    groups = [(env_id, ", ".join(servers)) for env_id, servers in env_ids().items() if len(servers) > 1]
    if groups:
        print()
        _print_table([("multi-server env id", "servers"), *groups])
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    spec = load_server(args.server)
    rows = [("tool", "kind", "description")]
    for tool in spec.tools:
        rows.append((tool.name, "write" if tool.writes else "read", tool.description.splitlines()[0]))
    _print_table(rows)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from mcpgym.servers.kernel.http_access import AccessPolicy, is_loopback
    from mcpgym.servers.kernel.http_app import HttpSettings
    from mcpgym.servers.kernel.mcp_server import run_stdio, serve_http

    spec = load_server(args.server)
    token = args.token or os.environ.get("MCPGYM_TOKEN") or None
    try:
        settings = HttpSettings(
            seed=args.seed,
            max_sessions=args.max_sessions,
            max_memory_mb=args.max_memory_mb,
            idle_seconds=args.idle_seconds,
            max_result_chars=args.max_result_chars,
            access=AccessPolicy(
                bind_host=args.host, token=token, allowed_hosts=args.allowed_host, allowed_origins=args.allowed_origin
            ),
        )
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        print(f"mcpgym serve: {problems}", file=sys.stderr)
        return 2
    if args.transport == "stdio":
        run_stdio(spec, seed=args.seed, max_result_chars=settings.max_result_chars)
        return 0
    if token is None and not is_loopback(args.host):
        print(
            f"warning: serving on {args.host} without a token: anyone who can reach this address can create "
            "sessions and call every tool. Pass --token or set MCPGYM_TOKEN.",
            file=sys.stderr,
        )
    print(
        f"serving {spec.name} (seed {args.seed}) on http://{args.host}:{args.port} with {args.workers} worker(s): "
        "POST /sessions for a session endpoint /sessions/<id>/mcp",
        file=sys.stderr,
    )
    serve_http(spec, host=args.host, port=args.port, settings=settings, workers=args.workers)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from mcpgym.baselines.agents import NoOpAgent, OracleAgent, RandomAgent
    from mcpgym.baselines.rollout import run_episode

    env = gym.make(args.env, render_mode="ansi").unwrapped
    tasks = [t for t in env.tasks if args.task in (None, t.id)]
    if not tasks:
        print(f"no task {args.task!r} for {args.env}; tasks: {', '.join(t.id for t in env.tasks)}", file=sys.stderr)
        return 2
    agents = {"oracle": OracleAgent, "noop": NoOpAgent, "random": lambda: RandomAgent(args.seed)}
    total = 0.0
    for task in tasks:
        episode = run_episode(env, agents[args.agent](), task.id, seed=args.seed)
        total += episode.reward
        if not args.quiet:
            print(f"=== {task.id} ({args.agent} agent on {args.env})")
            print(env.render())
        components = episode.info.get("reward_breakdown", {}).get("components", {})
        shown = ", ".join(f"{name} {value:.2f}" for name, value in components.items() if value is not None)
        print(
            f"--- {task.id}: reward {episode.reward:.3f} in {episode.steps} steps, "
            f"{len(episode.info['calls'])} tool calls, {len(episode.info['errors'])} errors, "
            f"{len(episode.info.get('state_diff', []))} rows changed; {shown}\n"
        )
    print(f"mean reward over {len(tasks)} tasks: {total / len(tasks):.3f}")
    env.close()
    return 0


def cmd_tasks_verify(args: argparse.Namespace) -> int:
    from mcpgym.tasks.execute import verify_task
    from mcpgym.tasks.loader import shipped_tasks

    tasks = [t for source in args.files for t in source.tasks] if args.files else shipped_tasks()
    failed = 0
    for task in tasks:
        problems = verify_task(task)
        failed += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {task.id}")
        for problem in problems:
            print(f"     {problem}")
    print(f"{len(tasks) - failed}/{len(tasks)} tasks verified by execution")
    return 1 if failed else 0


def cmd_tasks_complete(args: argparse.Namespace) -> int:
    from mcpgym.tasks.execute import complete_task, verify_task
    from mcpgym.tasks.loader import save_tasks

    done = []
    for task in args.source.tasks:
        try:
            completed = complete_task(task)
        except ValueError as err:
            print(f"FAIL {task.id}: {err}", file=sys.stderr)
            return 1
        problems = verify_task(completed)
        if problems:
            print(f"FAIL {task.id}: {'; '.join(problems)}", file=sys.stderr)
            return 1
        done.append(completed)
        print(f"ok   {task.id}: {len(completed.facts)} facts, {len(completed.expected_changes)} changes, {completed.difficulty}")
    save_tasks(done, args.output)
    print(f"wrote {len(done)} tasks to {args.output}")
    return 0


def make_agent_factory(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """A function from an episode seed to a fresh agent of the chosen kind."""
    from mcpgym.baselines.agents import NoOpAgent, OracleAgent, RandomAgent

    if args.agent in ("openai", "openai-text"):
        if not args.base_url or not args.model:
            raise UsageError(f"--agent {args.agent} needs --base-url and --model")
        from mcpgym.baselines.chat_agent import ChatAgent

        mode = "tools" if args.agent == "openai" else "text"
        first = ChatAgent(
            base_url=args.base_url, model=args.model, api_key=args.api_key, mode=mode, temperature=args.temperature,
            max_tokens=args.max_tokens, timeout=args.timeout, retries=args.retries, backoff=args.backoff,
        )
        return first.sibling
    if args.agent == "policy":
        if not args.model_path:
            raise UsageError("--agent policy needs --model-path (a model folder or Hugging Face path)")
        try:
            from mcpgym.baselines.train.policy import PolicyAgent
        except ImportError as err:
            raise CliError(f"--agent policy needs the train extra ({err.name} is missing): pip install 'mcpgym[train]'") from None
        try:
            agent = PolicyAgent.from_pretrained(args.model_path, max_new_tokens=args.max_tokens)
        except (OSError, ValueError) as err:  # transformers' errors for a folder or repo it cannot load
            raise CliError(f"cannot load the model {args.model_path!r}: {arguments.one_line(str(err))}") from None
        return lambda seed: agent
    simple = {"oracle": lambda seed: OracleAgent(), "noop": lambda seed: NoOpAgent(), "random": RandomAgent}
    return simple[args.agent]


def agent_settings(args: argparse.Namespace) -> dict[str, Any]:
    """What identifies the agent of an eval run, for its manifest (never the API key)."""
    if args.agent in ("openai", "openai-text"):
        from mcpgym.baselines.chat_agent import public_url

        return {"kind": args.agent, "model": args.model, "base_url": public_url(args.base_url),
                "temperature": args.temperature, "max_tokens": args.max_tokens}
    if args.agent == "policy":
        local = Path(args.model_path)
        return {"kind": "policy", "model_path": str(local.resolve()) if local.exists() else args.model_path,
                "max_tokens": args.max_tokens}
    return {"kind": args.agent}


def cmd_eval(args: argparse.Namespace) -> int:
    from mcpgym.baselines.evaluate import evaluate
    from mcpgym.baselines.metrics import markdown_table

    if args.api_key is None:
        args.api_key = os.environ.get("OPENAI_API_KEY")
    try:
        import matplotlib  # noqa: F401
        import openai  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError as err:
        raise CliError(f"mcpgym eval needs the eval extra ({err.name} is missing): pip install 'mcpgym[eval]'") from None
    tasks = list(args.tasks.tasks)[: args.limit]
    report = evaluate(
        tasks,
        make_agent_factory(args),
        args.out,
        episodes_per_task=args.episodes_per_task,
        concurrency=args.concurrency,
        seed=args.seed,
        env_kwargs={"max_turns": args.max_turns, "max_calls": args.max_calls, "reward": args.reward},
        progress=not args.quiet,
        agent_settings=agent_settings(args),
        overwrite=args.overwrite,
    )
    errors = sum(report.errors.values())
    if errors:
        common, count = report.errors.most_common(1)[0]
        print(f"{errors} of {report.ran} episodes ended in a model error ({count}x: {common}); "
              "rerun the same command to play them again", file=sys.stderr)
    if report.ran and not report.answered:
        stopped = " (stopped early)" if report.stopped_early else ""
        raise CliError(f"no episode got an answer from the model{stopped}; the run in {args.out} keeps the errors")
    print(markdown_table(report.summary))
    overall = report.summary["overall"]
    print(
        f"\n{overall['episodes']} episodes ({report.ran} played now, {report.resumed} resumed), mean reward "
        f"{overall['mean_reward']:.3f}, {overall['model_errors']} model errors; wrote {args.out}/trajectories.jsonl, "
        "summary.json, summary.md, reward_by_server.png, reward_by_difficulty.png"
    )
    return 0


def cmd_eval_compare(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from mcpgym.baselines.evaluate import SUMMARY, compare

    def read(folder: str) -> dict[str, Any]:
        path = Path(folder) / SUMMARY
        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UsageError(f"{folder} has no {SUMMARY}: not the folder of an eval run") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise CliError(f"cannot read {path}: {err}") from None
        if not isinstance(summary, dict) or not isinstance(summary.get("overall"), dict) or not summary["overall"].get("episodes"):
            raise CliError(f"{path} holds no episodes to compare")
        return summary

    print(compare(read(args.a), read(args.b)))
    return 0


def cmd_synth_graph(args: argparse.Namespace) -> int:
    from pathlib import Path

    from mcpgym.synth.draw import write_graph
    from mcpgym.synth.graph import build_graph

    servers = [s.strip() for s in args.servers.split(",") if s.strip()] if args.servers else server_names()
    unknown = set(servers) - set(server_names())
    if unknown:
        raise UsageError(f"unknown servers {sorted(unknown)}; servers: {', '.join(server_names())}")
    graph = build_graph(servers)
    paths = write_graph(graph, Path(args.out))
    cross = sum(1 for *_, d in graph.edges(data=True) if d["cross"])
    print(f"{graph.number_of_nodes()} tools, {graph.number_of_edges()} field-to-parameter edges ({cross} cross-server)")
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def cmd_synth(args: argparse.Namespace) -> int:
    import importlib.util
    import time
    from pathlib import Path

    from mcpgym.synth.generate import synthesize
    from mcpgym.tasks.loader import save_tasks

    servers = [s.strip() for s in args.servers.split(",") if s.strip()]
    unknown = set(servers) - set(server_names())
    if unknown or not servers:
        raise UsageError(f"unknown servers {sorted(unknown) or args.servers!r}; servers: {', '.join(server_names())}")
    if args.hf_out and importlib.util.find_spec("datasets") is None:
        raise CliError("--hf-out needs the optional extra: pip install 'mcpgym[hf]'")
    if args.llm_base_url and not args.llm_model:
        raise UsageError("--llm-base-url needs --llm-model")
    from mcpgym.synth.families import families_for

    families = [f for f in families_for(servers) if f.name.startswith(args.families or "")]
    if not families:
        raise UsageError(f"no task family for servers {servers} named {args.families or '*'}*")
    start = time.perf_counter()
    try:
        tasks, report = synthesize(
            servers, args.n, seed=args.seed, world_seed=args.world_seed, families=families,
            progress=not args.quiet, workers=args.workers,
        )
    except ValueError as err:
        raise UsageError(str(err)) from None
    elapsed = time.perf_counter() - start
    if args.llm_base_url:
        from mcpgym.synth.paraphrase import paraphrase_tasks

        tasks, unchanged = paraphrase_tasks(tasks, args.llm_base_url, args.llm_model, args.llm_api_key)
        print(f"paraphrased through {args.llm_model}; {unchanged} turns kept their template wording")
    save_tasks(tasks, Path(args.out))
    if args.hf_out:
        from mcpgym.synth.export import export_tasks

        dataset = export_tasks(tasks, Path(args.hf_out))
        print(f"Hugging Face dataset: train {len(dataset['train'])}, test {len(dataset['test'])} -> {args.hf_out}")
    _print_table([("family", "split", "difficulty", "tasks"), *((f, s, b, str(n)) for f, s, b, n in report.rows())])
    rejected = ", ".join(f"{reason}: {count}" for reason, count in report.rejected.most_common()) or "none"
    print(f"\n{len(tasks)} tasks in {elapsed:.1f} s ({len(tasks) / elapsed:.0f}/s) -> {args.out}; rejected drafts: {rejected}")
    if len(tasks) < args.n:
        print(f"only {len(tasks)} of {args.n}: the families ran out of distinct grounded entities", file=sys.stderr)
    return 0


def _print_table(rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if n == 0:
            print("  ".join("-" * width for width in widths))


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="mcpgym", description="Stateful MCP tool servers as Gymnasium environments for tool-calling agents."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="servers, their env ids and tool counts")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("tools", help="a server's tools with one-line descriptions")
    p.add_argument("server", choices=server_names())
    p.set_defaults(func=cmd_tools)

    p = sub.add_parser("serve", help="serve one server over MCP (stdio or streamable HTTP)")
    p.add_argument("server", choices=server_names())
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    p.add_argument("--port", type=bounded_int(0, 65_535), default=8000, help="HTTP port (default 8000)")
    p.add_argument("--seed", type=int, default=0, help="world seed: same seed, same world (default 0)")
    p.add_argument("--max-sessions", type=int, default=512, help="HTTP sessions kept at once (default 512)")
    p.add_argument("--max-memory-mb", type=float, default=2048.0, help="memory the HTTP sessions' worlds may hold (default 2048)")
    p.add_argument("--idle-seconds", type=float, default=1800.0, help="close an HTTP session idle this long (default 1800)")
    p.add_argument("--max-result-chars", type=int, default=65_536, help="cut longer tool results, with a note (default 65536)")
    p.add_argument("--workers", type=bounded_int(1, 64), default=1, help="HTTP worker processes, 1 to 64; each session lives in one (default 1)")
    p.add_argument("--token", default=None, help="bearer token every HTTP request must carry (default: $MCPGYM_TOKEN, else none)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME", help="host name accepted in Host besides localhost and the bound address (repeatable)")
    p.add_argument("--allowed-origin", action="append", default=[], metavar="ORIGIN", help="browser Origin accepted besides loopback ones, e.g. https://app.example (repeatable)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("run", help="run an agent through an env's tasks and print what happened and the reward")
    p.add_argument("--env", type=arguments.env_id, default="mcp/zendesk-v0", help="env id (default mcp/zendesk-v0; see mcpgym list)")
    p.add_argument("--task", default=None, help="one task id (default: every task of the env)")
    p.add_argument("--agent", choices=AGENTS, default="oracle", help="agent to run (default oracle)")
    p.add_argument("--seed", type=arguments.seed, default=0, help="seed for reset and the random agent, 0 to 2^32-1 (default 0)")
    p.add_argument("--quiet", action="store_true", help="print only the per-task summary lines")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "eval",
        help="score an agent on a task set (`mcpgym eval compare A B` compares two runs)",
        description="Run an agent over a task set in parallel, resumably, and write trajectories.jsonl, "
        "summary.json, summary.md and reward plots to --out. A rerun with the same --out and settings resumes: it "
        "skips finished episodes and plays again those that ended in a model error.",
    )
    p.add_argument("--tasks", type=arguments.task_source, default="shipped", metavar="SET_OR_FILE",
                   help="JSONL task file, or shipped / a server name / a shipped set (default shipped)")
    p.add_argument("--agent", choices=(*AGENTS, "openai", "openai-text", "policy"), default="oracle",
                   help="openai: Chat Completions with tools; openai-text: tool calls as <tool_call> text; "
                   "policy: a local model folder (--model-path), e.g. a training checkpoint, greedy")
    p.add_argument("--model-path", type=arguments.model_path, default=None,
                   help="model folder (with config.json) or Hugging Face repo id, for --agent policy")
    p.add_argument("--base-url", type=arguments.http_url, help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", help="model name sent to the endpoint")
    p.add_argument("--api-key", default=None, help="API key (default: $OPENAI_API_KEY)")
    p.add_argument("--temperature", type=bounded_float(0, 2), default=0.0, help="0 to 2 (default 0)")
    p.add_argument("--max-tokens", type=bounded_int(1, 1_000_000), default=1024, help="per model reply, 1 to 1000000 (default 1024)")
    p.add_argument("--timeout", type=bounded_float(0, 3600, low_open=True), default=60.0,
                   help="seconds per model call, above 0 up to 3600 (default 60)")
    p.add_argument("--retries", type=bounded_int(0, 20), default=3, help="retries of a failed model call, with backoff, 0 to 20 (default 3)")
    p.add_argument("--backoff", type=bounded_float(0, 600), default=1.0, help="first backoff in seconds, doubled per retry, 0 to 600 (default 1)")
    p.add_argument("--episodes-per-task", type=bounded_int(1, 1000), default=1, help="k for pass^k, 1 to 1000 (default 1)")
    p.add_argument("--concurrency", type=bounded_int(1, 256), default=4,
                   help="episodes in flight when the agent calls a remote model, 1 to 256 (default 4)")
    p.add_argument("--seed", type=arguments.seed, default=0, help="episode e uses seed + e; 0 to 2^32-1 (default 0)")
    p.add_argument("--max-turns", type=bounded_int(1, 1000), default=24, help="assistant turns per episode, 1 to 1000 (default 24)")
    p.add_argument("--max-calls", type=bounded_int(1, 10_000), default=48, help="tool calls per episode, 1 to 10000 (default 48)")
    p.add_argument("--reward", choices=("dense", "outcome-only", "process-only"), default="dense")
    p.add_argument("--limit", type=arguments.positive_int, default=None, help="only the first N tasks (N at least 1)")
    p.add_argument("--out", type=arguments.output_folder, required=True,
                   help="output folder, new or from a run with the same settings (its parent folder must exist)")
    p.add_argument("--overwrite", action="store_true", help="delete the run files in --out first and start over")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("synth", help="synthesize tasks (`mcpgym synth --servers ... --n N --out F`) or write the graph")
    synth_sub = p.add_subparsers(dest="synth_command", required=True)
    g = synth_sub.add_parser(
        "graph",
        help="write the tool dependency graph as JSON, GraphML and PNG",
        description="An edge A -> B where a field of A's result can fill a parameter of B (same entity; "
        "people link servers by email).",
    )
    g.add_argument("--servers", default=None, help="comma-separated servers (default: all)")
    g.add_argument("--out", type=arguments.output_folder, default="graph", help="output folder (default ./graph)")
    g.set_defaults(func=cmd_synth_graph)

    from mcpgym.baselines.train.commands import add_parsers

    add_parsers(sub)

    p = sub.add_parser("tasks", help="task sets")
    tasks_sub = p.add_subparsers(dest="tasks_command", required=True)
    v = tasks_sub.add_parser("verify", help="execute each task's ground truth and check every recorded value")
    v.add_argument("files", nargs="*", type=arguments.task_file, help="JSONL files (default: the shipped tasks)")
    v.set_defaults(func=cmd_tasks_verify)
    c = tasks_sub.add_parser(
        "complete",
        help="execute hand-written tasks and fill in fact values, expected changes and difficulty",
        description="Execute each task's ground truth on a fresh world and record what it yields: fact "
        "values, the row changes (hand-picked `fields` of a listed change are kept) and the difficulty.",
    )
    c.add_argument("source", type=arguments.task_file, help="JSONL of tasks whose values may be null")
    c.add_argument("-o", "--output", type=arguments.output_file, required=True, help="where to write the completed JSONL")
    c.set_defaults(func=cmd_tasks_complete)
    return parser


def compare_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="mcpgym eval compare", description="Print run B minus run A.")
    parser.add_argument("a", help="output folder of run A")
    parser.add_argument("b", help="output folder of run B")
    parser.set_defaults(func=cmd_eval_compare)
    return parser


def synth_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="mcpgym synth",
        description="Synthesize validated tasks from the seeded worlds (`mcpgym synth graph` writes the "
        "tool dependency graph). Same arguments, same file, byte for byte.",
    )
    parser.add_argument("--servers", required=True, help="comma-separated servers, e.g. zendesk")
    parser.add_argument("--n", type=bounded_int(1, 1_000_000), default=100, help="tasks to write, 1 to 1000000 (default 100)")
    parser.add_argument("--seed", type=arguments.seed, default=0, help="sampling seed (default 0)")
    parser.add_argument("--world-seed", type=arguments.seed, default=0, help="seed of the first world the tasks run in (default 0); "
                        "large sets move on to the next seeds once a kind of task has nothing new left")
    parser.add_argument("--families", default=None, help="only families whose name starts with this, e.g. cross. or zendesk.")
    parser.add_argument("--workers", type=bounded_int(1, 256), default=min(os.cpu_count() or 1, 256),
                        help="drafting and validation processes (default: one per core); the output does not depend on it")
    parser.add_argument("--out", type=arguments.output_file, required=True, help="JSONL file to write (its folder must exist)")
    parser.add_argument("--llm-base-url", default=None, help="paraphrase user turns through this OpenAI-compatible endpoint (off by default)")
    parser.add_argument("--llm-model", default=None, help="model for --llm-base-url")
    parser.add_argument("--llm-api-key", default=None, help="API key for --llm-base-url")
    parser.add_argument("--hf-out", type=arguments.output_folder, default=None, metavar="DIR",
                        help="also write the tasks as a Hugging Face DatasetDict (train/test) to DIR (extra mcpgym[hf])")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=cmd_synth)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["eval", "compare"]:
        args = compare_parser().parse_args(argv[2:])
    elif argv[:1] == ["synth"] and argv[1:2] != ["graph"]:
        args = synth_parser().parse_args(argv[1:])
    else:
        args = build_parser().parse_args(argv)
    from mcpgym.baselines.run_folder import RunFolderError

    try:
        return int(args.func(args))
    except UsageError as err:
        print(f"mcpgym: {err}", file=sys.stderr)
        return 2
    except (CliError, RunFolderError) as err:
        print(f"mcpgym: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mcpgym: interrupted (an eval run resumes where it stopped when run again)", file=sys.stderr)
        return 130
