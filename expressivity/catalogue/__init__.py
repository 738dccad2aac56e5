"""The language catalogue: `*.toml` files loaded into validated, frozen `Language` values.

The catalogue ships inside the package (``expressivity/languages/``); users' own files go in
``./languages/`` or a folder named by ``--catalogue DIR`` / ``$EXPRESSIVITY_CATALOGUE``, searched
first (`search_path`). Each file holds one language::

    name = "LT-2"                      # unique ignoring case; see NAME_RULE
    alphabet = ["a", "b", "c"]         # ordered; membership in a class depends on it
    formula = "P(b & Y a)"             # optional: temporal-logic definition (expressivity.logic)
    evaluate_at = "eos"                # optional: "eos" (default) or "start" (logic.anchor)
    logic = "ltl"                      # optional: "ltlf" reads the formula as LTLf (logic.ltlf)
    regex = ".* a b .*"                # optional: regular expression (expressivity.automata.regex)
    nonregular = "anbn"                # optional: a built-in non-regular membership predicate
    description = "..."
    source = "LC25 Table 2 (LT-2)"

    [dfa]                              # optional: an explicit complete DFA
    initial = 0
    accepting = [0]
    transitions = [[1, 2], [2, 0], [0, 1]]   # rows: states, columns: alphabet order

    [expected]                         # the classes the source claims (checked by the tests)
    r_trivial = false
    locally_r_trivial = true

At least one of formula, regex, dfa, nonregular is required. Where several definitions are
given they must define the same language (the test suite checks it).
"""

from expressivity.catalogue.entry import ENTRY_KEYS, NAME_RULE, check_name, parse_entry
from expressivity.catalogue.files import (
    CATALOGUE_ENV,
    MAX_FILE_BYTES,
    CatalogueWarning,
    close_names,
    default_directory,
    find_language,
    get_language,
    load_catalogue,
    load_file,
    search_path,
    skipped_files,
    unknown_language,
)
from expressivity.catalogue.language import CLASS_KEYS, NONREGULAR, Language

__all__ = [
    "CATALOGUE_ENV", "CLASS_KEYS", "ENTRY_KEYS", "MAX_FILE_BYTES", "NAME_RULE", "NONREGULAR",
    "CatalogueWarning", "Language", "check_name", "close_names", "default_directory",
    "find_language", "get_language", "load_catalogue", "load_file", "parse_entry",
    "search_path", "skipped_files", "unknown_language",
]
