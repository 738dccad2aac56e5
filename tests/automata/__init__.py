"""Tests of expressivity.automata: DFAs, operations, formula and regex compilation."""
