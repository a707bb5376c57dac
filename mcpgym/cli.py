"""The `mcpgym` command: list servers and tools, serve a server over MCP, run agents, check tasks."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from mcpgym import arguments
from mcpgym.arguments import CliError, Parser, UsageError, bounded_float, bounded_int
from mcpgym.registration import env_ids
from mcpgym.servers.catalog import load_server, server_names

AGENTS = ("oracle", "noop", "random")
REWARDS = ("dense", "outcome-only", "process-only", "bfcl")
REWARD_HELP = ("reward preset: dense (outcome first, process credit), outcome-only (the benchmark score), "
               "process-only, or bfcl (BFCL's own checker, for BFCL tasks; docs/bfcl.md); see docs/rewards.md (default dense)")


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
    servers = arguments.server_list(args.servers)
    several = len(servers) > 1
    rows = [("server",) * several + ("tool", "kind", "description")]
    for name in servers:
        for tool in load_server(name).tools:
            summary = (tool.description.splitlines() or [""])[0]
            rows.append((name,) * several + (tool.name, "write" if tool.writes else "read", summary))
    _print_table(rows)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from mcpgym.servers.kernel.http_access import AccessPolicy, is_loopback
    from mcpgym.servers.kernel.http_app import HttpSettings
    from mcpgym.servers.kernel.mcp_server import run_stdio, serve_http

    servers = arguments.server_list(args.servers)
    if len(servers) > 1:
        raise UsageError(f"serve takes one server, not {len(servers)}: give one name to --servers")
    spec = load_server(servers[0])
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


def cmd_host(args: argparse.Namespace) -> int:
    """Serve scored episodes until interrupted."""
    from pydantic import ValidationError

    from mcpgym.envs.mcp_host import HostSettings, serve_host
    from mcpgym.servers.kernel.http_access import AccessPolicy, is_loopback

    servers = arguments.server_list(args.servers) if args.servers else None
    token = args.token or os.environ.get("MCPGYM_TOKEN") or None
    try:
        settings = HostSettings(
            seed=args.seed, max_sessions=args.max_episodes, max_memory_mb=args.max_memory_mb,
            idle_seconds=args.idle_seconds, max_result_chars=args.max_result_chars, max_calls=args.max_calls,
            max_steps=args.max_steps, reward=args.reward, servers=servers,
            access=AccessPolicy(bind_host=args.host, token=token, allowed_hosts=args.allowed_host,
                                allowed_origins=args.allowed_origin),
        )
    except ValidationError as err:
        raise UsageError("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())) from None
    tasks = [t for t in args.tasks.tasks if servers is None or set(t.servers) <= set(servers)]
    if token is None and not is_loopback(args.host):
        print(f"warning: serving on {args.host} without a token: anyone who can reach this address can start "
              "episodes. Pass --token or set MCPGYM_TOKEN.", file=sys.stderr)
    print(f"hosting episodes of {len(tasks)} tasks on http://{args.host}:{args.port}: POST /episodes for an MCP "
          "endpoint /episodes/<id>/mcp, GET /episodes/<id>/result for its score", file=sys.stderr)
    serve_host(settings, tasks, host=args.host, port=args.port)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from mcpgym.baselines.agents import NoOpAgent, OracleAgent, RandomAgent
    from mcpgym.baselines.rollout import run_episode

    env = gym.make(args.env, render_mode="ansi").unwrapped
    tasks = [t for t in env.tasks if args.task in (None, t.id)]
    if not tasks:
        env.close()
        raise UsageError(f"no task {args.task[:80]!r} for {args.env}; tasks: {arguments.listing(t.id for t in env.tasks)}")
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

    tasks = [t for source in args.tasks for t in source.tasks] if args.tasks else shipped_tasks()
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
    for task in args.tasks.tasks:
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
    save_tasks(done, args.out)
    print(f"wrote {len(done)} tasks to {args.out}")
    return 0


def agent_spec(args: argparse.Namespace) -> Any:
    """The `AgentSpec` of `mcpgym eval`'s arguments; `UsageError` naming what is missing."""
    from pydantic import ValidationError

    from mcpgym.baselines.agent_spec import REMOTE_KINDS, AgentSpec

    if args.agent in REMOTE_KINDS:
        if not args.model:
            raise UsageError(f"--agent {args.agent} needs --model (the model name the endpoint serves)")
        args.base_url = arguments.openai_url(args.base_url)
        if args.base_url == arguments.OPENAI_URL and not args.api_key:
            raise UsageError(f"--agent {args.agent} on {args.base_url} needs an API key: --api-key or $OPENAI_API_KEY "
                             "(or --base-url for another endpoint)")
    if args.agent == "policy" and not args.model_path:
        raise UsageError("--agent policy needs --model-path (a model folder or Hugging Face path)")
    try:
        return AgentSpec.from_args(args)
    except ValidationError as err:
        raise UsageError("; ".join(f"{'.'.join(map(str, e['loc'])) or 'agent'}: {e['msg']}" for e in err.errors())) from None


