"""Tests of ``service/http/`` module by module, in process (the operations through the app are in ``tests/api/``)."""
