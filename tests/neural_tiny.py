"""What the tests of the neural learners share: tiny settings, one torch thread, random CRF scores
and the enumeration of every label sequence."""

import itertools

import pytest
import torch

TINY = dict(word_dim=8, char_dim=4, char_filters=4, hidden=8, feature_dim=4, batch_size=2,
            columns=("word", "pos"), progress=False)


@pytest.fixture(autouse=True)
def one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: threads only add overhead
    yield
    torch.set_num_threads(n)


def random_scores(seed, B=3, T=4, L=3):
    """Emission scores (B, T, L), a mask of random lengths (the first full), gold tags (B, T) and
    transition, start and end scores, float64, from one seeded generator."""
    g = torch.Generator().manual_seed(seed)
    em = torch.randn(B, T, L, generator=g, dtype=torch.float64)
    U, s, e = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in ((L, L), (L,), (L,)))
    lengths = [T] + [int(x) for x in torch.randint(1, T + 1, (B - 1,), generator=g)]
    mask = torch.zeros(B, T, dtype=torch.bool)
    for b, n in enumerate(lengths):
        mask[b, :n] = True
    tags = torch.randint(0, L, (B, T), generator=g)
    return em, mask, tags, U, s, e, lengths


def brute_force(em, U, s, e, n):
    """Every label sequence of a sentence of n tokens with its score."""
    L = em.shape[1]
    out = []
    for y in itertools.product(range(L), repeat=n):
        sc = s[y[0]] + e[y[-1]] + sum(em[i, y[i]] for i in range(n)) + sum(U[y[i - 1], y[i]] for i in range(1, n))
        out.append((float(sc), y))
    return out
