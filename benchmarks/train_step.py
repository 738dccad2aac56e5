"""Tokens/s of one full training step of `Recognizer` vs `torch.nn.TransformerEncoder`.

Both models have the `paper` size (5 layers, width 64, 8 heads, d_ff 256, pre-LN, GELU), the
same strict global mask, a linear classifier at EOS, BCE loss and AdamW; a step is forward,
backward and optimizer update on a batch of 128 strings of 40 symbols (42 tokens). The two are
timed in alternating rounds in one process and the best round of each is compared.

    python benchmarks/train_step.py [--quick] [--rounds R] [--steps S] [--layout L] [--scales]

With ``--scales`` the recognizer is also timed with length-aware logits (``attention_scale``
"log-n" and "ssmax", `models.scaling`), to show what the per-row key counts cost.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import torch
from torch import nn

from expressivity.models import ModelConfig, Recognizer, encode_batch
from expressivity.models.masks import global_mask
from expressivity.models.tokens import vocab_size

ALPHABET = 3


class EncoderBaseline(nn.Module):
    """`nn.TransformerEncoder` with the recognizer's embedding, mask and EOS classifier."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size(ALPHABET), config.d_model)
        layer = nn.TransformerEncoderLayer(
            config.d_model, config.n_heads, config.d_ff, dropout=0.0, activation="gelu",
            batch_first=True, norm_first=True,
        )
        self.encoder = nn.TransformerEncoder(
            layer, config.n_layers, norm=nn.LayerNorm(config.d_model), enable_nested_tensor=False
        )
        self.classifier = nn.Linear(config.d_model, 1)

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        blocked = ~global_mask(tokens.shape[1])  # nn.MultiheadAttention: True = may NOT attend
        h = self.encoder(self.embed(tokens), mask=blocked)
        return self.classifier(h[torch.arange(len(lengths)), lengths + 1]).squeeze(-1)


def make_step(model: nn.Module, tokens: torch.Tensor, lengths: torch.Tensor) -> Callable[[], None]:
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    labels = (torch.arange(len(lengths)) % 2).float()
    loss_fn = nn.BCEWithLogitsLoss()

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        loss_fn(model(tokens, lengths), labels).backward()
        opt.step()

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--steps", type=int, default=4, help="steps per timed round")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--length", type=int, default=40, help="symbols per string (+ BOS, EOS)")
    parser.add_argument("--layout", default="global")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--scales", action="store_true",
                        help="also time attention_scale log-n and ssmax")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.steps = 2, 2
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(0)
    words = [torch.randint(0, ALPHABET, (args.length,), generator=gen).numpy()
             for _ in range(args.batch)]
    tokens, lengths = encode_batch(words, ALPHABET)
    config = ModelConfig.preset("paper", layout=args.layout)
    torch.manual_seed(0)  # the baseline's own initialisation uses the global RNG
    models: dict[str, nn.Module] = {
        "nn.TransformerEncoder": EncoderBaseline(config),
        f"Recognizer ({args.layout})": Recognizer(config, ALPHABET, seed=0),
    }
    for scale in ("log-n", "ssmax") if args.scales else ():
        scaled = config.replace(attention_scale=scale)
        models[f"Recognizer ({args.layout}, {scale})"] = Recognizer(scaled, ALPHABET, seed=0)
    steps = {name: make_step(m, tokens, lengths) for name, m in models.items()}
    for step in steps.values():  # warm-up
        step()
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(args.rounds):
        for name, step in steps.items():
            start = time.perf_counter()
            for _ in range(args.steps):
                step()
            best[name] = min(best[name], (time.perf_counter() - start) / args.steps)
    n_tok = tokens.numel()
    base = n_tok / best["nn.TransformerEncoder"]
    print(f"training step, batch {args.batch} x {tokens.shape[1]} tokens, paper preset, "
          f"{args.threads} threads, best of {args.rounds} rounds x {args.steps} steps")
    print("| model | parameters | ms/step | tokens/s | vs baseline |\n|---|---|---|---|---|")
    for name, model in models.items():
        rate = n_tok / best[name]
        params = sum(p.numel() for p in model.parameters())
        ms = best[name] * 1e3
        print(f"| {name} | {params:,} | {ms:.1f} | {rate:,.0f} | {rate / base:.2f}x |")


if __name__ == "__main__":
    main()
