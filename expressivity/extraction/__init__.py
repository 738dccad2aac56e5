"""What did the model learn? Automaton extraction from recognizers, and their inspection.

Modules: `oracle` (batched, cached membership queries through a `Recognizer`), `learner`
(AALpy glue: the model as system under learning, the toolkit-aware equivalence oracle),
`extract` (`extract` → `Extraction`: the DFA, its class and distance from the target), `result`
(the `Extraction` record and its report), `runs` (a trained run loaded from a results store or
checkpoint), `inspect` (attention maps), `probes` (linear probes of the residual stream against
subformulas), `plots` (figures), `agreement` (a recognizer against a DFA on every short word
and at length) and `decisions` (a recognizer's batched decisions in a chosen dtype).
"""

from expressivity.extraction.extract import Extraction, LengthAgreement, extract
from expressivity.extraction.oracle import MembershipOracle, QueryCounts

__all__ = ["Extraction", "LengthAgreement", "MembershipOracle", "QueryCounts", "extract"]
