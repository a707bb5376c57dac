"""Argument types and the parser of the command line.

The types are argparse `type=` callables: each checks one value at parse time and turns a bad
one into a one-line usage error (exit 2) that says what is allowed (a bad value raises
`argparse.ArgumentTypeError`). The errors a command finds while it runs are `CliError`
(exit 1) and `UsageError` (exit 2), which `mcpgym.cli.main` prints as one line.

`Parser` keeps a command's old spellings working: an old option name, or a value given as a
positional argument where an option is now meant, is rewritten to the new spelling with a
one-line note on stderr. `reference_markdown` writes the reference of a set of parsers.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from mcpgym.tasks.model import Task

MAX_SEED = 2**32 - 1
"""Seeds run from 0 to this (numpy's and torch's legacy seeding take no more)."""
MAX_TASK_FILE_BYTES = 256 * 2**20
"""A task file larger than this is refused before it is read."""
MAX_LIST_CHARS = 4096
"""A comma-separated list on the command line (`--servers`) longer than this is refused."""
OPENAI_URL = "https://api.openai.com/v1"
"""The endpoint of the OpenAI agents when neither `--base-url` nor `$OPENAI_BASE_URL` is set."""
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}(/[A-Za-z0-9][A-Za-z0-9_.-]{0,95})?")
_NUMBER = re.compile(r"-\d+$|-\d*\.\d+$")
_NOTES = "deprecation_notes"
"""The namespace attribute that carries the notes on old spellings up to `Parser.parse_args`."""


class CliError(Exception):
    """A command failed for a reason its one-line message explains (exit status 1)."""


class UsageError(CliError):
    """The arguments cannot work together, or name something that does not exist (exit status 2)."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (what is wrong, and where help is), and
    that accepts a command's old spellings, hidden from help, with a one-line note on stderr."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.renamed: dict[str, str] = {}
        self.positionals_to: tuple[str, str] | None = None
        self.hints: dict[str, Callable[[], str]] = {}

    def rename(self, old: str, new: str) -> None:
        """Accept the option `old` as the option `new` (`-o FILE` as `--out FILE`)."""
        self.renamed[old] = new

    def positionals_as(self, option: str, old: str) -> None:
        """Accept each bare value as a value of `option` (`serve zendesk` as `serve --servers zendesk`);
        `old` is the retired positional's name, for the note."""
        self.positionals_to = (option, old)

    def hint(self, option: str, choices: Callable[[], str]) -> None:
        """Say `choices()` (the values `option` takes) when a usage error says `option` is missing."""
        self.hints[option] = choices

    def error(self, message: str) -> NoReturn:
        if message.startswith("the following arguments are required:"):
            named = set(message.split(":", 1)[1].replace(",", " ").split())
            message = "; ".join([message, *(choices() for option, choices in self.hints.items() if option in named)])
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        tokens, notes = self._modernize(list(sys.argv[1:] if args is None else args))
        parsed, extras = super().parse_known_args(tokens, namespace)
        if notes:
            setattr(parsed, _NOTES, [*getattr(parsed, _NOTES, []), *notes])
        return parsed, extras

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """Parse, then print the notes on old spellings (only once the whole command line parsed)."""
        parsed = super().parse_args(args, namespace)
        for note in vars(parsed).pop(_NOTES, []):
            print(note, file=sys.stderr)
        return parsed

    def _modernize(self, tokens: list[str]) -> tuple[list[str], list[str]]:
        """`tokens` with old spellings replaced by new ones, and a note for each old spelling."""
        if not self.renamed and self.positionals_to is None:
            return tokens, []
        out: list[str] = []
        notes: dict[str, None] = {}
        position = 0
        while position < len(tokens):
            token = tokens[position]
            position += 1
            if token == "--":
                out.extend(tokens[position - 1 :])
                break
            if token.startswith("-") and token != "-" and not _NUMBER.match(token):
                name, equals, value = self._split_option(token)
                if name in self.renamed:
                    notes[f"{self.prog}: note: {name} is deprecated; use {self.renamed[name]}"] = None
                    name = self.renamed[name]
                    token = name + equals + value
                out.append(token)
                if not equals and self._takes_value(name) and position < len(tokens):
                    out.append(tokens[position])
                    position += 1
            elif self.positionals_to is not None:
                option, old = self.positionals_to
                notes[f"{self.prog}: note: `{self.prog} {old}` is deprecated; use `{self.prog} {option} {old}`"] = None
                out.extend((option, token))
            else:
                out.append(token)
        return out, list(notes)

    def _split_option(self, token: str) -> tuple[str, str, str]:
        """An option token as (name, "=" or "", value); a short option's glued value (`-oFILE`) too."""
        name, equals, value = token.partition("=")
        if name not in self.renamed and not token.startswith("--") and len(token) > 2:
            if token[:2] in self.renamed or self._takes_value(token[:2]):
                return token[:2], "=", token[2:]
        return name, equals, value

    def _takes_value(self, name: str) -> bool:
        """Whether the option `name` (or an abbreviation of a long one) is followed by one value."""
        actions = self._option_string_actions
        action = actions.get(name)
        if action is None and name.startswith("--") and self.allow_abbrev:
            found = {id(a): a for option, a in actions.items() if option.startswith(name)}
            action = next(iter(found.values())) if len(found) == 1 else None
        return action is not None and action.nargs in (None, 1)


