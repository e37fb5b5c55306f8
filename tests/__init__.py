"""The test suite, grouped by layer: ``engine/`` (the rules engine against references and
brute force), ``api/`` (the operations through the in-process Flask app, the contract, the
CLI), ``live/`` (real gunicorn servers, browsers, generated clients, the benchmark's
harness), ``deploy/`` (image, chart, container); the checks of the whole tree sit here.
"""

from bench.common import ROOT

__all__ = ["ROOT"]
