"""The classic mistakes fc's own harness can be told to make (`fc run --harness-bug KIND`).

`--demo-fault` is the model's mistake; `--harness-bug` is the program's: the six pitfalls of the
course's first text, committed by fc itself so that a learner sees the consequence live, then
sees `fc check` find it. A module of its own, with no imports, so `fc run --help` lists them
cheaply; buggy_harness.py does the damage.
"""

HARNESS_BUGS = (
    "ignore-stop-reason",
    "pair-by-order",
    "no-validation",
    "split-results",
    "drop-reasoning",
    "drop-results",
)

HARNESS_BUG_HELP = {
    "ignore-stop-reason": "the stop reason is not read: a tool request is taken as the final "
    "answer, its calls never executed (pitfall 1; fc check: FC130)",
    "pair-by-order": "results handed back in another order under the calls' ids, paired by "
    "position: with parallel calls 北京 gets 上海's weather (pitfall 3; FC131)",
    "no-validation": "arguments executed unchecked: the tool gets whatever the model sent "
    "(pitfall 4; FC110 when the result looks fine)",
    "split-results": "one user message per result instead of one for all (pitfall 6; FC103)",
    "drop-reasoning": "the reasoning is not carried back with the tool-calling turn: DeepSeek's "
    "400 (FC112)",
    "drop-results": "the calls are left without results: every provider's 400 (pitfall 2's "
    "cousin; FC101)",
}
