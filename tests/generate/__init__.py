"""Tests of the generation family (providers, cache, service, tools)."""
