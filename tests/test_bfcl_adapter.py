"""The BFCL multi-turn adapter: entries, schemas, call strings, tasks and BFCL's checker."""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("bfcl_eval", reason="install with: pip install --no-deps bfcl-eval==2026.3.23 mpmath")

import jsonschema  # noqa: E402

from mcpgym.external.bfcl import package  # noqa: E402
from mcpgym.external.bfcl.calls import CallError, call_text, parse_call  # noqa: E402
from mcpgym.external.bfcl.checker import BfclVerdict, check_episode, replay_results, replay_states  # noqa: E402
from mcpgym.external.bfcl.package import (  # noqa: E402
    CATEGORIES,
    CLASSES,
    INSTALL_LINE,
    SERVERS,
    BfclEntry,
    BfclMissing,
    backend_class,
    entry_by_id,
    function_docs,
    load_entries,
)
from mcpgym.external.bfcl.schemas import (  # noqa: E402
    ArgumentsInvalid,
    SchemaError,
    arguments_model,
    checked_arguments,
    json_schema,
)
from mcpgym.external.bfcl.tasks import bfcl_tasks, premature_calls  # noqa: E402
from mcpgym.tasks.loader import BENCHMARK_SETS, named_tasks  # noqa: E402
from mcpgym.tasks.model import Task  # noqa: E402

STRING_TICKET_ID = {f"multi_turn_{category}_173" for category in CATEGORIES}
"""BFCL's scenario 173 has a ticket whose id is a string; its ground truth closes it by that id."""


def all_entries() -> list[BfclEntry]:
    return [entry for category in CATEGORIES for entry in load_entries(category)]


def sample_entries() -> list[BfclEntry]:
    """40 entries across the four categories and all classes."""
    return all_entries()[::20]


def truth_calls(entry: BfclEntry) -> list[list[tuple[str, dict[str, Any]]]]:
    return [[parse_call(text, entry.involved_classes) for text in turn] for turn in entry.ground_truth]


@cache
def docs_by_tool() -> dict[str, dict[str, Any]]:
    return {doc["name"]: doc for class_name in SERVERS for doc in function_docs(class_name)}


@cache
def validator(tool: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json_schema(docs_by_tool()[tool]))


def checker_globals() -> dict[str, Any]:
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    return vars(multi_turn_utils)


# -- the package ------------------------------------------------------------------------------


def test_entries_load_per_category() -> None:
    for category in CATEGORIES:
        entries = load_entries(category)
        assert len(entries) == 200
        assert {entry.category for entry in entries} == {category}
        assert len({entry.id for entry in entries}) == 200
        assert all(len(entry.turns) == len(entry.ground_truth) for entry in entries)
    assert sum(bool(entry.missed_function) for entry in load_entries("miss_func")) == 200
    assert entry_by_id("multi_turn_long_context_7").long_context
    assert not entry_by_id("multi_turn_base_7").long_context


def test_bad_entry_ids_are_refused() -> None:
    for bad in ("multi_turn_base_999", "multi_turn_other_1", "base_1", "multi_turn_base_x", "x" * 10_000):
        with pytest.raises(KeyError):
            entry_by_id(bad)


def test_classes_and_backends() -> None:
    assert len(CLASSES) == 8 and set(SERVERS) == set(CLASSES.values())
    assert sum(len(function_docs(name)) for name in SERVERS) == 128
    for class_name in SERVERS:
        cls = backend_class(class_name)
        assert cls.__name__ == class_name
        for doc in function_docs(class_name):
            assert callable(getattr(cls, doc["name"]))
    with pytest.raises(KeyError):
        backend_class("WebSearchAPI")


def test_function_docs_are_copies() -> None:
    docs = function_docs("MathAPI")
    docs[0]["name"] = "changed"
    assert function_docs("MathAPI")[0]["name"] != "changed"


def test_missing_package_names_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)
    with pytest.raises(BfclMissing) as caught:
        package.require_bfcl()
    assert str(caught.value) == INSTALL_LINE
    assert isinstance(caught.value, ImportError)


# -- call strings -----------------------------------------------------------------------------


