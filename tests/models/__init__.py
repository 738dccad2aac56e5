"""Tests of expressivity.models."""
