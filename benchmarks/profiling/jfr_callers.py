"""What the readers of a recording share: the events of the benchmark's caller threads (those whose stack passes
through UserPathBenchmark, JMH's generated caller of the path), and the patterns they are matched against."""
import json
import re
import subprocess

CALLER = "UserPathBenchmark"


def caller_events(recording, event):
    """(frames, values) of each `event` of `recording` on a caller thread; frames innermost first, each a
    (type, method, line) with the type's full name."""
    out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "200", "--events", event, recording],
                         capture_output=True, text=True, check=True).stdout
    for e in json.loads(out)["recording"]["events"]:
        stack = e["values"].get("stackTrace")
        if not stack:
            continue
        frames = [(fr["method"]["type"]["name"], fr["method"]["name"], fr.get("lineNumber"))
                  for fr in stack["frames"]]
        if any(CALLER in frame[0] for frame in frames):
            yield frames, e["values"]


def qualified(frames):
    """The frames as "type.method", one a line: the text patterns are matched against."""
    return "\n".join("%s.%s" % (type_name, method) for type_name, method, _ in frames)


def matches(pattern, stack_text):
    """Whether a stack matches `pattern`: a regular expression, or "A !B" for stacks with a frame matching A and none
    matching B."""
    wanted, _, unwanted = pattern.partition(" !")
    return bool(re.search(wanted, stack_text)) and not (unwanted and re.search(unwanted, stack_text))