def test_every_ground_truth_call_parses_and_round_trips() -> None:
    count = 0
    for entry in all_entries():
        for turn in entry.ground_truth:
            for text in turn:
                name, arguments = parse_call(text, entry.involved_classes)
                written = call_text(name, arguments)
                tree = ast.parse(written, mode="eval").body
                assert isinstance(tree, ast.Call) and not tree.args
                assert parse_call(written, entry.involved_classes) == (name, arguments)
                count += 1
    assert count > 4000


def test_positional_arguments_take_the_backend_parameter_names() -> None:
    assert parse_call("sort('final_report.pdf')", ["GorillaFileSystem"]) == ("sort", {"file_name": "final_report.pdf"})
    # the doc lists insurance_cost before booking_id; the method takes booking_id first
    _, arguments = parse_call("purchase_insurance('tok', 'comprehensive', 'b1', 50.0, 'c1')", ["TravelAPI"])
    assert arguments == {"access_token": "tok", "insurance_type": "comprehensive", "booking_id": "b1",
                         "insurance_cost": 50.0, "card_id": "c1"}
    with pytest.raises(CallError, match="no involved class"):
        parse_call("sort('a')", ["MathAPI"])
    with pytest.raises(CallError, match="positional"):
        parse_call("sort('a', 'b')", ["GorillaFileSystem"])
    with pytest.raises(CallError, match="by position and by name"):
        parse_call("sort('a', file_name='b')", ["GorillaFileSystem"])


def test_literals_of_every_shape() -> None:
    name, arguments = parse_call("f(a=-3, b=[1, {'k': -2.5}], c=None, d=True, e=(1, 2), g='x(y)')")
    assert name == "f"
    assert arguments == {"a": -3, "b": [1, {"k": -2.5}], "c": None, "d": True, "e": [1, 2], "g": "x(y)"}


@pytest.mark.parametrize("text", [
    "x", "a.b()", "f(*x)", "f(**k)", "f(a=1, a=2)", "f(a=g())", "f(a=__import__('os'))", "f(a={1, 2})",
    "f(a=b'x')", "f(a=1j)", "f(", "f(a=1) + 1", "f(a=" + "[" * 500 + "]" * 500 + ")", "f(a='" + "x" * 300_000 + "')",
])
def test_unreadable_calls_are_refused(text: str) -> None:
    with pytest.raises(CallError):
        parse_call(text, ["GorillaFileSystem"])


def test_call_text_writes_literals_and_refuses_code() -> None:
    assert call_text("mv", {"source": "a", "destination": "b"}) == "mv(source='a',destination='b')"
    assert call_text("f", {"x": [1, -2.5, None, {"k": "it's"}]}) == "f(x=[1, -2.5, None, {'k': \"it's\"}])"
    assert call_text("ls", {}) == "ls()"
    for name, arguments in [
        ("os.system", {}), ("a b", {}), ("class", {}), ("f", {"a b": 1}), ("f", {"x=1)or(1": 1}),
        ("f", {"x": float("nan")}), ("f", {"x": {1, 2}}), ("f", {"x": object()}), ("f", {"x": {1: 2}}), ("f", [1]),
    ]:
        with pytest.raises(CallError):
            call_text(name, arguments)  # type: ignore[arg-type]


# -- schemas ----------------------------------------------------------------------------------


def _types(schema: dict[str, Any]) -> set[str]:
    found = {schema["type"]} if "type" in schema else set()
    for child in (schema.get("properties") or {}).values():
        found |= _types(child)
    if "items" in schema:
        found |= _types(schema["items"])
    return found


def test_all_docs_convert_to_standard_schemas() -> None:
    for tool, doc in docs_by_tool().items():
        schema = json_schema(doc)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert schema["required"] == doc["parameters"]["required"]
        assert _types(schema) <= {"object", "number", "integer", "string", "boolean", "array"}
        for name, child in doc["parameters"]["properties"].items():
            assert schema["properties"][name].get("description") == child.get("description")
            if "default" in child:
                assert schema["properties"][name]["default"] == child["default"]
        arguments_model(doc)
    edit = json_schema(docs_by_tool()["edit_ticket"])["properties"]["updates"]
    assert edit["type"] == "object" and edit["properties"]["priority"]["type"] == "integer"
    assert json_schema(docs_by_tool()["mean"])["properties"]["numbers"]["items"] == {"type": "number"}


