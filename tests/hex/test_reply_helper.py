"""hex's reply search shared with a forked helper process: the replies of one process.

Every test that means to share checks that a helper was really forked; where other tests
left a thread behind, :func:`test_in_a_fresh_process` runs them again in a
fresh process (:mod:`tests.core.forked`).
"""

from __future__ import annotations

import random
from unittest import mock

import pytest

from fracas.core import helper as forking
from fracas.rulesets.hex import HexParams
from fracas.rulesets.hex.reply import SHARE_FROM, replies

from ..core.forked import FORKS, alone_or_again, counting_forks, reaped
from .test_boards import random_board

pytestmark = FORKS
alone_in_this_process, test_in_a_fresh_process = alone_or_again(__file__)


@pytest.mark.parametrize(("width", "budget"), [(None, 0), (2, 0), (None, 10)])
def test_replies_shared_with_a_helper_process_are_those_of_one(
    width: int | None, budget: int
) -> None:
    # A board of 40 units: enough attacks for a helper to take half of the replies after
    # the first. With the exact search out of reach (budget 0 or 10: it fails at once)
    # or a width asked for, no reply depends on another, so they may be shared; the
    # replies, their order and their labels are those of one process.
    board = random_board(random.Random(5), units=40)
    params = HexParams()
    alone = replies(board, "blue", params, top=None, width=width, budget=budget)
    assert len(alone) >= 2 * SHARE_FROM
    with (
        counting_forks() as forked,
        mock.patch.object(forking, "a_core_is_free", return_value=True),
        forking.sharing_with(2),
    ):
        shared = replies(board, "blue", params, top=None, width=width, budget=budget)
    assert shared == alone
    assert all(reply.board is board for reply in shared)
    assert len(forked) == 1
    assert reaped(forked[0])


def test_a_helper_that_fails_leaves_its_replies_to_this_process() -> None:
    board = random_board(random.Random(5), units=40)
    params = HexParams()
    alone = replies(board, "blue", params, top=None, width=2)

    class Gone:
        def send(self, message: object) -> None:
            pass

        def receive(self) -> None:
            return None  # what a helper that died or failed answers

        def stop(self) -> None:
            pass

    with (
        mock.patch.object(forking.Helper, "start", return_value=Gone()),
        mock.patch.object(forking, "a_core_is_free", return_value=True),
        forking.sharing_with(2),
    ):
        assert replies(board, "blue", params, top=None, width=2) == alone


def test_no_helper_for_one_process_a_busy_machine_or_few_replies() -> None:
    board = random_board(random.Random(5), units=40)
    params = HexParams()
    with counting_forks() as forked:
        with forking.sharing_with(1):
            replies(board, "blue", params, top=None, width=2)
        with (
            mock.patch.object(forking, "a_core_is_free", return_value=False),
            forking.sharing_with(2),
        ):
            replies(board, "blue", params, top=None, width=2)
        with (
            mock.patch.object(forking, "a_core_is_free", return_value=True),
            forking.sharing_with(2),
        ):
            replies(board, "blue", params, top=SHARE_FROM, width=2)
    assert forked == []