def cmd_eval(args: argparse.Namespace) -> int:
    from mcpgym.baselines.evaluate import evaluate
    from mcpgym.baselines.metrics import markdown_table

    if args.agent == "command":
        return cmd_eval_command(args)
    if args.api_key is None:
        args.api_key = os.environ.get("OPENAI_API_KEY")
    try:
        import matplotlib  # noqa: F401
        import openai  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError as err:
        raise CliError(f"mcpgym eval needs the eval extra ({err.name} is missing): pip install 'mcpgym[eval]'") from None
    from mcpgym.baselines.agent_spec import AgentBuildError
    from mcpgym.baselines.parallel import WorkerError

    tasks = list(args.tasks.tasks)[: args.limit]
    spec = agent_spec(args)
    env_kwargs = {"max_turns": args.max_turns, "max_calls": args.max_calls, "reward": args.reward,
                  "max_result_chars": args.max_result_chars,
                  **({"max_turn_steps": args.max_turn_steps} if args.max_turn_steps else {}),
                  **({"tools": args.tools} if args.tools else {})}
    if args.tools:
        check_tools_shown(tasks, args.tools)
    try:
        report = evaluate(
            tasks,
            spec,
            args.out,
            episodes_per_task=args.episodes_per_task,
            concurrency=args.concurrency,
            seed=args.seed,
            env_kwargs=env_kwargs | user_settings(args),
            progress=not args.quiet,
            overwrite=args.overwrite,
            workers=args.workers,
            backend=args.backend,
        )
    except (AgentBuildError, WorkerError) as err:
        raise CliError(str(err)) from None
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
    from mcpgym.baselines.metrics import pass_hat_ks

    hats = ", ".join(f"pass^{k} {overall['pass_hat_k'][k]:.2f}" for k in pass_hat_ks(report.summary))
    print(
        f"\n{overall['episodes']} episodes ({report.ran} played now, {report.resumed} resumed), mean reward "
        f"{overall['mean_reward']:.3f}, {hats}, {overall['model_errors']} model errors; wrote {args.out}/trajectories.jsonl, "
        "summary.json, summary.md, reward_by_server.png, reward_by_difficulty.png, report.html"
    )
    return 0


def check_tools_shown(tasks: list[Any], tools: list[str]) -> None:
    """`UsageError` unless every task runs with only `tools` shown (each name is a tool of the
    task's servers, and the task's ground truth needs no other)."""
    from mcpgym.envs import make_env

    by_servers: dict[tuple[str, ...], list[Any]] = {}
    for task in tasks:
        by_servers.setdefault(tuple(task.servers), []).append(task)
    for servers, group in by_servers.items():
        try:
            make_env(list(servers), tools=tools, tasks=group).close()
        except ValueError as err:
            raise UsageError(f"--tools: {arguments.one_line(str(err))}") from None