def test_bfcl_type_names_map_to_json_schema() -> None:
    doc = {"name": "t", "parameters": {"type": "dict", "required": ["a"], "properties": {
        "a": {"type": "tuple", "items": {"type": "float"}}, "b": {"type": "any", "description": "x"},
        "c": {"type": "dict", "properties": {"d": {"type": "string", "enum": ["u", "v"]}}}}}}
    schema = json_schema(doc)
    assert schema["properties"]["a"] == {"type": "array", "items": {"type": "number"}}
    assert schema["properties"]["b"] == {"description": "x"}
    assert schema["properties"]["c"]["properties"]["d"] == {"type": "string", "enum": ["u", "v"]}
    model = arguments_model(doc)
    assert checked_arguments(model, {"a": [1, 2.5], "b": {"any": ["thing"]}, "c": {"d": "u"}}) == {
        "a": [1, 2.5], "b": {"any": ["thing"]}, "c": {"d": "u"}}
    with pytest.raises(ArgumentsInvalid, match="c.d"):
        checked_arguments(model, {"a": [], "c": {"d": "w"}})
    for bad in ({"name": "t", "parameters": {"type": "dict", "properties": {"a": {"type": "HashMap"}}}},
                {"name": "t", "parameters": {"type": "string"}},
                {"name": "t", "parameters": {"type": "dict", "properties": {}, "required": ["a"]}},
                {"parameters": {}}):
        with pytest.raises(SchemaError):
            json_schema(bad)


def test_ground_truth_arguments_match_their_schemas() -> None:
    """Every ground-truth call validates against its tool's schema and model, except the
    string ticket id of scenario 173, which BFCL's data uses for that scenario's ticket."""
    failing: set[tuple[str, str]] = set()
    for entry in all_entries():
        for turn in entry.ground_truth:
            for text in turn:
                tool, arguments = parse_call(text, entry.involved_classes)
                schema_ok = validator(tool).is_valid(arguments)
                try:
                    checked_arguments(arguments_model(docs_by_tool()[tool]), arguments)
                    model_ok = True
                except ArgumentsInvalid:
                    model_ok = False
                assert schema_ok == model_ok, text
                if not model_ok:
                    failing.add((entry.id, text))
    assert failing == {(entry_id, "close_ticket(ticket_id='ticket_001')") for entry_id in STRING_TICKET_ID}


def test_argument_models_validate_as_the_schema_says() -> None:
    docs = docs_by_tool()
    tail = arguments_model(docs["tail"])
    assert checked_arguments(tail, {"file_name": "a"}) == {"file_name": "a"}  # default left to the backend
    assert checked_arguments(tail, {"file_name": "a", "lines": 3.0}) == {"file_name": "a", "lines": 3}
    for bad in ({"file_name": "a", "lines": True}, {"file_name": "a", "lines": "3"}, {"file_name": "a", "lines": 2.5},
                {"lines": 3}, {"file_name": 7}, {"file_name": "a", "other": 1}, {"file_name": "x" * 100_001}):
        with pytest.raises(ArgumentsInvalid):
            checked_arguments(tail, bad)
    add = arguments_model(docs["add"])
    assert checked_arguments(add, {"a": 2, "b": 2.5}) == {"a": 2, "b": 2.5}
    assert type(checked_arguments(add, {"a": 2, "b": 3})["a"]) is int
    with pytest.raises(ArgumentsInvalid):
        checked_arguments(add, {"a": float("inf"), "b": 1})
    mean = arguments_model(docs["mean"])
    with pytest.raises(ArgumentsInvalid):
        checked_arguments(mean, {"numbers": [1.0] * 10_001})
    edit = arguments_model(docs["edit_ticket"])
    assert checked_arguments(edit, {"ticket_id": 1, "updates": {"status": "Closed"}}) == {
        "ticket_id": 1, "updates": {"status": "Closed"}}
    with pytest.raises(ArgumentsInvalid, match="updates.priority"):
        checked_arguments(edit, {"ticket_id": 1, "updates": {"priority": "high"}})
    with pytest.raises(ArgumentsInvalid, match="must be an object"):
        checked_arguments(edit, ["not", "a", "dict"])


