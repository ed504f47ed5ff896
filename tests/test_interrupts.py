"""``ctrl_c_between_calls``: a Ctrl-C inside the block is held, then raised, never lost."""

from __future__ import annotations

import os
import signal

import pytest

from pyanitsa.interrupts import ctrl_c_between_calls


def ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)  # delivered to this, the main, thread


def test_a_ctrl_c_waits_for_check_and_the_handler_comes_back() -> None:
    ran = []
    with pytest.raises(KeyboardInterrupt), ctrl_c_between_calls() as check:
        check()  # nothing pending: returns
        ctrl_c()
        ran.append("after the signal")  # the block goes on to its next check
        check()
        ran.append("after check")
    assert ran == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_ctrl_c_after_the_last_check_is_raised_when_the_block_ends() -> None:
    with pytest.raises(KeyboardInterrupt), ctrl_c_between_calls():
        ctrl_c()
    with ctrl_c_between_calls() as check:  # and a block without one ends quietly
        check()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_nested_blocks_share_the_outer_blocks_count() -> None:
    with pytest.raises(KeyboardInterrupt), ctrl_c_between_calls() as outer:
        held = signal.getsignal(signal.SIGINT)
        with pytest.raises(KeyboardInterrupt), ctrl_c_between_calls() as inner:
            assert signal.getsignal(signal.SIGINT) is held  # not installed twice
            ctrl_c()
            inner()
        assert signal.getsignal(signal.SIGINT) is held  # the inner block left it in place
        outer()  # the Ctrl-C is still pending for the outer block: it stops the whole run
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_under_someone_elses_handler_it_changes_nothing() -> None:
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        with ctrl_c_between_calls() as check:
            ctrl_c()
            check()
        assert seen == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_the_command_lines_noting_handler_is_pythons_own_and_holds_like_it() -> None:
    from pyanitsa.interrupts import ctrl_c_seen, noting_ctrl_c

    with noting_ctrl_c():
        assert not ctrl_c_seen()
        noting = signal.getsignal(signal.SIGINT)
        with pytest.raises(KeyboardInterrupt), ctrl_c_between_calls() as check:
            ctrl_c()
            check()  # held, then raised between calls, as under Python's own handler
        assert signal.getsignal(signal.SIGINT) is noting
        with pytest.raises(KeyboardInterrupt):
            ctrl_c()  # outside a block: a KeyboardInterrupt now, and noted
        assert ctrl_c_seen()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with noting_ctrl_c():
        assert not ctrl_c_seen()  # each command starts afresh
