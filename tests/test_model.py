"""Model types that stand in for plain ones must behave exactly like them."""

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.model import KeyPrefix

keys = st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f"]), max_size=8)


@settings(max_examples=300, deadline=None)
@given(keys, st.integers(0, 10), st.integers(-10, 10), st.sampled_from(["a", "c", "z", 3]))
def test_a_key_prefix_is_the_tuple_prefix_it_stands_for(order, size, index, probe):
    view, plain = KeyPrefix(tuple(order), size), tuple(order)[:size]
    assert view == plain and plain == view and not (view != plain)
    assert len(view) == len(plain) and list(view) == list(plain) and tuple(view) == plain
    assert (probe in view) == (probe in plain)
    assert view[1:3] == plain[1:3] and view[::-1] == plain[::-1]
    assert hash(view) == hash(plain)
    if -len(plain) <= index < len(plain):
        assert view[index] == plain[index]
    else:
        with pytest.raises(IndexError):
            view[index]
    shorter = view.prefix(size - 1)
    assert shorter == plain[: max(0, size - 1)] and view.starts_with(shorter) and view.starts_with(plain[:2])
    assert view.starts_with(plain + ("z",)) is False
    assert pickle.loads(pickle.dumps(view)) == plain


def test_prefixes_of_one_order_share_it():
    order = tuple(f"k{i}" for i in range(1000))
    whole = KeyPrefix(order, len(order))
    first, second = whole.prefix(10), whole.prefix(20)
    assert second.starts_with(first) and not first.starts_with(second)
    assert "k15" in second and "k15" not in first and repr(first) == "KeyPrefix(10 of 1000 keys)"
