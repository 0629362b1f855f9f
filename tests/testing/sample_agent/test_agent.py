from agent import run


def test_the_agent_looks_up_both_cities(fc_traces):
    answer = run("Is it warm enough to run in Beijing and Shanghai today?")
    assert "Beijing" in answer and "Shanghai" in answer
    assert len(fc_traces.requests) == 3
