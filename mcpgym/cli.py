"""The `mcpgym` command: list servers and tools, serve a server over MCP, run agents, check tasks."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from mcpgym.registration import env_ids
from mcpgym.servers.catalog import load_server, server_names

AGENTS = ("oracle", "noop", "random")


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
    from mcpgym.servers.kernel.mcp_server import run_stdio, serve_http

    spec = load_server(args.server)
    if args.transport == "stdio":
        run_stdio(spec, seed=args.seed)
    else:
        print(
            f"serving {spec.name} (seed {args.seed}) on http://{args.host}:{args.port}: "
            "POST /sessions for a session endpoint /sessions/<id>/mcp",
            file=sys.stderr,
        )
        serve_http(spec, host=args.host, port=args.port, seed=args.seed, max_sessions=args.max_sessions)
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
    from mcpgym.tasks.loader import load_tasks, shipped_tasks

    tasks = [t for path in args.files for t in load_tasks(path)] if args.files else shipped_tasks()
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
    from mcpgym.tasks.loader import load_tasks, save_tasks

    done = []
    for task in load_tasks(args.source):
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


def resolve_tasks(source: str) -> list:  # type: ignore[type-arg]
    """Tasks from a JSONL path, or shipped ones by name: `shipped` (all hand-written), a named
    set (`synth-train`, `synth-test`, ...), a server name, or a shipped file's stem (`workspace`)."""
    from pathlib import Path

    from mcpgym.tasks.loader import load_tasks, shipped_task_files, shipped_tasks

    from mcpgym.tasks.loader import TASK_SETS, named_tasks

    if Path(source).is_file():
        return load_tasks(source)
    if source == "shipped":
        return shipped_tasks()
    if source in TASK_SETS:
        return named_tasks(source)
    if source in server_names():
        return [t for t in shipped_tasks() if t.servers == [source]]
    stems = {name.removesuffix(".jsonl") for name in shipped_task_files()}
    if source in stems:
        from importlib import resources

        from mcpgym.tasks.loader import parse_tasks

        text = (resources.files("mcpgym.tasks") / "data" / f"{source}.jsonl").read_text("utf-8")
        return parse_tasks(text.splitlines(), source)
    raise KeyError(
        f"no task file or task set {source!r}; names: shipped, {', '.join(TASK_SETS)}, "
        f"{', '.join(sorted(stems | set(server_names())))}"
    )


