"""The sample agent project is run by the tests (in an inner pytest session), not collected."""

collect_ignore = ["sample_agent"]
