"""The golden corpus of the HTTP API (issue 10): record.py writes it, tests/api/test_golden.py replays it."""