def test_string_ticket_id_executes_in_bfcl() -> None:
    """Scenario 173's ticket has the id 'ticket_001': BFCL's ground truth closes it by that
    string, successfully, so the task needs the string although the schema says integer."""
    entry = entry_by_id("multi_turn_base_173")
    results = replay_results(entry, entry.ground_truth)
    assert results[-1] == ['{"status": "Ticket ticket_001 has been closed successfully."}']
    states = replay_states(entry, entry.ground_truth)
    assert states["TicketAPI"]["ticket_queue"][0]["status"] == "Closed"


# -- tasks ------------------------------------------------------------------------------------


def test_all_entries_convert_to_tasks() -> None:
    from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC as ADDED

    tasks = bfcl_tasks()
    assert len(tasks) == 800 and len({task.id for task in tasks}) == 800
    for category in CATEGORIES:
        assert len(bfcl_tasks(category)) == 200
    assert named_tasks("bfcl-multi-turn-miss-func") == bfcl_tasks("miss_func")
    assert set(BENCHMARK_SETS) == {"bfcl-multi-turn", "bfcl-multi-turn-base", "bfcl-multi-turn-miss-func",
                              "bfcl-multi-turn-miss-param", "bfcl-multi-turn-long-context"}
    order = list(CLASSES)
    for task in tasks:
        entry = entry_by_id(task.id)
        assert task.tags == ["bfcl", f"bfcl:{entry.category}"] and task.tool_names == "own"
        assert set(task.servers) == {SERVERS[name] for name in entry.involved_classes}
        assert task.servers == sorted(task.servers, key=order.index)
        assert task.initial_state is not None
        for server, state in task.initial_state.items():
            assert state.root == {"scenario": entry.initial_config.get(CLASSES[server], {}),
                                  "long_context": entry.category == "long_context"}
        assert len(task.turns) == len(entry.turns)
        early = premature_calls(entry)
        for index, turn in enumerate(task.turns):
            assert turn.user == ("\n".join(entry.turns[index]) or ADDED)
            assert [ref.tool for ref in turn.reveals] == entry.missed_function.get(index, [])
            expected = [parse_call(text, entry.involved_classes) for text in entry.ground_truth[index]
                        if (index, text) not in early]
            assert [(call.tool, call.arguments) for call in turn.calls] == expected
            for call in turn.calls:
                assert call.id.startswith(f"t{index}_c") and not call.bind
                assert call.tool in docs_by_tool() and CLASSES[call.server] in entry.involved_classes
    assert sum(not turn.calls for task in bfcl_tasks("miss_param") for turn in task.turns) >= 200
    sample = tasks[::97]
    assert [Task.model_validate_json(task.model_dump_json()) for task in sample] == sample


def test_only_one_ground_truth_call_precedes_its_reveal() -> None:
    found = {entry.id: premature_calls(entry) for entry in load_entries("miss_func") if premature_calls(entry)}
    assert found == {"multi_turn_miss_func_49": [(1, "tail(file_name='file3.txt')")]}


def test_unknown_category_is_refused() -> None:
    with pytest.raises(KeyError):
        bfcl_tasks("web_search")  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        named_tasks("bfcl-single-turn")


# -- BFCL's checker ---------------------------------------------------------------------------


def _drop_last_call(calls: list[list[Any]]) -> tuple[list[list[Any]], int]:
    last = max(index for index, turn in enumerate(calls) if turn)
    return [turn[:-1] if index == last else turn for index, turn in enumerate(calls)], last


def _sweep(entries: list[BfclEntry]) -> list[str]:
    """Ids whose verdicts are not as expected: ground truth valid, no calls and the ground
    truth less its last call invalid."""
    wrong = []
    for entry in entries:
        calls = truth_calls(entry)
        dropped, last = _drop_last_call(calls)
        empty = check_episode(entry.id, [[] for _ in calls])
        less = check_episode(entry.id, dropped)
        if not check_episode(entry.id, calls).valid or empty.valid or less.valid or less.turn != last:
            wrong.append(entry.id)
    return wrong


def test_ground_truth_is_valid_and_less_is_not_on_a_sample() -> None:
    assert _sweep(sample_entries()) == []


@pytest.mark.slow
def test_ground_truth_is_valid_and_less_is_not_on_every_entry() -> None:
    assert _sweep(all_entries()) == []


