"""One file per attention atom kind, each defining ``ATOM``, its `AtomKind` (found by the
registry, `expressivity.layouts.registry`: a new kind is a new file here)."""
