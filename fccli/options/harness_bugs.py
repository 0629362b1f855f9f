"""The classic mistakes fc's own harness can be told to make (`fc run --harness-bug KIND`).

`--demo-fault` is the model's mistake; `--harness-bug` is the program's: the six pitfalls of the
course's first text and the harness's mistakes of its second and third, committed by fc itself so that a learner sees the consequence live, then
sees `fc check` find it. A module of its own, with no imports, so `fc run --help` lists them
cheaply; buggy_harness.py does the damage.
"""

HARNESS_BUGS = (
    "ignore-stop-reason",
    "tool-request-as-reply",
    "pair-by-order",
    "no-validation",
    "split-results",
    "drop-reasoning",
    "drop-results",
    "text-only-turn",
    "raise-on-error",
    "pack-results",
    "report-success",
    "identity-from-args",
)

HARNESS_BUG_HELP = {
    "ignore-stop-reason": "the stop reason is not read: a tool request is taken as the final "
    "answer, its calls never executed (pitfall 1; fc check: FC130)",
    "tool-request-as-reply": "the stop reason is not read: a tool request is carried on as an "
    "ordinary reply, its calls never executed, and the loop asks again; the model makes the "
    "result up (pitfall 1 as the course's opening story tells it; FC130)",
    "pair-by-order": "results handed back in another order under the calls' ids, paired by "
    "position: with parallel calls 北京 gets 上海's weather (pitfall 3; FC131)",
    "no-validation": "arguments executed unchecked: the tool gets whatever the model sent "
    "(pitfall 4; FC110 when the result looks fine)",
    "split-results": "one user message per result instead of one for all (pitfall 6; FC103)",
    "drop-reasoning": "the reasoning is not carried back with the tool-calling turn: DeepSeek's "
    "400 (FC112)",
    "drop-results": "the calls are left without results: every provider's 400 (pitfall 2's "
    "cousin; FC101)",
    "text-only-turn": 'the tool-calling turn goes back cut down to its text, "to save tokens": '
    "the results answer calls the history no longer holds (pitfall 2; FC102, a 400)",
    "raise-on-error": "a tool error is raised instead of handed back: the loop stops there and "
    "the model never answers (pitfall 5; exit 1)",
    "pack-results": "the chat format's results packed into ONE role:tool message, its content "
    "a list of tool_result blocks, as content blocks would hold them (pitfall 6; FC113, a 400)",
    "report-success": "a failed tool reported to the model as a success (article 003: never "
    "invent a success; FC133)",
    "identity-from-args": "the user's identity (a tools file's `session`) taken from the model's "
    "arguments, not from the session (article 001; FC134)",
}
