"""DataLoader, train (both forms, callbacks, progress output), EarlyStopping, save/load."""

import numpy as np
import pytest

import zygote_py as zp
from zygote_py import nn
from zygote_py.nn import training as train_module


def test_dataloader_batches():
    x, y = np.arange(10.0).reshape(10, 1), np.arange(10)
    loader = nn.DataLoader((x, y), batch_size=4, shuffle=False)
    batches = list(loader)
    assert len(loader) == 3 and [len(b[1]) for b in batches] == [4, 4, 2]
    np.testing.assert_array_equal(batches[0][1], [0, 1, 2, 3])
    np.testing.assert_array_equal(batches[0][0][:, 0], [0, 1, 2, 3])
    dropped = nn.DataLoader((x, y), batch_size=4, drop_last=True)
    assert len(dropped) == 2 and len(list(dropped)) == 2


def test_dataloader_shuffles_each_epoch_reproducibly():
    x = np.arange(20.0)
    a = nn.DataLoader(x, batch_size=5, rng=3)
    first, second = np.concatenate(list(a)), np.concatenate(list(a))
    assert sorted(first) == list(x) and not np.array_equal(first, second)
    np.testing.assert_array_equal(first, np.concatenate(list(nn.DataLoader(x, 5, rng=3))))
    with pytest.raises(ValueError):
        nn.DataLoader((x, x[:3]))


def make_problem(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((64, 3))
    y = x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3
    model = nn.Dense(3, 1, rng=seed)
    return model, x, y


def mse_loss(model, x, y):
    return nn.mse(model(x), y)


def test_train_structural_form(capsys):
    model, x, y = make_problem()
    history = nn.train(mse_loss, model, nn.DataLoader((x, y), 16, rng=0), nn.Adam(0.1), epochs=30,
                       verbose=False)
    assert len(history) == 30 and history[-1] < 0.01 * history[0]
    assert capsys.readouterr().out == ""


def test_train_implicit_form():
    model, x, y = make_problem(1)
    ps = zp.params(model)
    history = nn.train(lambda xb, yb: nn.mse(model(xb), yb), ps, nn.DataLoader((x, y), 16, rng=0),
                       nn.Descent(0.1), epochs=20, verbose=False)
    assert history[-1] < 0.01 * history[0]
    np.testing.assert_allclose(model.weight[:, 0], [1.0, -2.0, 0.5], atol=0.05)


def test_plain_progress_lines_without_tqdm(monkeypatch, capsys):
    monkeypatch.setattr(train_module, "_progress", lambda total, verbose: None)
    model, x, y = make_problem()
    nn.train(mse_loss, model, [(x, y)], nn.Descent(0.05), epochs=2)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("epoch 1/2  loss ")


def test_callbacks_and_early_stopping():
    model, x, y = make_problem()
    seen = []
    stopper = nn.EarlyStopping(patience=2, monitor=lambda: 1.0)  # never improves after epoch 1
    history = nn.train(mse_loss, model, [(x, y)], nn.Descent(0.01), epochs=10,
                       callbacks=[lambda e, l: seen.append((e, l)), stopper], verbose=False)
    assert len(history) == 3 and [e for e, _ in seen] == [1, 2, 3]
    assert stopper.best == 1.0 and stopper.best_epoch == 1
    up = nn.EarlyStopping(patience=1, mode="max")
    assert up(1, 0.5) is False and up(2, 0.7) is False and up(3, 0.6) is True


def test_train_stops_on_a_non_finite_loss():
    model, x, y = make_problem()
    with pytest.raises(FloatingPointError), np.errstate(invalid="ignore"):
        nn.train(mse_loss, model, [(x, y * np.inf)], nn.Descent(0.1), verbose=False)


def test_save_and_load_round_trip(tmp_path):
    def build(seed):
        return nn.Chain(nn.Dense(3, 4, nn.relu, rng=seed), nn.LayerNorm(4),
                        nn.Recurrence(nn.LSTM(4, 2, rng=seed)), nn.Dense(2, 1, rng=seed))

    a, b = build(0), build(1)
    path = tmp_path / "model.npz"
    nn.save(a, path)
    names = sorted(np.load(path).files)
    # the LSTM's initial state (h, c) is saved, its running state is not (data, not parameters)
    assert "layers[0].weight" in names and "layers[2].recur.cell.Wh" in names and len(names) == 11
    assert "layers[2].recur.init[0]" in names and not any(".state" in n for n in names)
    ps = zp.params(b)
    before = [id(p) for p in ps]
    nn.load(b, path)
    xs = np.random.default_rng(0).standard_normal((5, 2, 3))
    np.testing.assert_array_equal(a(xs), b(xs))
    assert [id(p) for p in zp.params(b)] == before  # loaded in place
    with pytest.raises(ValueError, match="shape"):
        nn.load(nn.Chain(nn.Dense(3, 5), nn.LayerNorm(5), nn.Recurrence(nn.LSTM(5, 2)),
                         nn.Dense(2, 1)), path)
    with pytest.raises(ValueError, match="missing"):
        nn.load(nn.Chain(nn.Dense(3, 4)), path)
    state = nn.state_dict(a)
    state["layers[0].bias"][:] = 7.0  # a copy: the model is unchanged
    assert not np.any(a[0].bias == 7.0)
