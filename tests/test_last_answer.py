"""A log's answer given again only for the very same objects (`last_answer.for_the_same`): the guard and the analysis
share the mining of one trace's records, and never get another log's answer for equal-looking ones."""

from __future__ import annotations

import pytest

from inspector.last_answer import for_the_same


def counting():
    asked: list[tuple[object, ...]] = []

    @for_the_same
    def words(records: list[str], config: object) -> tuple[str, ...]:
        asked.append((records, config))
        return tuple(records)

    return words, asked


def test_the_same_objects_get_the_last_answer_without_asking_again() -> None:
    words, asked = counting()
    records, config = ["Never touch staging."], object()
    first = words(records, config)
    assert words(records, config) is first and len(asked) == 1


def test_equal_objects_are_another_question() -> None:
    words, asked = counting()
    config = object()
    words(["Never touch staging."], config)
    words(["Never touch staging."], config)  # equal, not the same list: a log read again may have grown since
    assert len(asked) == 2


def test_one_answer_is_kept_the_last() -> None:
    words, asked = counting()
    first, second, config = ["a"], ["b"], object()
    words(first, config)
    words(second, config)
    assert words(second, config) == ("b",) and len(asked) == 2
    assert words(first, config) == ("a",) and len(asked) == 3  # the first log's answer was let go


def test_any_argument_that_differs_asks_again() -> None:
    words, asked = counting()
    records = ["a"]
    words(records, object())
    words(records, object())
    assert len(asked) == 2


def test_keywords_are_refused() -> None:
    words, _ = counting()
    with pytest.raises(TypeError):
        words(["a"], config=object())