def test_verdicts_name_the_error_and_turn() -> None:
    entry = entry_by_id("multi_turn_base_0")
    empty = check_episode(entry.id, [[] for _ in entry.ground_truth])
    first = next(index for index, turn in enumerate(entry.ground_truth) if turn)
    assert empty == BfclVerdict(valid=False, error_type="multi_turn:empty_turn_model_response",
                                error_message=f"Model response list is empty for turn {first}", turn=first)
    short = check_episode(entry.id, truth_calls(entry)[:-1])
    assert not short.valid and short.error_type == "multi_turn:force_terminated" and short.turn is None
    calls = truth_calls(entry)
    calls[0] = [("cd", {"folder": "nowhere"})] + calls[0]
    assert check_episode(entry.id, calls).valid  # a failed extra call changes nothing


def test_the_task_ground_truth_scores_as_bfcl_ground_truth() -> None:
    for task in bfcl_tasks()[::20]:
        calls = [[(call.tool, call.arguments) for call in turn.calls] for turn in task.turns]
        assert check_episode(task, calls).valid, task.id
    task = next(task for task in bfcl_tasks("miss_func") if task.id == "multi_turn_miss_func_49")
    verdict = check_episode(task, [[(call.tool, call.arguments) for call in turn.calls] for turn in task.turns])
    assert verdict.error_type == "multi_turn:execution_response_mismatch" and verdict.turn == 1


def test_checks_leave_no_globals_and_repeat_the_same() -> None:
    space = checker_globals()
    before = set(space)
    entry = entry_by_id("multi_turn_miss_param_5")
    calls = truth_calls(entry)
    dropped, _ = _drop_last_call(calls)
    verdicts = [check_episode(entry.id, dropped if index % 2 else calls) for index in range(50)]
    assert set(space) == before
    assert set(verdicts[::2]) == {BfclVerdict(valid=True)}
    assert len(set(verdicts[1::2])) == 1 and not verdicts[1].valid
    replay_states(entry, calls)
    assert set(space) == before


def test_unsafe_calls_are_not_executed(tmp_path: Path) -> None:
    target = tmp_path / "written"
    entry = entry_by_id("multi_turn_base_0")
    calls = truth_calls(entry)
    hostile = [("open", {"file": str(target), "mode": "w"}), ("__import__", {"name": "os"}),
               ("cd", {"folder=__import__('os').getcwd()": 1}), ("cd", {"folder": float("nan")}),
               ("cd", "folder"), ("rm", None), ("add", {"a": 1, "b": 2}), (1, 2, 3)]
    calls[0] = hostile + calls[0]
    verdict = check_episode(entry.id, calls)
    assert verdict.valid  # failed calls change no state, and the real ones still follow
    assert not target.exists()
    results = replay_results(entry, [hostile])
    assert all(result.startswith("Error during execution") for result in results[0])


def test_malformed_episodes_are_refused() -> None:
    with pytest.raises(TypeError):
        check_episode("multi_turn_base_0", "cd(folder='x')")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        check_episode("multi_turn_base_0", [[]] * 1000)
    with pytest.raises(KeyError):
        check_episode("multi_turn_base_1000", [[]])


def test_replay_states_follow_the_calls() -> None:
    entry = entry_by_id("multi_turn_base_0")
    calls = truth_calls(entry)
    by_text = replay_states(entry, entry.ground_truth)
    by_call = replay_states(entry, calls)
    assert set(by_call) == set(entry.involved_classes)
    assert by_text == by_call
    initial = replay_states(entry, [])
    assert initial != by_call
    assert replay_states(entry, []) == initial
    assert [len(turn) for turn in replay_results(entry, calls)] == [len(turn) for turn in calls]


def test_concurrent_checks_agree_with_sequential_ones() -> None:
    from concurrent.futures import ThreadPoolExecutor

    entries = all_entries()[5::40]
    episodes = [(entry.id, calls) for entry in entries
                for calls in (truth_calls(entry), _drop_last_call(truth_calls(entry))[0])]
    sequential = [check_episode(entry_id, calls) for entry_id, calls in episodes]
    before = set(checker_globals())
    with ThreadPoolExecutor(max_workers=4) as pool:
        concurrent = list(pool.map(lambda episode: check_episode(*episode), episodes * 2))
    assert concurrent == sequential * 2
    assert set(checker_globals()) == before