def make_agent_factory(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """A function from an episode seed to a fresh agent of the chosen kind."""
    from mcpgym.baselines.agents import NoOpAgent, OracleAgent, RandomAgent

    if args.agent in ("openai", "openai-text"):
        if not args.base_url or not args.model:
            raise KeyError("--agent openai needs --base-url and --model")
        from mcpgym.baselines.chat_agent import ChatAgent

        mode = "tools" if args.agent == "openai" else "text"
        return lambda seed: ChatAgent(
            base_url=args.base_url, model=args.model, api_key=args.api_key, mode=mode, temperature=args.temperature,
            max_tokens=args.max_tokens, timeout=args.timeout, retries=args.retries, backoff=args.backoff, seed=seed,
        )
    if args.agent == "policy":
        if not args.model_path:
            raise KeyError("--agent policy needs --model-path (a model folder or Hugging Face path)")
        from mcpgym.baselines.train.policy import PolicyAgent

        agent = PolicyAgent.from_pretrained(args.model_path, max_new_tokens=args.max_tokens)
        return lambda seed: agent
    simple = {"oracle": lambda seed: OracleAgent(), "noop": lambda seed: NoOpAgent(), "random": RandomAgent}
    return simple[args.agent]


def cmd_eval(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from mcpgym.baselines.evaluate import evaluate
    from mcpgym.baselines.metrics import markdown_table

    if args.api_key is None:
        args.api_key = os.environ.get("OPENAI_API_KEY")
    try:
        import matplotlib  # noqa: F401
        import openai  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError as err:
        raise KeyError(f"mcpgym eval needs the eval extra ({err.name} is missing): pip install 'mcpgym[eval]'") from None
    tasks = resolve_tasks(args.tasks)
    if args.limit:
        tasks = tasks[: args.limit]
    summary = evaluate(
        tasks,
        make_agent_factory(args),
        Path(args.out),
        episodes_per_task=args.episodes_per_task,
        concurrency=args.concurrency,
        seed=args.seed,
        env_kwargs={"max_turns": args.max_turns, "max_calls": args.max_calls, "reward": args.reward},
        progress=not args.quiet,
    )
    print(markdown_table(summary))
    overall = summary["overall"]
    print(
        f"\n{overall['episodes']} episodes, mean reward {overall['mean_reward']:.3f}, "
        f"{overall['model_errors']} model errors; wrote {args.out}/trajectories.jsonl, summary.json, summary.md, "
        "reward_by_server.png, reward_by_difficulty.png"
    )
    return 0


def cmd_eval_compare(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from mcpgym.baselines.evaluate import SUMMARY, compare

    a, b = (json.loads((Path(d) / SUMMARY).read_text()) for d in (args.a, args.b))
    print(compare(a, b))
    return 0


def cmd_synth_graph(args: argparse.Namespace) -> int:
    from pathlib import Path

    from mcpgym.synth.draw import write_graph
    from mcpgym.synth.graph import build_graph

    servers = [s.strip() for s in args.servers.split(",") if s.strip()] if args.servers else server_names()
    unknown = set(servers) - set(server_names())
    if unknown:
        raise KeyError(f"unknown servers {sorted(unknown)}; servers: {', '.join(server_names())}")
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
    if unknown:
        raise KeyError(f"unknown servers {sorted(unknown)}; servers: {', '.join(server_names())}")
    if args.hf_out and importlib.util.find_spec("datasets") is None:
        raise KeyError("--hf-out needs the optional extra: pip install 'mcpgym[hf]'")
    from mcpgym.synth.families import families_for

    families = [f for f in families_for(servers) if f.name.startswith(args.families or "")]
    if not families:
        raise KeyError(f"no task family for servers {servers} named {args.families or '*'}*")
    start = time.perf_counter()
    try:
        tasks, report = synthesize(
            servers, args.n, seed=args.seed, world_seed=args.world_seed, families=families,
            progress=not args.quiet, workers=args.workers,
        )
    except ValueError as err:
        raise KeyError(str(err)) from None
    elapsed = time.perf_counter() - start
    if args.llm_base_url:
        from mcpgym.synth.paraphrase import paraphrase_tasks

        if not args.llm_model:
            raise KeyError("--llm-base-url needs --llm-model")
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
    parser = argparse.ArgumentParser(
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
    p.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    p.add_argument("--seed", type=int, default=0, help="world seed: same seed, same world (default 0)")
    p.add_argument("--max-sessions", type=int, default=512, help="HTTP sessions kept at once (default 512)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("run", help="run an agent through an env's tasks and print what happened and the reward")
    p.add_argument("--env", default="mcp/zendesk-v0", help="env id (default mcp/zendesk-v0)")
    p.add_argument("--task", default=None, help="one task id (default: every task of the env)")
    p.add_argument("--agent", choices=AGENTS, default="oracle", help="agent to run (default oracle)")
    p.add_argument("--seed", type=int, default=0, help="seed for reset and the random agent")
    p.add_argument("--quiet", action="store_true", help="print only the per-task summary lines")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "eval",
        help="score an agent on a task set (`mcpgym eval compare A B` compares two runs)",
        description="Run an agent over a task set in parallel, resumably, and write trajectories.jsonl, "
        "summary.json, summary.md and reward plots to --out. A rerun with the same --out skips finished episodes.",
    )
    p.add_argument("--tasks", default="shipped", help="JSONL file, or shipped / a server name / a shipped set (default shipped)")
    p.add_argument("--agent", choices=(*AGENTS, "openai", "openai-text", "policy"), default="oracle",
                   help="openai: Chat Completions with tools; openai-text: tool calls as <tool_call> text; "
                   "policy: a local model folder (--model-path), e.g. a training checkpoint, greedy")
    p.add_argument("--model-path", default=None, help="model folder or Hugging Face path for --agent policy")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", help="model name sent to the endpoint")
    p.add_argument("--api-key", default=None, help="API key (default: $OPENAI_API_KEY)")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=int, default=1024, help="per model reply")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per model call (default 60)")
    p.add_argument("--retries", type=int, default=3, help="retries of a failed model call, with backoff (default 3)")
    p.add_argument("--backoff", type=float, default=1.0, help="first backoff in seconds, doubled per retry")
    p.add_argument("--episodes-per-task", type=int, default=1, help="k for pass^k (default 1)")
    p.add_argument("--concurrency", type=int, default=4, help="episodes in flight (default 4)")
    p.add_argument("--seed", type=int, default=0, help="episode e uses seed + e")
    p.add_argument("--max-turns", type=int, default=24)
    p.add_argument("--max-calls", type=int, default=48)
    p.add_argument("--reward", choices=("dense", "outcome-only", "process-only"), default="dense")
    p.add_argument("--limit", type=int, default=None, help="only the first N tasks")
    p.add_argument("--out", required=True, help="output folder (reused to resume)")
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
    g.add_argument("--out", default="graph", help="output folder (default ./graph)")
    g.set_defaults(func=cmd_synth_graph)

    from mcpgym.baselines.train.commands import add_parsers

    add_parsers(sub)

    p = sub.add_parser("tasks", help="task sets")
    tasks_sub = p.add_subparsers(dest="tasks_command", required=True)
    v = tasks_sub.add_parser("verify", help="execute each task's ground truth and check every recorded value")
    v.add_argument("files", nargs="*", help="JSONL files (default: the shipped tasks)")
    v.set_defaults(func=cmd_tasks_verify)
    c = tasks_sub.add_parser(
        "complete",
        help="execute hand-written tasks and fill in fact values, expected changes and difficulty",
        description="Execute each task's ground truth on a fresh world and record what it yields: fact "
        "values, the row changes (hand-picked `fields` of a listed change are kept) and the difficulty.",
    )
    c.add_argument("source", help="JSONL of tasks whose values may be null")
    c.add_argument("-o", "--output", required=True, help="where to write the completed JSONL")
    c.set_defaults(func=cmd_tasks_complete)
    return parser


def compare_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcpgym eval compare", description="Print run B minus run A.")
    parser.add_argument("a", help="output folder of run A")
    parser.add_argument("b", help="output folder of run B")
    parser.set_defaults(func=cmd_eval_compare)
    return parser


def synth_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcpgym synth",
        description="Synthesize validated tasks from the seeded worlds (`mcpgym synth graph` writes the "
        "tool dependency graph). Same arguments, same file, byte for byte.",
    )
    parser.add_argument("--servers", required=True, help="comma-separated servers, e.g. zendesk")
    parser.add_argument("--n", type=int, default=100, help="tasks to write (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    parser.add_argument("--world-seed", type=int, default=0, help="seed of the first world the tasks run in (default 0); "
                        "large sets move on to the next seeds once a kind of task has nothing new left")
    parser.add_argument("--families", default=None, help="only families whose name starts with this, e.g. cross. or zendesk.")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="drafting and validation processes (default: one per core); the output does not depend on it")
    parser.add_argument("--out", required=True, help="JSONL file to write")
    parser.add_argument("--llm-base-url", default=None, help="paraphrase user turns through this OpenAI-compatible endpoint (off by default)")
    parser.add_argument("--llm-model", default=None, help="model for --llm-base-url")
    parser.add_argument("--llm-api-key", default=None, help="API key for --llm-base-url")
    parser.add_argument("--hf-out", default=None, metavar="DIR",
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
    try:
        return int(args.func(args))
    except (KeyError, FileNotFoundError) as err:
        print(f"mcpgym: {err.args[0] if isinstance(err, KeyError) else err}", file=sys.stderr)
        return 2
