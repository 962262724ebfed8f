"""A character-level LSTM language model that learns to spell a small text.

    python examples/char_lstm.py [--quick]

Model: `nn.Chain(nn.Embedding, nn.Recurrence(nn.LSTM), nn.Dense)`.  A batch is a
set of random windows of the text, time-major: inputs (time, batch) of character
indices, targets the same windows shifted by one character.  The LSTM is Flux's
`Recur`: one step per call, its hidden state on the object (`recur.state`), and
`Recurrence` runs it over the whole window; the gradient follows the state
through every step back to the learned initial state `recur.init`.  The script
prints the loss falling (and by what factor), then samples text from the trained
model one character at a time, calling the Recur once per character.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import zygote_py as zp
from zygote_py import nn

TEXT = (
    "the quick brown fox jumps over the lazy dog. "
    "a stitch in time saves nine. "
    "all that glitters is not gold. "
    "the early bird catches the worm. "
) * 4


def build(vocab, hidden, rng):
    return nn.Chain(
        nn.Embedding(vocab, 16, rng=rng),
        nn.Recurrence(nn.LSTM(16, hidden, rng=rng)),
        nn.Dense(hidden, vocab, rng=rng),
    )


def loss(model, x, y):
    return nn.logitcrossentropy(model(x), y)   # logits (time, batch, vocab), y (time, batch)


def batch(codes, seq_len, batch_size, rng):
    starts = rng.integers(0, len(codes) - seq_len - 1, size=batch_size)
    idx = starts[None, :] + np.arange(seq_len)[:, None]          # (time, batch)
    return codes[idx], codes[idx + 1]


def sample(model, chars, prompt, length, rng):
    """Generates text after `prompt`, one character at a time (no gradient needed)."""
    embed, over_time, dense = model.layers
    recur = over_time.recur
    recur.reset()
    index = {c: i for i, c in enumerate(chars)}
    out = list(prompt)
    for c in prompt[:-1]:
        recur(embed(np.array([index[c]])))
    code = index[prompt[-1]]
    for _ in range(length):
        logits = dense(recur(embed(np.array([code]))))[0]
        p = nn.softmax(logits / 0.5)  # temperature 0.5: mostly the likeliest character
        code = int(rng.choice(len(chars), p=p))
        out.append(chars[code])
    return "".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small, fast run (for tests)")
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    steps = args.steps or (60 if args.quick else 600)
    hidden, seq_len, batch_size = (32, 12, 16) if args.quick else (64, 24, 32)

    rng = np.random.default_rng(args.seed)
    chars = sorted(set(TEXT))
    codes = np.array([chars.index(c) for c in TEXT])
    model = build(len(chars), hidden, rng)
    opt = nn.Adam(1e-2, clip_norm=5.0)   # clipping guards against exploding gradients through time

    history, start = [], time.perf_counter()
    for step in range(1, steps + 1):
        x, y = batch(codes, seq_len, batch_size, rng)
        model[1].reset()   # independent windows: start each from the learned initial state
        value, (grads, _, _) = zp.withgradient(loss, model, x, y)
        opt.update(model, grads)
        history.append(float(value))
        if step % max(1, steps // 6) == 0:
            print(f"step {step:4d}  loss {np.mean(history[-10:]):.3f}")
    elapsed = time.perf_counter() - start

    first, last = float(np.mean(history[:5])), float(np.mean(history[-10:]))
    print(f'sample: "{sample(model, chars, "the ", 60, rng)}"')
    print(f"{steps} steps in {elapsed:.1f} s; loss {first:.3f} -> {last:.3f} "
          f"(fell by a factor of {first / last:.1f}; chance level is ln {len(chars)} = "
          f"{np.log(len(chars)):.2f})")
    return {"history": history, "first": first, "last": last, "factor": first / last}


if __name__ == "__main__":
    main()
