"""Tests against real gunicorn servers (bench.harness): limits and faults, the server's
life cycle, browsers, generated clients, the contract over HTTP and the benchmark."""