def user_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The env's `user` option from `--user`: nothing for the scripted user; for `llm`, an
    `LlmUserConfig` from --user-model and --user-base-url (falling back to the agent's)."""
    if args.user == "scripted":
        return {}
    from mcpgym.envs.user_simulator import LlmUserConfig

    model = args.user_model or args.model
    if not model:
        raise CliError("--user llm needs --user-model (or --model)")
    base_url = args.user_base_url or args.base_url or os.environ.get("OPENAI_BASE_URL") or arguments.OPENAI_URL
    return {"user": LlmUserConfig(base_url=base_url, model=model, api_key=args.api_key, seed=args.seed)}


def cmd_eval_command(args: argparse.Namespace) -> int:
    """`mcpgym eval --agent command`: score an agent command that works through MCP."""
    from pydantic import ValidationError

    from mcpgym.baselines.external_agent import CommandTemplate, ExternalAgentError, evaluate_external
    from mcpgym.baselines.metrics import markdown_table
    from mcpgym.envs.mcp_host import HostSettings

    if not args.agent_command:
        raise UsageError("--agent command needs --agent-command TEMPLATE, e.g. 'my-agent --mcp {mcp_url} --prompt {request}'")
    if args.workers != 1:
        raise UsageError("--agent command runs its commands --concurrency at a time; --workers is for the other agents")
    try:
        CommandTemplate(text=args.agent_command).fields()
        settings = HostSettings(max_calls=args.max_calls, max_steps=args.max_steps, reward=args.reward,
                                max_sessions=args.concurrency + 1)
    except ValidationError as err:
        raise UsageError("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())) from None
    except ValueError as err:
        raise UsageError(str(err)) from None
    tasks = list(args.tasks.tasks)[: args.limit]
    try:
        report = evaluate_external(
            tasks, args.agent_command, args.out, episodes_per_task=args.episodes_per_task,
            concurrency=args.concurrency, seed=args.seed, timeout=args.agent_timeout, settings=settings,
            progress=not args.quiet, overwrite=args.overwrite,
        )
    except ExternalAgentError as err:
        raise CliError(f"the episode host refused a request: {err}") from None
    if report.ran and not report.answered:
        stopped = " (stopped early)" if report.stopped_early else ""
        common = report.errors.most_common(1)[0][0] if report.errors else "unknown"
        raise CliError(f"every run of the agent command failed{stopped} ({common}); the run in {args.out} keeps the errors")
    print(markdown_table(report.summary))
    overall = report.summary["overall"]
    print(f"\n{overall['episodes']} episodes ({report.ran} played now, {report.resumed} resumed), mean reward "
          f"{overall['mean_reward']:.3f}, {overall['model_errors']} agent errors; wrote {args.out}")
    return 0


def cmd_eval_compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    from mcpgym.baselines.evaluate import SUMMARY, RunView, compare

    for folder in (args.a, args.b):
        if not (Path(folder) / SUMMARY).is_file():
            raise UsageError(f"{folder} has no {SUMMARY}: not the folder of an eval run")
    runs = [RunView.read(Path(folder)) for folder in (args.a, args.b)]
    try:
        comparison = compare(*runs)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise CliError(
            f"a summary.json of {args.a} or {args.b} is not one mcpgym eval wrote ({type(err).__name__}: {err})"
        ) from None
    for warning in comparison.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(comparison.text)
    return 0


def cmd_eval_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from mcpgym.baselines.evaluate import TRAJECTORIES, write_report_from_folder

    folder = Path(args.run)
    if not (folder / TRAJECTORIES).is_file():
        raise UsageError(f"{args.run} has no {TRAJECTORIES}: not the folder of an eval run")
    print(f"wrote {write_report_from_folder(folder)}")
    return 0


def cmd_synth_graph(args: argparse.Namespace) -> int:
    from pathlib import Path

    from mcpgym.synth.draw import write_graph
    from mcpgym.synth.graph import build_graph

    servers = arguments.server_list(args.servers, default=server_names())
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

    servers = arguments.server_list(args.servers)
    if args.hf_out and importlib.util.find_spec("datasets") is None:
        raise CliError("--hf-out needs the optional extra: pip install 'mcpgym[hf]'")
    if args.llm_base_url and not args.llm_model:
        raise UsageError("--llm-base-url needs --llm-model")
    from mcpgym.synth.families import families_for

    available = families_for(servers)
    families = [f for f in available if f.name.startswith(args.families or "")]
    if not families:
        names = [f.name for f in available]
        prefixes = sorted({name.split(".")[0] + "." for name in names})
        raise UsageError(
            f"no task family of {','.join(servers)} starts with {(args.families or '')[:80]!r}; prefixes: {', '.join(prefixes)}; "
            f"families: {arguments.listing(names)}"
        )
    start = time.perf_counter()
    try:
        tasks, report = synthesize(
            servers, args.n, seed=args.seed, world_seed=args.world_seed, families=families,
            progress=not args.quiet, workers=args.workers,
        )
    except ValueError as err:
        raise UsageError(str(err)) from None
    elapsed = time.perf_counter() - start
    if args.clarify:
        import random

        from mcpgym.synth.clarify import clarification_tasks

        before = {task.id for task in tasks}
        tasks = clarification_tasks(tasks, random.Random(args.seed), args.clarify)
        asked = sum(task.id not in before for task in tasks)
        print(f"{asked} tasks withhold a value of their first request (--clarify {args.clarify:g})")
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
    from mcpgym.text_table import text_table

    print(text_table(rows))


def build_parser() -> argparse.ArgumentParser:
    """The `mcpgym` parser and its subcommands (`mcpgym synth` and `mcpgym eval compare` have parsers of their own)."""
    parser = Parser(
        prog="mcpgym",
        description="Stateful MCP tool servers as Gymnasium environments for tool-calling agents.",
        epilog="The same words everywhere: --servers LIST picks servers, --tasks SET_OR_FILE picks tasks, --env ID "
        "an env id, --out where results go, --quiet prints only the results. Reference: docs/cli.md.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_list, _add_tools, _add_serve, _add_host, _add_run, _add_eval, _add_synth):
        add(sub)
    from mcpgym.baselines.train.commands import add_parsers

    add_parsers(sub)
    _add_tasks(sub)
    _name_subcommands(parser)
    return parser


def _name_subcommands(parser: argparse.ArgumentParser) -> None:
    """Spell out each subcommand list in usage errors too ("required: {list,tools,...}", not "command")."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            action.metavar = "{" + ",".join(action.choices) + "}"
            for child in action.choices.values():
                _name_subcommands(child)


def _add_list(sub: Any) -> None:
    p = sub.add_parser("list", help="servers, their env ids and tool counts")
    p.set_defaults(func=cmd_list)


def _add_tools(sub: Any) -> None:
    p = sub.add_parser("tools", help="servers' tools with one-line descriptions")
    arguments.add_servers(p, "servers whose tools to list")
    p.positionals_as("--servers", "SERVER")
    p.set_defaults(func=cmd_tools)


def _add_serve(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="serve a server over MCP (stdio or streamable HTTP)",
        description="Serve a server's tools over MCP: over stdio for an MCP host that starts the process, or over "
        "streamable HTTP, where POST /sessions makes a session with a world of its own.",
    )
    arguments.add_servers(p, "the server to serve", one=True)
    p.positionals_as("--servers", "SERVER")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                   help="stdio: one session over stdin/stdout; http: streamable HTTP, a world per session (default stdio)")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    p.add_argument("--port", type=bounded_int(0, 65_535), default=8000, metavar="N", help="HTTP port, 0 to 65535 (default 8000)")
    arguments.add_seed(p, "world seed: same seed, same world")
    p.add_argument("--max-sessions", type=int, default=512, metavar="N",
                   help="HTTP sessions kept at once, 1 to 1000000 (default 512)")
    _add_http_limits(p, "HTTP session")
    p.add_argument("--workers", type=bounded_int(1, 64), default=1, metavar="N",
                   help="HTTP worker processes, 1 to 64; each session lives in one (default 1)")
    _add_http_access(p)
    p.set_defaults(func=cmd_serve)


def _add_http_limits(p: argparse.ArgumentParser, item: str) -> None:
    """The memory, idle and result-size limits of an HTTP server whose clients hold `item`s."""
    p.add_argument("--max-memory-mb", type=float, default=2048.0, metavar="MB",
                   help=f"memory the {item}s' worlds may hold, above 0 up to 1073741824 (default 2048)")
    p.add_argument("--idle-seconds", type=float, default=1800.0, metavar="SECONDS",
                   help=f"close an {item} idle this long, above 0 up to 2592000 (default 1800)")
    p.add_argument("--max-result-chars", type=int, default=65_536, metavar="N",
                   help="cut longer tool results, with a note; 256 to 67108864 (default 65536)")


def _add_http_access(p: argparse.ArgumentParser) -> None:
    """Who may reach an HTTP server: the bearer token, the Host and Origin allowed."""
    p.add_argument("--token", default=None, metavar="TOKEN",
                   help="bearer token every HTTP request must carry, 16 to 4096 characters (default: $MCPGYM_TOKEN, else none)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="host name accepted in Host besides localhost and the bound address (default: none; repeatable)")
    p.add_argument("--allowed-origin", action="append", default=[], metavar="ORIGIN",
                   help="browser Origin accepted besides loopback ones, e.g. https://app.example (default: none; repeatable)")


def _add_host(sub: Any) -> None:
    p = sub.add_parser(
        "host",
        help="serve scored episodes over MCP: one MCP endpoint per episode over its task's servers, and its result",
        description="Serve episodes over streamable HTTP for agents that speak MCP: POST /episodes starts one (a task "
        "id, a task, or --servers for a free session) with a world of its own, mounted at /episodes/<id>/mcp with every "
        "server the task needs; GET /episodes/<id>/result scores it as the env does. See docs/mcp-agents.md.",
    )
    arguments.add_tasks(p, "the tasks POST /episodes may name by id", default="shipped")
    arguments.add_servers(p, "the servers episodes may mount", default="all")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    p.add_argument("--port", type=bounded_int(0, 65_535), default=8000, metavar="N", help="port, 0 to 65535 (default 8000)")
    arguments.add_seed(p, "world seed of free sessions (a task's episode uses the task's seed)")
    p.add_argument("--max-episodes", type=bounded_int(1, 1_000_000), default=512, metavar="N",
                   help="live episodes at once, 1 to 1000000 (default 512)")
    _add_http_limits(p, "episode")
    p.add_argument("--max-calls", type=bounded_int(1, 10_000), default=48, metavar="N",
                   help="tool calls per episode, 1 to 10000 (default 48)")
    p.add_argument("--max-steps", type=bounded_int(1, 100_000), default=128, metavar="N",
                   help="MCP tool calls per episode, finish included, 1 to 100000 (default 128)")
    p.add_argument("--reward", choices=REWARDS, default="dense", help=REWARD_HELP)
    _add_http_access(p)
    p.set_defaults(func=cmd_host)


def _add_run(sub: Any) -> None:
    p = sub.add_parser("run", help="run an agent through an env's tasks and print what happened and the reward")
    p.add_argument("--env", type=arguments.env_id, default="mcp/zendesk-v0", metavar="ID",
                   help="env id: mcp/<server>-v0 or a multi-server id (default mcp/zendesk-v0; see mcpgym list)")
    p.add_argument("--task", default=None, metavar="ID", help="one task id of the env (default: every task of the env)")
    p.add_argument("--agent", choices=AGENTS, default="oracle",
                   help="oracle: plays the ground truth; noop: answers at once, calls nothing; random: random valid-looking "
                   "calls (default oracle)")
    arguments.add_seed(p, "seed for reset and the random agent")
    arguments.add_quiet(p)
    p.set_defaults(func=cmd_run)


def _add_eval(sub: Any) -> None:
    p = sub.add_parser(
        "eval",
        help="score an agent on a task set (`mcpgym eval compare A B` compares two runs)",
        description="Run an agent over a task set in parallel, resumably, and write trajectories.jsonl, "
        "summary.json, summary.md, reward plots and report.html to --out. A rerun with the same --out and settings "
        "resumes: it skips finished episodes and plays again those that ended in a model error. `mcpgym eval compare "
        "A B` compares two runs; `mcpgym eval report DIR` rewrites a run's report.html.",
    )
    work = p.add_argument_group("tasks")
    arguments.add_tasks(work, "the tasks to play", default="shipped")
    work.add_argument("--limit", type=arguments.positive_int, default=None, metavar="N",
                      help="only the first N tasks, 1 to 2^31-1 (default: all)")
    work.add_argument("--episodes-per-task", type=bounded_int(1, 1000), default=1, metavar="K",
                      help="k for pass^k, 1 to 1000 (default 1)")
    arguments.add_seed(work, "episode e uses seed + e")
    agent = p.add_argument_group("agent")
    agent.add_argument("--agent", choices=(*AGENTS, "openai", "openai-text", "policy", "command"), default="oracle",
                       help="oracle, noop, random: reference agents; openai: Chat Completions with tools; openai-text: "
                       "tool calls as <tool_call> text; policy: a local model (--model-path), e.g. a training checkpoint, "
                       "greedy; command: an agent program that works through MCP (--agent-command; docs/mcp-agents.md) "
                       "(default oracle)")
    agent.add_argument("--agent-command", default=None, metavar="TEMPLATE",
                       help="for --agent command: a shell command run per user request, with {mcp_url}, {request}, "
                       "{episode_id}, {task_id}, {turn} and {instructions} filled in, shell-quoted, e.g. "
                       "'my-agent --mcp {mcp_url} --prompt {request}' (default: none)")
    agent.add_argument("--agent-timeout", type=bounded_float(0, 86_400, low_open=True), default=600.0, metavar="SECONDS",
                       help="seconds per run of --agent-command, above 0 up to 86400 (default 600)")
    agent.add_argument("--strict-tools", action="store_true",
                       help="--agent openai: send the tool schemas in OpenAI's strict form (every parameter required, "
                       "null for not given)")
    agent.add_argument("--model-path", type=arguments.model_path, default=None, metavar="PATH",
                       help="model folder (with config.json) or Hugging Face repo id, for --agent policy (default: none)")
    agent.add_argument("--base-url", type=arguments.http_url, default=None, metavar="URL",
                       help=f"OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL, else "
                       f"{arguments.OPENAI_URL})")
    agent.add_argument("--model", default=None, metavar="NAME",
                       help="model name sent to the endpoint; needed by the openai agents (default: none)")
    agent.add_argument("--api-key", default=None, metavar="KEY", help="API key (default: $OPENAI_API_KEY)")
    agent.add_argument("--temperature", type=bounded_float(0, 2), default=0.0, metavar="T",
                       help="sampling temperature, 0 to 2 (default 0)")
    agent.add_argument("--max-tokens", type=bounded_int(1, 1_000_000), default=1024, metavar="N",
                       help="per model reply, 1 to 1000000 (default 1024)")
    agent.add_argument("--timeout", type=bounded_float(0, 3600, low_open=True), default=60.0, metavar="SECONDS",
                       help="seconds per model call, above 0 up to 3600 (default 60)")
    agent.add_argument("--retries", type=bounded_int(0, 20), default=3, metavar="N",
                       help="retries of a failed model call, with backoff, 0 to 20 (default 3)")
    agent.add_argument("--backoff", type=bounded_float(0, 600), default=1.0, metavar="SECONDS",
                       help="first backoff in seconds, doubled per retry, 0 to 600 (default 1)")
    agent.add_argument("--concurrency", type=bounded_int(1, 256), default=4, metavar="N",
                       help="episodes in flight when the agent calls a remote model, 1 to 256 (default 4)")
    episode = p.add_argument_group("episodes")
    episode.add_argument("--max-turns", type=bounded_int(1, 1000), default=24, metavar="N",
                         help="assistant turns per episode, 1 to 1000 (default 24)")
    episode.add_argument("--max-calls", type=bounded_int(1, 10_000), default=48, metavar="N",
                         help="tool calls per episode, 1 to 10000 (default 48)")
    episode.add_argument("--max-turn-steps", type=bounded_int(1, 1000), default=None, metavar="N",
                         help="tool-calling turns within one user request, 1 to 1000; the episode is cut at the one "
                         "beyond (BFCL's runner: 20) (default: no such bound)")
    episode.add_argument("--tools", nargs="+", type=arguments.tool_name, default=None, metavar="NAME",
                         help="show only these tools (public names: get_ticket, or zendesk__get_ticket with several "
                         "servers; finish always), as a training run's tasks.tools; a task that needs another is an "
                         "error (default: the tools of the task's servers)")
    episode.add_argument("--max-result-chars", type=bounded_int(64, 2**26), default=16_000, metavar="N",
                         help="cut longer tool results, with a note, 64 to 67108864 (default 16000)")
    episode.add_argument("--max-steps", type=bounded_int(1, 100_000), default=128, metavar="N",
                         help="for --agent command: MCP tool calls per episode, finish included, 1 to 100000 (default 128)")
    episode.add_argument("--reward", choices=REWARDS, default="dense", help=REWARD_HELP)
    episode.add_argument("--user", choices=("scripted", "llm"), default="scripted",
                         help="who plays the user: the task's scripted turns, or an LLM that plays them from the task "
                         "(answers the agent's questions, rewords requests; docs/environments.md) (default scripted)")
    episode.add_argument("--user-model", default=None, metavar="NAME",
                         help="for --user llm: the user model's name (default: --model)")
    episode.add_argument("--user-base-url", type=arguments.http_url, default=None, metavar="URL",
                         help="for --user llm: its OpenAI-compatible endpoint (default: --base-url, else $OPENAI_BASE_URL, "
                         f"else {arguments.OPENAI_URL})")
    episode.add_argument("--workers", type=bounded_int(1, 256), default=1, metavar="N",
                         help="processes (or Ray actors) playing episodes at once, 1 to 256; see docs/scale.md (default 1)")
    episode.add_argument("--backend", choices=("processes", "ray"), default="processes",
                         help="where --workers run: local processes, or Ray actors (extra mcpgym[ray]; a cluster "
                         "through $RAY_ADDRESS) (default processes)")
    output = p.add_argument_group("output")
    output.add_argument("--out", type=arguments.output_folder, required=True, metavar="DIR",
                        help="output folder, new or from a run with the same settings (its parent folder must exist)")
    output.add_argument("--overwrite", action="store_true", help="delete the run files in --out first and start over")
    arguments.add_quiet(output)
    p.set_defaults(func=cmd_eval)


def _add_synth(sub: Any) -> None:
    """`mcpgym synth graph` (`mcpgym synth` itself is parsed by `synth_parser`)."""
    p = sub.add_parser("synth", help="synthesize tasks (`mcpgym synth --servers LIST --out FILE`) or write the graph")
    synth_sub = p.add_subparsers(dest="synth_command", required=True)
    g = synth_sub.add_parser(
        "graph",
        help="write the tool dependency graph as JSON, GraphML and PNG",
        description="An edge A -> B where a field of A's result can fill a parameter of B (same entity; "
        "people link servers by email).",
    )
    arguments.add_servers(g, "servers whose tools to link", default="all")
    g.add_argument("--out", type=arguments.output_folder, default="graph", metavar="DIR",
                   help="output folder (default ./graph)")
    g.set_defaults(func=cmd_synth_graph)


def _add_tasks(sub: Any) -> None:
    p = sub.add_parser("tasks", help="check and complete task files")
    tasks_sub = p.add_subparsers(dest="tasks_command", required=True)
    v = tasks_sub.add_parser("verify", help="execute each task's ground truth and check every recorded value")
    arguments.add_tasks(v, "the tasks to verify", absent="shipped", repeatable=True)
    v.positionals_as("--tasks", "FILE")
    v.set_defaults(func=cmd_tasks_verify)
    c = tasks_sub.add_parser(
        "complete",
        help="execute hand-written tasks and fill in fact values, expected changes and difficulty",
        description="Execute each task's ground truth on a fresh world and record what it yields: fact "
        "values, the row changes (hand-picked `fields` of a listed change are kept) and the difficulty.",
    )
    arguments.add_tasks(c, "the tasks to complete, whose values may be null")
    c.positionals_as("--tasks", "FILE")
    c.add_argument("--out", type=arguments.output_file, required=True, metavar="FILE",
                   help="JSONL file to write the completed tasks to (its folder must exist)")
    c.rename("-o", "--out")
    c.rename("--output", "--out")
    c.set_defaults(func=cmd_tasks_complete)


def compare_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="mcpgym eval compare", description="Print run B minus run A, columns named by run; warns when "
                    "the runs cover other tasks, episodes or settings, and then also compares the episodes both played.")
    parser.add_argument("a", help="output folder of run A")
    parser.add_argument("b", help="output folder of run B")
    parser.set_defaults(func=cmd_eval_compare)
    return parser


def report_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="mcpgym eval report", description="(Re)write report.html in an eval run's folder from its "
                    "trajectories.jsonl and run.json (a running run's episodes so far).")
    parser.add_argument("run", help="output folder of the run")
    parser.set_defaults(func=cmd_eval_report)
    return parser


def synth_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="mcpgym synth",
        description="Synthesize validated tasks from the seeded worlds (`mcpgym synth graph` writes the "
        "tool dependency graph). Same arguments, same file, byte for byte.",
    )
    arguments.add_servers(parser, "servers the tasks use")
    parser.add_argument("--n", type=bounded_int(1, 1_000_000), default=100, metavar="N",
                        help="tasks to write, 1 to 1000000 (default 100)")
    arguments.add_seed(parser, "sampling seed")
    arguments.add_seed(parser, "seed of the first world the tasks run in (large sets move on to the next seeds once a "
                       "kind of task has nothing new left)", flag="--world-seed")
    parser.add_argument("--families", default=None, metavar="PREFIX",
                        help="only families whose name starts with this, e.g. cross. or zendesk. (default: all)")
    parser.add_argument("--workers", type=bounded_int(1, 256), default=min(os.cpu_count() or 1, 256), metavar="N",
                        help="drafting and validation processes, 1 to 256 (default: one per core); the output does not "
                        "depend on it")
    parser.add_argument("--out", type=arguments.output_file, required=True, metavar="FILE",
                        help="JSONL file to write (its folder must exist)")
    parser.add_argument("--clarify", type=bounded_float(0, 1), default=0.0, metavar="FRACTION",
                        help="share of the tasks, 0 to 1, turned into tasks whose first request lacks one value the agent "
                        "must ask for (id <task>-ask, tag clarify; docs/tasks.md) (default 0)")
    parser.add_argument("--llm-base-url", type=arguments.http_url, default=None, metavar="URL",
                        help="paraphrase user turns through this OpenAI-compatible endpoint (default: none, no paraphrase)")
    parser.add_argument("--llm-model", default=None, metavar="NAME", help="model for --llm-base-url (default: none)")
    parser.add_argument("--llm-api-key", default=None, metavar="KEY", help="API key for --llm-base-url (default: none)")
    parser.add_argument("--hf-out", type=arguments.output_folder, default=None, metavar="DIR",
                        help="also write the tasks as a Hugging Face DatasetDict (train/test) to DIR (extra mcpgym[hf]; "
                        "default: none)")
    arguments.add_quiet(parser)
    parser.set_defaults(func=cmd_synth)
    return parser


REFERENCE_INTRO = """\
# Command line reference

This page is written by `mcpgym.cli.help_markdown()` from the parsers themselves; regenerate it with
`python -c "from mcpgym.cli import help_markdown; print(help_markdown(), end='')" > docs/cli.md`
(tests/test_cli.py fails when it is out of date).

The same words mean the same thing in every command:

| option | meaning |
|---|---|
| `--servers LIST` | the servers to work on, comma-separated (`zendesk,crm`); `mcpgym list` names them |
| `--tasks SET_OR_FILE` | the tasks to work on: a JSONL task file or a named set (`shipped`, `synth-test`, a server name, ...) |
| `--env ID` | a registered env id (`mcp/zendesk-v0`, or a multi-server one); only where an env is meant |
| `--out` | where results are written (a file or a folder, as each command says) |
| `--seed N` | a seed, 0 to 2^32-1 |
| `--quiet` | print only the results: no progress bar, no episode transcripts |

Every option's help states its default and its range or choices. A usage error is one line on stderr
naming the problem and what is allowed, with exit status 2; a command that fails while it runs prints
one line and exits 1 (130 when interrupted)."""


def help_markdown() -> str:
    """The Markdown reference of every command and option (docs/cli.md), from the parsers."""
    return arguments.reference_markdown(
        build_parser(), REFERENCE_INTRO, swap={"mcpgym synth": synth_parser()},
        after={"mcpgym eval": [compare_parser(), report_parser()]},
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["eval", "compare"]:
        args = compare_parser().parse_args(argv[2:])
    elif argv[:2] == ["eval", "report"]:
        args = report_parser().parse_args(argv[2:])
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
