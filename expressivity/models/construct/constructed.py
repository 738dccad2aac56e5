"""A constructed recognizer and its report: `ConstructedModel`, `HeadRole`, its checkpoint file.

`models.construct.build.construct` returns a `ConstructedModel`: the hand-weighted
`Recognizer` with the report of how it was built (layers, heads, width, the residual
coordinate of every materialized subformula and the subformula each head computes).
`ConstructedModel.save` writes it as a `expressivity.checkpoint` file with that report, and
`load_constructed` reads the `Recognizer` back.
"""

from __future__ import annotations

import os
from dataclasses import astuple, dataclass
from pathlib import Path

from expressivity.alphabet import Alphabet
from expressivity.errors import ConfigError
from expressivity.logic.syntax import Formula
from expressivity.models.config import ModelConfig
from expressivity.models.transformer import Recognizer

__all__ = ["DEFAULT_SHARPNESS", "ConstructedModel", "HeadRole", "load_constructed"]

#: Default attention sharpness λ (query constant): exact for windows up to e^λ / 2θ keys.
DEFAULT_SHARPNESS = 20.0


@dataclass(frozen=True, order=True)
class HeadRole:
    """What head ``head`` of block ``layer`` (both 0-based, as in ``model.blocks``) computes."""

    layer: int
    head: int
    pattern: str  # "G" (global), "L<k>" (k-local), "D<k>.<d>" (dilated) or "B<b>" (block)
    computes: str  # the subformula (the head's output is rounded by the same block's FFN)


@dataclass(frozen=True, eq=False)
class ConstructedModel:
    """A hand-weighted `Recognizer` for ``formula`` and the report of how it was built."""

    model: Recognizer
    formula: Formula | None  # None: built from the DFA (an SSM parity construction)
    alphabet: Alphabet
    sharpness: float
    coordinates: tuple[str, ...]  # residual coordinate i holds coordinates[i]
    written: tuple[str, ...]  # where coordinate i is written
    heads: tuple[HeadRole, ...]
    readout: str  # the classifier as a formula of coordinates

    @property
    def config(self) -> ModelConfig:
        return self.model.config

    @property
    def n_layers(self) -> int:
        return self.config.n_layers

    @property
    def n_heads(self) -> int:
        """Heads per layer (the widest layer; narrower ones are padded with silent heads)."""
        return self.config.n_heads

    @property
    def n_active_heads(self) -> int:
        """Heads that compute a subformula, over all layers."""
        return len(self.heads)

    @property
    def width(self) -> int:
        """d_model: one coordinate per materialized value plus one scratch per head."""
        return self.config.d_model

    @property
    def d_ff(self) -> int:
        return self.config.d_ff

    @property
    def n_parameters(self) -> int:
        return self.model.num_parameters()

    @property
    def layout(self) -> str:
        return self.config.layout

    def coordinate(self, name: str) -> int:
        """The residual coordinate of a materialized subformula, by its printed form."""
        try:
            return self.coordinates.index(name)
        except ValueError:
            raise KeyError(f"{name!r} has no coordinate of its own (it is fused into a "
                           "key, an FFN term or the classifier)") from None

    def size_line(self) -> str:
        def count(n: int, noun: str) -> str:
            return f"{n} {noun}{'' if n == 1 else 's'}"

        return (f"{count(self.n_layers, 'layer')}, {count(self.n_heads, 'head')} per layer "
                f"({self.n_active_heads} active), width {self.width}, d_ff {self.d_ff}, "
                f"{self.n_parameters} parameters; layout {self.layout}{self._positions()}"
                + (f"; λ = {self.sharpness:g}" if self.sharpness else ""))

    def _positions(self) -> str:
        if self.config.positional == "none":
            return ""
        periods = ", ".join(map(str, self.config.periods))
        return f"; {self.config.positional} with periods {periods}"

    def summary(self, *, header: bool = True) -> str:
        """A human-readable report: size, heads and the coordinate of every subformula.

        Layers and heads are numbered from 1 here, as in the coordinates' "layer n" notes
        (`HeadRole` keeps 0-based indices into ``model.blocks``). ``header=False`` leaves out
        the formula line (the CLI prints its own language line).
        """
        what = "letter parities" if self.formula is None else f"formula {self.formula}"
        lines = [f"{what} over {self.alphabet}"] if header else []
        lines += [self.size_line(), "heads:"]
        lines += [f"  layer {h.layer + 1} head {h.head + 1} [{h.pattern}]: {h.computes}"
                  for h in self.heads]
        lines.append("residual coordinates:")
        pairs = zip(self.coordinates, self.written, strict=True)
        lines += [f"  x[{i}] = {name}   ({where})" for i, (name, where) in enumerate(pairs)]
        lines.append(f"classifier: {self.readout} > 0")
        return "\n".join(lines)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the model as a `expressivity.checkpoint` file (step 0, done) with this report."""
        from expressivity.checkpoint import Checkpoint, save_checkpoint

        config = {
            "model": self.config.to_dict(),
            "alphabet": list(self.alphabet.symbols),
            "construct": {"formula": "" if self.formula is None else str(self.formula),
                          "sharpness": self.sharpness,
                          "coordinates": list(self.coordinates),
                          "heads": [list(astuple(h)) for h in self.heads]},
        }
        state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        return save_checkpoint(path, Checkpoint(0, True, state, {}, {}, config, ""))


def load_constructed(path: str | os.PathLike[str]) -> Recognizer:
    """The `Recognizer` of a file written by `ConstructedModel.save`."""
    from expressivity.checkpoint import load_checkpoint

    ckpt = load_checkpoint(path)
    if "construct" not in ckpt.config:
        raise ConfigError(f"checkpoint {path}: not a constructed model (no 'construct' entry)")
    model = Recognizer(ModelConfig.from_dict(ckpt.config["model"]), len(ckpt.config["alphabet"]))
    model.load_state_dict(ckpt.model)
    return model.eval()