class BoundedInt:
    """An integer from `low` to `high`, both included; `span` says so in help text."""

    def __init__(self, low: int, high: int, span: str | None = None) -> None:
        self.low, self.high = low, high
        self.span = span or f"{low} to {high}"
        self.__name__ = f"integer {low}..{high}"

    def __call__(self, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a whole number") from None
        if not self.low <= value <= self.high:
            shown = str(value) if len(text) <= 40 else _shown(text, 40)
            raise argparse.ArgumentTypeError(f"{shown} is out of range: from {self.low} to {self.high}")
        return value


class BoundedFloat:
    """A finite number from `low` (excluded with `low_open`) to `high`; `span` says so in help text."""

    def __init__(self, low: float, high: float, low_open: bool = False) -> None:
        self.low, self.high, self.low_open = low, high, low_open
        self.span = f"above {low:g} up to {high:g}" if low_open else f"{low:g} to {high:g}"
        self.__name__ = f"number {low:g}..{high:g}"

    def __call__(self, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number") from None
        low, high = self.low, self.high
        if not math.isfinite(value) or value > high or value < low or (self.low_open and value == low):
            lower = f"above {low:g}" if self.low_open else f"from {low:g}"
            raise argparse.ArgumentTypeError(f"{_shown(text)} is out of range: {lower} to {high:g}")
        return value


def bounded_int(low: int, high: int, span: str | None = None) -> BoundedInt:
    """An integer from `low` to `high`, both included."""
    return BoundedInt(low, high, span)


def bounded_float(low: float, high: float, low_open: bool = False) -> BoundedFloat:
    """A finite number from `low` (excluded with `low_open`) to `high`."""
    return BoundedFloat(low, high, low_open)


seed = bounded_int(0, MAX_SEED, span="0 to 2^32-1")
positive_int = bounded_int(1, 2**31 - 1, span="1 to 2^31-1")


def tool_name(text: str) -> str:
    """A tool's public name as typed: 1 to 200 characters, no spaces (whether the servers have
    it is checked where the servers are known)."""
    if not text or len(text) > 200 or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a tool name (1 to 200 characters, no spaces)")
    return text


def listing(names: Iterable[str], limit: int = 400) -> str:
    """`names` joined by commas, cut near `limit` characters with a count of those left out."""
    names = list(names)
    shown: list[str] = []
    length = 0
    for name in names:
        if shown and length + len(name) + 2 > limit:
            return f"{', '.join(shown)} and {len(names) - len(shown)} more"
        shown.append(name)
        length += len(name) + 2
    return ", ".join(shown)


def server_list(given: Sequence[str] | None, default: Sequence[str] = ()) -> list[str]:
    """The servers `--servers` named (each value a comma-separated LIST), each known, in order,
    without repeats; `default` when the option was not given. Unknown or no names are a `UsageError`."""
    known = _server_names(benchmarks=True)
    if given is None and default:
        return list(default)
    text = None if given is None else ",".join(given[: MAX_LIST_CHARS + 1])
    if text is None or len(text) > MAX_LIST_CHARS:
        problem = "no servers given" if text is None else f"a --servers list over {MAX_LIST_CHARS} characters"
        raise UsageError(f"{problem}; servers: {listing(known)}")
    names = list(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in known]
    if unknown:
        named = listing(map(_shown, unknown), 200)
        raise UsageError(f"unknown server{'s' * (len(unknown) > 1)} {named}; servers: {listing(known)}")
    if not names:
        raise UsageError(f"no server named in --servers {_shown(text)}; servers: {listing(known)}")
    return names


QUIET_HELP = "print only the results: no progress bar, no episode transcripts"
"""What `--quiet` means, in every command that has it."""
TASKS_HELP = ("a JSONL task file, or a set: shipped (every hand-written task), handwritten, synth, synth-train, "
              "synth-test, a server name (its shipped tasks), a shipped file's stem such as workspace, the generated "
              "ticket-priority-train and ticket-priority-test (the trainer's CPU tasks), or BFCL's "
              "multi-turn tasks (needs bfcl-eval, docs/bfcl.md): bfcl-multi-turn (all 800), bfcl-multi-turn-base, "
              "bfcl-multi-turn-miss-func, bfcl-multi-turn-miss-param, bfcl-multi-turn-long-context")


def add_servers(parser: argparse._ActionsContainer, meaning: str, default: str | None = None, one: bool = False) -> None:
    """The `--servers LIST` option: required unless `default` says what leaving it out means; `one`
    when the command takes a single server. Its value is checked by `server_list` when the command runs."""
    when = f" (default: {default})" if default else ""
    names = "one server name, e.g. zendesk" if one else "comma-separated server names, e.g. zendesk,crm"
    if isinstance(parser, Parser):
        parser.hint("--servers", lambda: f"servers: {listing(_server_names())}")
    parser.add_argument("--servers", action="append", required=default is None, default=None, metavar="LIST",
                        help=f"{meaning}: {names} (see mcpgym list){when}")


def add_tasks(
    parser: argparse._ActionsContainer, meaning: str, default: str | None = None, absent: str | None = None,
    repeatable: bool = False,
) -> None:
    """The `--tasks SET_OR_FILE` option: `default` is the set used when it is left out, or `absent` says
    what the command does then (its value is None); required when neither is given."""
    shown = absent or default
    if isinstance(parser, Parser):
        parser.hint("--tasks", lambda: f"a JSONL task file or a set: {listing(task_set_names())}")
    when = f" (default: {shown}{'; repeatable' if repeatable else ''})" if shown else ""
    parser.add_argument("--tasks", type=task_source, required=shown is None, default=default, metavar="SET_OR_FILE",
                        action="append" if repeatable else "store", help=f"{meaning}: {TASKS_HELP}{when}")


def add_seed(parser: argparse._ActionsContainer, meaning: str, flag: str = "--seed") -> None:
    """A seed option, 0 to 2^32-1, default 0."""
    parser.add_argument(flag, type=seed, default=0, metavar="N", help=f"{meaning}, {seed.span} (default 0)")


def add_quiet(parser: argparse._ActionsContainer) -> None:
    """The `--quiet` flag, the same in every command."""
    parser.add_argument("--quiet", action="store_true", help=QUIET_HELP)


def _server_names(benchmarks: bool = False) -> list[str]:
    """The installed servers, with other benchmarks' after them if asked (imported when asked,
    so building the parser stays light)."""
    from mcpgym.servers.catalog import benchmark_server_names, server_names

    return [*server_names(), *(benchmark_server_names() if benchmarks else [])]


def openai_url(given: str | None) -> str:
    """The endpoint of an OpenAI agent: `given` (`--base-url`), else `$OPENAI_BASE_URL`, else OpenAI's API."""
    if given:
        return given
    from_env = os.environ.get("OPENAI_BASE_URL", "").strip()
    if not from_env:
        return OPENAI_URL
    try:
        return http_url(from_env)
    except argparse.ArgumentTypeError as err:
        raise UsageError(f"$OPENAI_BASE_URL: {err}") from None


def env_id(text: str) -> str:
    """A registered env id, such as `mcp/zendesk-v0`."""
    from mcpgym.registration import env_ids

    ids = env_ids()
    if text not in ids:
        raise argparse.ArgumentTypeError(f"no env id {_shown(text)}; env ids: {', '.join(ids)}")
    return text


@dataclass(frozen=True)
class TaskSource:
    """Tasks as the command line named them: a shipped set's name or a JSONL file."""

    name: str
    tasks: tuple[Task, ...]


def task_file(text: str) -> TaskSource:
    """The tasks of a JSONL file: it must be a readable, non-empty UTF-8 text file of valid tasks."""
    from mcpgym.tasks.loader import TaskFileError, parse_tasks

    path = Path(text)
    try:
        info = path.stat()
    except OSError as err:
        raise argparse.ArgumentTypeError(f"cannot read task file {_shown(text)}: {err.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is a folder, not a task file (JSONL, one task a line)")
    if not stat.S_ISREG(info.st_mode):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a regular file")
    if info.st_size > MAX_TASK_FILE_BYTES:
        raise argparse.ArgumentTypeError(f"task file {_shown(text)} is {info.st_size} bytes; the limit is {MAX_TASK_FILE_BYTES}")
    try:
        data = path.read_bytes()
    except OSError as err:
        raise argparse.ArgumentTypeError(f"cannot read task file {_shown(text)}: {err.strerror}") from None
    if b"\0" in data:
        raise argparse.ArgumentTypeError(f"task file {_shown(text)} is binary, not JSONL text (a NUL byte at offset {data.index(0)})")
    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise argparse.ArgumentTypeError(f"task file {_shown(text)} is not UTF-8 text (byte {err.start})") from None
    try:
        tasks = parse_tasks(content.splitlines(), str(path))
    except TaskFileError as err:
        raise argparse.ArgumentTypeError(one_line(str(err))) from None
    if not tasks:
        raise argparse.ArgumentTypeError(f"task file {_shown(text)} is empty: no task in it")
    return TaskSource(name=str(path), tasks=tuple(tasks))


def task_set_names() -> list[str]:
    """The names `--tasks` takes besides a file: shipped, the named sets, server names and shipped files' stems."""
    from mcpgym.servers.catalog import server_names
    from mcpgym.tasks.loader import BENCHMARK_SETS, GENERATED_SETS, TASK_SETS, shipped_task_files

    stems = {name.removesuffix(".jsonl") for name in shipped_task_files()}
    shipped = [name for name in TASK_SETS if name not in BENCHMARK_SETS and name not in GENERATED_SETS]
    return ["shipped", *shipped, *sorted(stems | set(server_names())), *GENERATED_SETS, *BENCHMARK_SETS]


def task_source(text: str) -> TaskSource:
    """Tasks by name or file: `shipped` (all hand-written), a named set (`synth-train`, ...), a
    server name, a shipped file's stem (`workspace`), or a JSONL task file."""
    from mcpgym.servers.catalog import server_names
    from mcpgym.tasks.loader import TASK_SETS, named_tasks, parse_tasks, shipped_task_files, shipped_tasks

    stems = {name.removesuffix(".jsonl") for name in shipped_task_files()}
    if os.path.isfile(text):
        return task_file(text)
    if text == "shipped":
        tasks = shipped_tasks()
    elif text in TASK_SETS:
        try:
            tasks = named_tasks(text)
        except ImportError as err:
            raise argparse.ArgumentTypeError(f"the task set {text} needs another benchmark's package: {err}") from None
    elif text in server_names():
        tasks = [t for t in shipped_tasks() if t.servers == [text]]
    elif text in stems:
        from importlib import resources

        data = (resources.files("mcpgym.tasks") / "data" / f"{text}.jsonl").read_text("utf-8")
        tasks = parse_tasks(data.splitlines(), text)
    elif os.path.lexists(text) or os.sep in text or text.endswith(".jsonl"):
        return task_file(text)
    else:
        raise argparse.ArgumentTypeError(f"no task file or task set {_shown(text)}; sets: {listing(task_set_names())}")
    if not tasks:
        raise argparse.ArgumentTypeError(f"the task set {_shown(text)} has no tasks")
    return TaskSource(name=text, tasks=tuple(tasks))


def output_folder(text: str) -> Path:
    """A folder to write in: an existing folder, or a new one inside an existing folder."""
    return _output(text, folder=True)


def output_file(text: str) -> Path:
    """A file to write: its folder must exist."""
    return _output(text, folder=False)


def _output(text: str, folder: bool) -> Path:
    path = Path(text)
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    if path.exists():
        if folder and not path.is_dir():
            raise argparse.ArgumentTypeError(f"{_shown(text)} exists and is not a folder")
        if not folder and path.is_dir():
            raise argparse.ArgumentTypeError(f"{_shown(text)} is a folder; give a file name")
        where = path if path.is_dir() else path.parent
    else:
        where = path.parent
        if not where.is_dir():
            raise argparse.ArgumentTypeError(f"folder {_shown(str(where))} does not exist (create it first)")
    if not os.access(where, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write in {_shown(str(where))}: permission denied")
    return path


def model_path(text: str) -> str:
    """A model to load: a local folder with a `config.json`, or a Hugging Face repo id (`org/name`)."""
    path = Path(text)
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a model folder: it has no config.json")
        return text
    if path.exists():
        raise argparse.ArgumentTypeError(f"{_shown(text)} is a file; give a model folder (with config.json) or a hub id")
    if _HUB_ID.fullmatch(text) is None or ".." in text:
        raise argparse.ArgumentTypeError(f"no model folder {_shown(text)} (nor is it a Hugging Face repo id like org/name)")
    return text


def http_url(text: str) -> str:
    """An http(s) URL with a host, such as `http://127.0.0.1:8000/v1`."""
    if len(text) > 2048:
        raise argparse.ArgumentTypeError("a URL over 2048 characters")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (raises on a port out of range)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a URL: {err}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not an http(s) URL with a host, e.g. http://127.0.0.1:8000/v1")
    return text


def _shown(text: str, limit: int = 80) -> str:
    """`text` quoted for a message, cut to `limit` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def one_line(message: str, limit: int = 300) -> str:
    """The first lines of a multi-line message (pydantic's), joined, without its help links, and cut."""
    lines = [line.strip() for line in message.splitlines() if line.strip() and "further information" not in line]
    joined = "; ".join(lines)
    return joined if len(joined) <= limit else joined[:limit] + "..."


def reference_markdown(
    root: argparse.ArgumentParser,
    intro: str,
    swap: dict[str, argparse.ArgumentParser] | None = None,
    after: dict[str, Sequence[argparse.ArgumentParser]] | None = None,
) -> str:
    """A Markdown reference of `root` and its subcommands, depth first: each command's synopsis,
    description, subcommands and arguments (as their help states them), then the old spellings that
    still work. `swap` gives, by prog, a parser whose arguments stand in for a command's own (a
    command parsed by a parser of its own); `after` gives, by prog, parsers documented after it."""
    swap, after = swap or {}, after or {}
    parts = [intro.strip()]
    old: list[tuple[str, str]] = []

    def visit(parser: argparse.ArgumentParser, summary: str | None) -> None:
        own = swap.get(parser.prog, parser)
        parts.append(_command_markdown(own, summary, _subcommands(parser), synopsis_subcommands=own is parser))
        old.extend(_old_spellings(own))
        for child, text in _subcommands(parser).values():
            visit(child, text)
        for extra in after.get(parser.prog, ()):
            visit(extra, None)

    visit(root, None)
    if old:
        rows = "\n".join(f"| `{was}` | `{now}` |" for was, now in old)
        parts.append(
            "## Old spellings\n\nThese still work, hidden from `--help`; each prints a one-line note on stderr "
            f"and does what the new spelling does.\n\n| old | new |\n|---|---|\n{rows}"
        )
    return "\n\n".join(parts) + "\n"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, tuple[argparse.ArgumentParser, str]]:
    """A parser's subcommands by name: each one's parser and one-line help."""
    found: dict[str, tuple[argparse.ArgumentParser, str]] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            found.update({name: (child, helps.get(name, "")) for name, child in action.choices.items()})
    return found


def _visible(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a for a in parser._actions
        if a.help is not argparse.SUPPRESS and not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
    ]


def _value(action: argparse.Action) -> str:
    """How an argument's value is written in a synopsis: METAVAR, {choices}, or nothing for a flag."""
    if action.nargs == 0:
        return ""
    if isinstance(action.metavar, str):
        return action.metavar
    if action.choices is not None:
        return "{" + ",".join(map(str, action.choices)) + "}"
    return action.dest.upper() if action.option_strings else action.dest


def _command_markdown(
    parser: argparse.ArgumentParser,
    summary: str | None,
    subcommands: dict[str, tuple[argparse.ArgumentParser, str]],
    synopsis_subcommands: bool = True,
) -> str:
    words = [parser.prog]
    for action in _visible(parser):
        value = _value(action)
        if not action.option_strings:
            words.append({"*": f"[{value} ...]", "?": f"[{value}]"}.get(str(action.nargs), value))
        else:
            shown = f"{action.option_strings[-1]} {value}".strip()
            words.append(shown if action.required else f"[{shown}]")
    if subcommands and synopsis_subcommands:
        words.append("{" + ",".join(subcommands) + "} ...")
    lines = [f"## `{parser.prog}`", ""]
    text = parser.description or summary
    if text:
        lines += [_cell(text, escape=False), ""]
    lines += ["```text", " ".join(words), "```"]
    if subcommands:
        lines += ["", "| command | what it does |", "|---|---|"]
        lines += [f"| `{parser.prog} {name}` | {_cell(text)} |" for name, (_, text) in subcommands.items()]
    arguments = _visible(parser)
    if arguments:
        lines += ["", "| argument | value | meaning |", "|---|---|---|"]
        for action in arguments:
            names = ", ".join(action.option_strings) or _value(action)
            value = _value(action) if action.option_strings else ""
            required = "required; " if action.required and action.option_strings else ""
            lines.append(f"| `{names}` | {f'`{value}`' if value else ''} | {required}{_cell(action.help or '')} |")
    return "\n".join(lines)


def _old_spellings(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    if not isinstance(parser, Parser):
        return []
    old = [(f"{parser.prog} {was}", f"{parser.prog} {now}") for was, now in parser.renamed.items()]
    if parser.positionals_to is not None:
        option, name = parser.positionals_to
        old.append((f"{parser.prog} {name}", f"{parser.prog} {option} {name}"))
    return old


def _cell(text: str, escape: bool = True) -> str:
    """Help text as one Markdown line (a table cell when `escape`)."""
    flat = " ".join(text.replace("%%", "%").split()).replace("<", "&lt;").replace(">", "&gt;")
    return flat.replace("|", "\\|") if escape else flat


__all__ = [
    "MAX_SEED", "OPENAI_URL", "QUIET_HELP", "TASKS_HELP", "BoundedFloat", "BoundedInt", "CliError", "Parser",
    "TaskSource", "UsageError", "add_quiet", "add_seed", "add_servers", "add_tasks", "bounded_float", "bounded_int",
    "env_id", "http_url", "listing", "model_path", "one_line", "openai_url", "tool_name",
    "output_file", "output_folder", "positive_int", "reference_markdown", "seed", "server_list", "task_file",
    "task_source",
]
