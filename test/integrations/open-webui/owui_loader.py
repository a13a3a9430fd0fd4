"""
Loads and calls an Open WebUI Filter Function the way Open WebUI does (utils/plugin.py, utils/filter.py,
routers/functions.py; see shared/docs/open-webui-functions.md), for tests of the Function Eunoe generates.

    python3 owui_loader.py FUNCTION.py SCENARIO.json   ->  JSON on stdout
    python3 owui_loader.py --serve                     ->  one {"function", "scenario"} line in, one JSON line out,
                                                           as long as stdin is open (the interpreter stays up between
                                                           runs, as Open WebUI's does; each run loads the file anew)

SCENARIO: {"id": "eunoe", "valves": {...admin form}, "python_path": [dirs] (Open WebUI's own modules for this run, e.g.
stubs of `open_webui.models.groups`; removed again after it), "steps": [{"hook": "inlet"|"outlet", "body": {...},
"user": {...user record}, "user_valves": {...user form} | null, "metadata": {...}, "emitter": true,
"filter_ids": [...]}]}. Valve forms are stored as Open WebUI stores them (None dropped, validated,
model_dump(exclude_unset=True)) and hydrated before every hook; hook arguments are chosen by signature.
"""

import asyncio
import contextlib
import inspect
import json
import re
import sys
import tempfile
import time
import traceback
import types


def extract_frontmatter(content: str) -> dict:
    """utils/plugin.py extract_frontmatter: only when the first line is exactly three double quotes."""
    lines = content.splitlines()
    if not lines or lines[0].strip() != '"""':
        return {}
    found = {}
    for line in lines[1:]:
        if '"""' in line:
            break
        match = re.match(r"^\s*([a-z_]+):\s*(.*)\s*$", line, re.IGNORECASE)
        if match:
            found[match.group(1).lower()] = match.group(2).strip()
    return found


def replace_imports(content: str) -> str:
    """utils/plugin.py replace_imports: four plain replacements over the whole file."""
    for old, new in (
        ("from utils", "from open_webui.utils"),
        ("from apps", "from open_webui.apps"),
        ("from main", "from open_webui.main"),
        ("from config", "from open_webui.config"),
    ):
        content = content.replace(old, new)
    return content


def load_function_module(function_id: str, content: str):
    """utils/plugin.py load_function_module_by_id: exec in a fresh module, Pipe > Filter > Action."""
    module = types.ModuleType(f"function_{function_id}")
    sys.modules[module.__name__] = module
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(content)
        module.__file__ = handle.name
    exec(content, module.__dict__)
    if hasattr(module, "Pipe"):
        return module.Pipe(), "pipe"
    if hasattr(module, "Filter"):
        return module.Filter(), "filter"
    if hasattr(module, "Action"):
        return module.Action(), "action"
    raise Exception("No Function class found in the module")


def stored_form(model_class, form):
    """routers/functions.py valves/update: None values dropped, validated, only set fields stored."""
    if form is None:
        return None
    form = {key: value for key, value in form.items() if value is not None}
    return model_class(**form).model_dump(exclude_unset=True)


async def call_hook(instance, function_id, hook, body, user, stored_valves, stored_user_valves, extra):
    """utils/filter.py process_filter_functions, for one filter."""
    handler = getattr(instance, hook, None)
    if not handler:
        return body
    if hasattr(instance, "valves") and hasattr(instance, "Valves"):
        instance.valves = instance.Valves(**(stored_valves if stored_valves else {}))
    sig = inspect.signature(handler)
    params = {"body": body}
    params = params | {k: v for k, v in {**extra, "__id__": function_id}.items() if k in sig.parameters}
    if "__user__" in sig.parameters and hasattr(instance, "UserValves"):
        params["__user__"]["valves"] = instance.UserValves(**(stored_user_valves or {}))
    if inspect.iscoroutinefunction(handler):
        return await handler(**params)
    return handler(**params)


