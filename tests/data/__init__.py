"""Tests of expressivity.data: exact sampling, negatives, adversarial pairs, datasets, splits."""