async def run(function_path: str, scenario: dict) -> dict:
    raw = open(function_path, encoding="utf-8").read()
    content = replace_imports(raw)
    function_id = scenario.get("id", "eunoe")
    out = {
        "frontmatter": extract_frontmatter(content),
        "imports_rewritten": content != raw,
        "steps": [],
    }
    instance, kind = load_function_module(function_id, content)
    out["kind"] = kind
    out["toggle"] = bool(getattr(instance, "toggle", None))
    out["valves_schema"] = instance.Valves.model_json_schema() if hasattr(instance, "Valves") else None
    out["user_valves_schema"] = (
        instance.UserValves.model_json_schema() if hasattr(instance, "UserValves") else None
    )
    # Open WebUI builds both classes with no arguments (every field needs a default).
    out["valves_defaults"] = instance.Valves().model_dump()
    out["user_valves_defaults"] = instance.UserValves().model_dump() if hasattr(instance, "UserValves") else None
    if scenario.get("user_form") is not None:
        out["user_form_stored"] = stored_form(instance.UserValves, scenario["user_form"])
    stored_valves = stored_form(instance.Valves, scenario.get("valves") or {})
    for step in scenario.get("steps", []):
        events = []

        async def emitter(event, events=events):
            json.dumps(event)  # socket.io sends JSON: an event that is not JSON would fail there
            events.append(event)

        body = step["body"]
        metadata = step.get("metadata", body.get("metadata") if isinstance(body.get("metadata"), dict) else {})
        user = dict(step["user"]) if step.get("user") is not None else None
        filter_ids = step.get("filter_ids", metadata.get("filter_ids", []) if isinstance(metadata, dict) else [])
        record = {"hook": step["hook"], "events": events}
        # utils/filter.py get_sorted_filter_ids: a toggleable filter runs only when the chat switched it on.
        if getattr(instance, "toggle", None) and function_id not in (filter_ids or []):
            record.update(ok=True, skipped=True, body=body)
            out["steps"].append(record)
            continue
        extra = {
            "__user__": user,
            "__event_emitter__": emitter if step.get("emitter", True) else None,
            "__event_call__": None,
            "__metadata__": metadata,
            "__request__": None,
            # The model record (a workspace model's carries info.base_model_id); the body's model by default.
            "__model__": step.get("model") or {"id": body.get("model"), "info": {"meta": {}}},
            "__oauth_token__": None,
        }
        if step["hook"] != "outlet":
            extra["__chat_id__"] = (metadata or {}).get("chat_id")
            extra["__message_id__"] = (metadata or {}).get("message_id")
        stored_user = stored_form(instance.UserValves, step.get("user_valves")) if hasattr(instance, "UserValves") else None
        started = time.monotonic()
        try:
            result = await call_hook(
                instance, function_id, step["hook"], body, user, stored_valves, stored_user, extra
            )
            record.update(ok=True, body=result)
        except Exception as error:  # Open WebUI shows str(error) in the chat
            record.update(ok=False, error=str(error), error_type=type(error).__name__)
        record["seconds"] = round(time.monotonic() - started, 3)
        out["steps"].append(record)
    return out


@contextlib.contextmanager
def open_webui_modules(paths):
    """Put `paths` (where this run's `open_webui` package lives) first on sys.path for one run, then forget them and
    every `open_webui` module they provided, so the next run sees only its own."""
    paths = [path for path in (paths or []) if isinstance(path, str)]
    sys.path[:0] = paths
    try:
        yield
    finally:
        for path in paths:
            if path in sys.path:
                sys.path.remove(path)
        for name in [name for name in sys.modules if name == "open_webui" or name.startswith("open_webui.")]:
            del sys.modules[name]


def serve() -> None:
    """Runs each request line's scenario; answers {"result": …} or {"error": traceback}. What a Function prints goes
    to stderr, so stdout carries only the answers."""
    answers = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        try:
            with contextlib.redirect_stdout(sys.stderr), open_webui_modules(request["scenario"].get("python_path")):
                answer = {"result": asyncio.run(run(request["function"], request["scenario"]))}
        except Exception:
            answer = {"error": traceback.format_exc()}
        answers.write(json.dumps(answer, default=str) + "\n")
        answers.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        with open(sys.argv[2], encoding="utf-8") as handle:
            scenario = json.load(handle)
        with open_webui_modules(scenario.get("python_path")):
            print(json.dumps(asyncio.run(run(sys.argv[1], scenario)), default=str))
