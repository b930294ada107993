#!/usr/bin/env python3
"""make_corpus.py: writes the seed corpus of timer_ops_fuzzer into corpus/ (next to this file).

Each file is a small program in the byte format of test/model/timer_ops_encoding.hpp: byte 0
the wheel configuration (bit 4: the wall clock, which step_clock moves either way; bits 5-7: the
context's tolerance, an index into tolerance_fractions), then 4 bytes per operation (kind,
timer | other << 3, amount as little-endian int16 in sixteenths of a tick; 32767 and -32768
stand for the clock's max and min, for step_clock the two far steps, and for set_tolerance
duration::max() and a negative tolerance). The programs below are written by hand, one
behaviour each, plus a few seeded random ones so the fuzzer starts from long mixed programs
too. Deterministic: running it again rewrites the same files (those written before the wall
clock or the tolerance existed keep their bytes). Usage: test/fuzz/make_corpus.py
"""
import os
import random
import struct

# The order of asio_wheel_model::op_kind.
(CREATE, ASYNC_WAIT, CANCEL, CANCEL_ONE, EXPIRES_AT, EXPIRES_AFTER, RESCHEDULE_AT,
 RESCHEDULE_AFTER, MOVE_CONSTRUCT, MOVE_ASSIGN, DESTROY, ADVANCE, ADVANCE_IN_STEPS,
 EMIT_CANCELLATION, STEP_CLOCK, SET_TOLERANCE, EXTEND_AT, EXTEND_AFTER) = range(18)
KIND_COUNT = 18
TOLERANT_KIND_COUNT = 16  # the kinds before extend_at: random_tolerance_01..06 use these
STEADY_KIND_COUNT = 14  # the kinds before step_clock: the random programs random_01..10 use these
WALL_KIND_COUNT = 15    # and before set_tolerance: random_wall_01..06 use these

# The index of each context tolerance in asio_wheel_model::tolerance_fractions (byte 0 bits 5-7).
TOLERANCES = {0: 0, 1 / 64: 1, 1 / 4: 2, 1: 3, 1 / 2: 4, 1 / 8: 5, 1 / 16: 6, 1 / 32: 7}

TICK = 16          # one tick, in the amount unit (1/16 tick)
MAX, MIN = 32767, -32768


def config(slots=16, budget=256, single_thread=False, wall=False, tolerance=0):
    budgets = {1: 0, 2: 1, 3: 2, 256: 3}
    return ((1 if slots == 8 else 0) | (budgets[budget] << 1) | (8 if single_thread else 0)
            | (16 if wall else 0) | (TOLERANCES[tolerance] << 5))


def op(kind, timer=0, other=0, amount=0):
    return struct.pack('<BBh', kind, (timer & 7) | ((other & 31) << 3), amount)


def wait_on(t, n=1):
    return [op(ASYNC_WAIT, t)] * n


def wait_with_slot(t, n=1):
    return [op(ASYNC_WAIT, t, 1)] * n


def emit(waits_ago, kind=0):
    """The signal of the wait started `waits_ago` waits ago (1 = the latest) emits
    terminal (0), partial (1) or total (2)."""
    return op(EMIT_CANCELLATION, 0, waits_ago - 1, kind)


R16 = 16 * TICK    # one revolution of a 16-slot wheel


def step(amount, mid_advance=0, then_wait_on=None):
    """The wall clock steps by `amount` sixteenths (MIN: to origin - 1 ns, MAX: to origin + 10
    revolutions). mid_advance=n (1..4): first the clock advances 4 * n ticks and one handler
    runs (a sliced advance may be left in progress), then the step, then (then_wait_on=t)
    timer t starts a wait if it has none pending."""
    other = 0 if mid_advance == 0 else 3 | ((mid_advance - 1) << 2)
    if then_wait_on is not None:
        other |= 16
    return op(STEP_CLOCK, then_wait_on or 0, other, amount)


def wall(**kw):
    return config(wall=True, **kw)


def extend_at(t, amount):
    """t.extend_at(now + amount sixteenths of a tick)."""
    return op(EXTEND_AT, t, 0, amount)


def extend_after(t, amount):
    """t.extend_after(amount sixteenths of a tick)."""
    return op(EXTEND_AFTER, t, 0, amount)


def tolerance(t, amount):
    """t.tolerance(amount sixteenths of a tick); MAX: duration::max(), MIN: -1 ns (throws)."""
    return op(SET_TOLERANCE, t, 0, amount)


PROGRAMS = {
    'expire_mid_tick': (config(), [op(CREATE, 0), op(EXPIRES_AFTER, 0, 0, 40), *wait_on(0),
                                   op(ADVANCE, 0, 0, 32), op(ADVANCE, 0, 0, 16)]),
    'expire_on_boundary': (config(), [op(CREATE, 0), op(EXPIRES_AFTER, 0, 0, 2 * TICK), *wait_on(0),
                                      op(ADVANCE, 0, 0, 2 * TICK - 1), op(ADVANCE, 0, 0, 1)]),
    'already_expired': (config(), [op(CREATE, 0, 1, -TICK), *wait_on(0, 3)]),
    'default_expiry_completes_at_once': (config(), [op(CREATE, 0, 0), *wait_on(0)]),
    'cancel_all': (config(), [op(CREATE, 0, 2, 5 * TICK), *wait_on(0, 3), op(CANCEL, 0)]),
    'cancel_one_fifo': (config(), [op(CREATE, 0, 2, 5 * TICK), *wait_on(0, 3), op(CANCEL_ONE, 0),
                                   op(CANCEL_ONE, 0), op(ADVANCE, 0, 0, 6 * TICK)]),
    'expires_at_aborts': (config(), [op(CREATE, 0, 2, 5 * TICK), *wait_on(0, 2),
                                     op(EXPIRES_AT, 0, 0, 3 * TICK), *wait_on(0),
                                     op(ADVANCE, 0, 0, 4 * TICK)]),
    'reschedule_later': (config(), [op(CREATE, 0, 2, 3 * TICK), *wait_on(0, 2),
                                    op(RESCHEDULE_AFTER, 0, 0, 10 * TICK),
                                    op(ADVANCE_IN_STEPS, 0, 3, 11 * TICK)]),
    'reschedule_earlier': (config(), [op(CREATE, 0, 2, 10 * TICK), *wait_on(0),
                                      op(RESCHEDULE_AT, 0, 0, 2 * TICK + 3),
                                      op(ADVANCE_IN_STEPS, 0, 1, 4 * TICK)]),
    'reschedule_into_past': (config(), [op(CREATE, 0, 2, 10 * TICK), *wait_on(0, 2),
                                        op(RESCHEDULE_AFTER, 0, 0, -3 * TICK)]),
    'reschedule_without_waits': (config(), [op(CREATE, 0), op(RESCHEDULE_AFTER, 0, 0, 2 * TICK),
                                            *wait_on(0), op(ADVANCE, 0, 0, 3 * TICK)]),
    'reschedule_many_revolutions': (config(slots=8), [op(CREATE, 0, 2, 2 * TICK), *wait_on(0),
                                                      op(RESCHEDULE_AFTER, 0, 0, 50 * TICK + 5),
                                                      op(ADVANCE, 0, 0, 25 * TICK),
                                                      op(RESCHEDULE_AFTER, 0, 0, 9 * TICK),
                                                      op(ADVANCE_IN_STEPS, 0, 3, 16 * TICK)]),
    'same_slot_different_rounds': (config(slots=8), [op(CREATE, 0, 2, 3 * TICK), *wait_on(0),
                                                     op(CREATE, 1, 2, 11 * TICK), *wait_on(1),
                                                     op(CREATE, 2, 2, 19 * TICK), *wait_on(2),
                                                     op(ADVANCE_IN_STEPS, 0, 3, 20 * TICK)]),
    'jump_over_revolutions': (config(), [op(CREATE, 0, 2, 5 * TICK), *wait_on(0),
                                         op(CREATE, 1, 2, 40 * TICK), *wait_on(1),
                                         op(ADVANCE, 0, 0, 3 * R16)]),
    'far_future_then_cancel_one': (config(), [op(CREATE, 0, 1, MAX), *wait_on(0, 2),
                                              op(ADVANCE, 0, 0, 5 * R16), op(CANCEL_ONE, 0)]),
    'far_past': (config(), [op(CREATE, 0, 1, MIN), *wait_on(0), op(EXPIRES_AFTER, 0, 0, MIN),
                            *wait_on(0)]),
    'reschedule_pending_to_min': (config(), [op(CREATE, 0, 2, 4 * TICK), *wait_on(0),
                                             op(RESCHEDULE_AT, 0, 0, MIN)]),
    'reschedule_pending_after_min': (config(), [op(CREATE, 0, 2, 4 * TICK), *wait_on(0, 2),
                                                op(RESCHEDULE_AFTER, 0, 0, MIN)]),
    'expires_after_max': (config(), [op(CREATE, 0, 2, MAX), *wait_on(0), op(ADVANCE, 0, 0, R16),
                                     op(RESCHEDULE_AFTER, 0, 0, TICK), op(ADVANCE, 0, 0, TICK)]),
    'destroy_aborts': (config(), [op(CREATE, 0, 2, 5 * TICK), *wait_on(0, 2), op(DESTROY, 0)]),
    'move_construct_carries_waits': (config(), [op(CREATE, 0, 2, 5 * TICK), *wait_on(0, 2),
                                                op(MOVE_CONSTRUCT, 1, 0), op(ADVANCE, 0, 0, 6 * TICK)]),
    'moved_from_is_usable': (config(), [op(CREATE, 0, 1, 4 * TICK), op(MOVE_CONSTRUCT, 1, 0),
                                        *wait_on(0), op(EXPIRES_AFTER, 0, 0, TICK), *wait_on(0),
                                        op(ADVANCE, 0, 0, 5 * TICK)]),
    'move_assign_aborts_target': (config(), [op(CREATE, 0, 2, 5 * TICK), *wait_on(0),
                                             op(CREATE, 1, 2, 2 * TICK), *wait_on(1, 2),
                                             op(MOVE_ASSIGN, 1, 0), op(ADVANCE, 0, 0, 6 * TICK)]),
    'move_then_reschedule': (config(), [op(CREATE, 0, 2, 9 * TICK), *wait_on(0),
                                        op(MOVE_CONSTRUCT, 3, 0), op(RESCHEDULE_AFTER, 3, 0, TICK),
                                        op(ADVANCE, 0, 0, 2 * TICK)]),
    'storm_budget_one': (config(budget=1), [op(CREATE, t, 2, 2 * TICK) for t in range(6)]
                         + [op(ASYNC_WAIT, t) for t in range(6) for _ in range(3)]
                         + [op(ADVANCE, 0, 0, 3 * TICK)]),
    'storm_budget_three_io1': (config(budget=3, single_thread=True),
                               [op(CREATE, t, 2, TICK + t) for t in range(6)]
                               + [op(ASYNC_WAIT, t) for t in range(6) for _ in range(2)]
                               + [op(ADVANCE, 0, 0, 2 * TICK)]),
    'cancel_after_expiry': (config(), [op(CREATE, 0, 2, TICK), *wait_on(0), op(ADVANCE, 0, 0, 2 * TICK),
                                       op(CANCEL, 0), *wait_on(0), op(CANCEL, 0)]),
    'wait_after_advance_with_empty_wheel': (config(), [op(ADVANCE, 0, 0, 40 * TICK),
                                                       op(CREATE, 0, 2, TICK), *wait_on(0),
                                                       op(ADVANCE, 0, 0, TICK)]),
    'small_slivers': (config(slots=8), [op(CREATE, 0, 2, 3), *wait_on(0)]
                      + [op(ADVANCE, 0, 0, 1)] * 20),
    'ops_on_missing_timers': (config(), [op(ASYNC_WAIT, 4), op(CANCEL, 4), op(DESTROY, 4),
                                         op(MOVE_ASSIGN, 4, 5), op(MOVE_CONSTRUCT, 4, 5)]),
    'recreate_slot': (config(), [op(CREATE, 0, 2, 2 * TICK), *wait_on(0), op(DESTROY, 0),
                                 op(CREATE, 0, 1, TICK), *wait_on(0), op(ADVANCE, 0, 0, 3 * TICK)]),
    'empty_program': (config(), []),
    'slot_cancels_middle_wait': (config(), [op(CREATE, 0, 2, 4 * TICK), *wait_with_slot(0, 3),
                                            emit(2, 0), op(CANCEL_ONE, 0),
                                            op(ADVANCE, 0, 0, 5 * TICK)]),
    'slot_partial_and_total': (config(), [op(CREATE, 0, 2, 4 * TICK), *wait_with_slot(0, 2),
                                          emit(1, 1), emit(2, 2), *wait_on(0),
                                          op(ADVANCE, 0, 0, 5 * TICK)]),
    'slot_after_completion': (config(), [op(CREATE, 0, 2, TICK), *wait_with_slot(0),
                                         op(ADVANCE, 0, 0, 2 * TICK), emit(1, 0)]),
    'slot_of_last_wait_empties_timer': (config(slots=8), [op(CREATE, 0, 2, 3 * TICK),
                                                          *wait_with_slot(0), emit(1, 0),
                                                          op(RESCHEDULE_AFTER, 0, 0, TICK),
                                                          *wait_on(0), op(ADVANCE, 0, 0, 2 * TICK)]),
    'slot_after_move': (config(), [op(CREATE, 0, 2, 6 * TICK), *wait_with_slot(0, 2),
                                   op(MOVE_CONSTRUCT, 1, 0), emit(1, 0),
                                   op(ADVANCE, 0, 0, 7 * TICK)]),
    # The wall clock (byte 0 bit 4) and step_clock.
    'steady_step_clock_is_skipped': (config(), [op(CREATE, 0, 2, 40), *wait_on(0), step(-3 * TICK),
                                                step(MIN, 1), op(ADVANCE, 0, 0, 3 * TICK)]),
    'wall_wait_armed_before_step_back': (wall(), [op(CREATE, 0, 2, 40), *wait_on(0),
                                                  step(-3 * TICK), op(ADVANCE, 0, 0, 5 * TICK),
                                                  op(ADVANCE, 0, 0, 15), op(ADVANCE, 0, 0, 1)]),
    'wall_new_wait_after_step_back': (wall(), [op(CREATE, 1, 2, 10 * TICK), *wait_on(1),
                                               op(ADVANCE, 0, 0, 10 * TICK), step(-5 * TICK),
                                               op(CREATE, 0), op(EXPIRES_AFTER, 0, 0, 2 * TICK),
                                               *wait_on(0), op(ADVANCE_IN_STEPS, 0, 0, 3 * TICK)]),
    'wall_expiry_passed_inside_processed_tick': (wall(), [op(CREATE, 1, 2, 10 * TICK), *wait_on(1),
                                                          op(ADVANCE, 0, 0, 10 * TICK),
                                                          step(-56), op(CREATE, 0),
                                                          op(EXPIRES_AFTER, 0, 0, -4),
                                                          *wait_on(0, 2)]),
    'wall_before_origin': (wall(slots=8), [step(-40), op(CREATE, 0, 2, 8), *wait_on(0),
                                           op(CREATE, 1, 2, 12), *wait_on(1),
                                           op(ADVANCE_IN_STEPS, 0, 0, 3 * TICK), step(MIN),
                                           op(CREATE, 2, 2, 1), *wait_on(2),
                                           op(ADVANCE_IN_STEPS, 0, 3, 2 * TICK)]),
    'wall_far_steps': (wall(), [op(CREATE, 0, 2, 3 * TICK), *wait_on(0), op(CREATE, 1, 1, MAX),
                                *wait_on(1), step(MAX), step(MIN), op(CREATE, 2, 2, 5 * TICK),
                                *wait_on(2), step(MAX), op(CANCEL, 1)]),
    'wall_step_back_mid_advance_io1': (wall(budget=1, single_thread=True),
                                       [op(CREATE, t, 2, 40) for t in range(4)]
                                       + [op(ASYNC_WAIT, t) for t in range(4)]
                                       + [step(MIN, 1), op(ADVANCE, 0, 0, 3 * TICK),
                                          op(ADVANCE, 0, 0, 1)]),
    'wall_step_back_mid_advance': (wall(budget=2),
                                   [op(CREATE, t, 2, TICK + 16 * t) for t in range(6)]
                                   + [op(ASYNC_WAIT, t) for t in range(6) for _ in range(2)]
                                   + [step(-2 * TICK - 5, 2), op(ADVANCE_IN_STEPS, 0, 3, 8 * TICK)]),
    'wall_wait_rewinds_an_advance_in_progress': (wall(slots=8, budget=1, single_thread=True),
                                                 [op(CREATE, 4, 1, 46), op(CREATE, 1, 1, 48),
                                                  *wait_on(4), *wait_on(1), op(CREATE, 0, 2, 95),
                                                  step(-168, 4, then_wait_on=0),
                                                  op(ADVANCE_IN_STEPS, 0, 3, 2 * TICK)]),
    'wall_reschedule_earlier_after_step_back': (wall(), [op(CREATE, 1, 2, 6 * TICK), *wait_on(1),
                                                         op(ADVANCE, 0, 0, 6 * TICK), step(-4 * TICK),
                                                         op(CREATE, 0, 2, 9 * TICK), *wait_on(0, 2),
                                                         op(CREATE, 2, 2, 9 * TICK), *wait_on(2),
                                                         op(RESCHEDULE_AFTER, 0, 0, TICK + 3),
                                                         step(-TICK - 8),
                                                         op(RESCHEDULE_AT, 2, 0, -2),
                                                         op(ADVANCE_IN_STEPS, 0, 1, 4 * TICK)]),
    'wall_ghost_reused_after_step_back': (wall(slots=8), [op(CREATE, 0, 2, 12 * TICK), *wait_on(0),
                                                          op(CREATE, 1, 2, 4 * TICK), *wait_on(1),
                                                          op(ADVANCE, 0, 0, 4 * TICK),
                                                          op(CANCEL, 0), step(-3 * TICK),
                                                          op(EXPIRES_AFTER, 0, 0, 2 * TICK),
                                                          *wait_on(0),
                                                          op(ADVANCE_IN_STEPS, 0, 2, 3 * TICK)]),
    # Tolerance: the context's fraction (byte 0 bits 5-7) and set_tolerance.
    'tolerance_context_quarter': (
        config(tolerance=1 / 4),
        [op(CREATE, 0, 2, 40 * TICK), *wait_on(0, 2), op(CREATE, 1, 2, 37 * TICK + 5), *wait_on(1),
         op(ADVANCE, 0, 0, 30 * TICK), op(ADVANCE_IN_STEPS, 0, 0, 22 * TICK)]),
    'tolerance_own_in_ticks': (
        config(slots=8),
        [op(CREATE, 0), tolerance(0, 4 * TICK + 7), op(EXPIRES_AFTER, 0, 0, 10 * TICK + 3),
         *wait_on(0), op(CREATE, 1, 1, 11 * TICK), *wait_on(1),
         op(ADVANCE_IN_STEPS, 0, 2, 16 * TICK)]),
    'tolerance_zero_in_tolerant_context': (
        config(tolerance=1),
        [op(CREATE, 0), tolerance(0, 0), op(EXPIRES_AFTER, 0, 0, 20 * TICK), *wait_on(0),
         op(CREATE, 1, 2, 20 * TICK), *wait_on(1), op(ADVANCE, 0, 0, 19 * TICK),
         op(ADVANCE_IN_STEPS, 0, 0, 22 * TICK)]),
    'tolerance_lowered_with_waits_pending': (
        config(),
        [op(CREATE, 0), tolerance(0, 16 * TICK), op(EXPIRES_AFTER, 0, 0, 1), *wait_on(0, 2),
         op(ADVANCE_IN_STEPS, 0, 3, 4 * TICK), tolerance(0, 8)]),
    'tolerance_reschedule_keeps_own': (
        config(tolerance=1 / 2),
        [op(CREATE, 0, 2, 30 * TICK), *wait_on(0), op(ADVANCE, 0, 0, 5 * TICK),
         tolerance(0, 3 * TICK), op(RESCHEDULE_AFTER, 0, 0, 12 * TICK),
         op(ADVANCE_IN_STEPS, 0, 1, 17 * TICK)]),
    'tolerance_moves_with_timer': (
        config(tolerance=1 / 4),
        [op(CREATE, 0), tolerance(0, 8 * TICK), op(EXPIRES_AFTER, 0, 0, 4 * TICK), *wait_on(0),
         op(MOVE_CONSTRUCT, 1, 0), op(EXPIRES_AFTER, 0, 0, 40 * TICK), *wait_on(0),
         op(CREATE, 2, 2, 2 * TICK), op(MOVE_ASSIGN, 2, 1), op(ADVANCE_IN_STEPS, 0, 2, 32 * TICK),
         op(ADVANCE_IN_STEPS, 0, 2, 32 * TICK)]),
    'tolerance_negative_and_max': (
        config(),
        [op(CREATE, 0, 2, 3 * TICK), tolerance(0, MIN), tolerance(0, MAX), *wait_on(0),
         op(ADVANCE, 0, 0, 5 * R16), tolerance(0, 2 * TICK)]),
    # Extensions (extend_at, extend_after): the later of the expiry and the extension.
    'extend_later_refiled_lazily': (
        config(slots=8),
        [op(CREATE, 0, 2, 3 * TICK), *wait_on(0, 2), extend_after(0, 20 * TICK + 5),
         op(ADVANCE_IN_STEPS, 0, 3, 24 * TICK)]),
    'extend_idle_refresh': (
        config(),
        [op(CREATE, 0, 2, 3 * TICK), *wait_on(0)]
        + [x for _ in range(12) for x in (extend_after(0, 3 * TICK), op(ADVANCE, 0, 0, 8))]
        + [op(ADVANCE_IN_STEPS, 0, 1, 5 * TICK)]),
    'extend_earlier_than_expiry': (
        config(),
        [op(CREATE, 0, 2, 6 * TICK), *wait_on(0), extend_at(0, 2 * TICK), extend_after(0, MIN),
         op(ADVANCE_IN_STEPS, 0, 2, 8 * TICK)]),
    'extend_then_lowered': (
        config(slots=8),
        [op(CREATE, 0, 2, 2 * TICK), *wait_on(0), extend_at(0, 30 * TICK),
         op(ADVANCE, 0, 0, 3 * TICK), extend_at(0, 4 * TICK), op(RESCHEDULE_AFTER, 0, 0, 6 * TICK),
         op(ADVANCE_IN_STEPS, 0, 3, 10 * TICK)]),
    'extend_cleared_by_expires': (
        config(),
        [op(CREATE, 0, 2, 2 * TICK), *wait_on(0), extend_at(0, 20 * TICK),
         op(EXPIRES_AFTER, 0, 0, 4 * TICK), *wait_on(0), op(ADVANCE_IN_STEPS, 0, 3, 6 * TICK)]),
    'extend_without_wait_then_move': (
        config(),
        [op(CREATE, 0, 2, 2 * TICK), extend_after(0, 9 * TICK), op(ADVANCE, 0, 0, 3 * TICK),
         *wait_on(0), op(MOVE_CONSTRUCT, 1, 0), extend_at(0, MAX),
         op(ADVANCE_IN_STEPS, 0, 2, 8 * TICK)]),
    'extend_tolerant': (
        config(tolerance=1 / 4),
        [op(CREATE, 0, 2, 40 * TICK), *wait_on(0), extend_after(0, 100 * TICK + 3),
         op(ADVANCE, 0, 0, 90 * TICK), op(ADVANCE_IN_STEPS, 0, 0, 40 * TICK)]),
    'extend_wall_step_back': (
        wall(),
        [op(CREATE, 0, 2, 2 * TICK), *wait_on(0), extend_after(0, 6 * TICK),
         op(ADVANCE, 0, 0, 4 * TICK), step(-3 * TICK), op(CREATE, 1, 2, -TICK),
         extend_after(1, 2 * TICK), *wait_on(1), op(ADVANCE_IN_STEPS, 0, 3, 8 * TICK)]),
    'tolerance_wall_step_back': (
        wall(tolerance=1),
        [op(CREATE, 0, 2, 9 * TICK), *wait_on(0), op(ADVANCE, 0, 0, 10 * TICK), step(-5 * TICK),
         op(ADVANCE_IN_STEPS, 0, 1, 16 * TICK)]),
    'tolerance_wall_step_back_mid_advance': (
        wall(budget=1, single_thread=True, tolerance=1 / 2),
        [op(CREATE, t, 2, 6 * TICK + 16 * t) for t in range(4)]
        + [op(ASYNC_WAIT, t) for t in range(4)]
        + [step(-3 * TICK, 3), op(ADVANCE_IN_STEPS, 0, 3, 12 * TICK)]),
}


def random_program(seed, wall_clock=False, tolerant=False, extending=False):
    rng = random.Random(seed)
    ops = []
    kinds = (KIND_COUNT if extending else TOLERANT_KIND_COUNT if tolerant
             else WALL_KIND_COUNT if wall_clock else STEADY_KIND_COUNT)
    for _ in range(rng.randrange(20, 80)):
        kind = rng.randrange(kinds)
        if kind == STEP_CLOCK and not wall_clock:
            kind = ADVANCE_IN_STEPS  # (a tolerant program on the steady clock)
        if kind in (ADVANCE, ADVANCE_IN_STEPS):
            amount = rng.choice([TICK, rng.randrange(1, 3 * TICK), rng.randrange(R16, 3 * R16)])
        elif kind == STEP_CLOCK:
            amount = rng.choice([MIN, MAX, -rng.randrange(1, TICK + 1), -rng.randrange(1, 4 * TICK),
                                 -rng.randrange(R16, 3 * R16), rng.randrange(1, 4 * TICK)])
        elif kind == EXTEND_AFTER and rng.random() < 0.5:
            amount = 3 * TICK + 5  # the idle refresh: the same length every time
        elif kind == SET_TOLERANCE:
            amount = rng.choice([0, MAX, MIN, rng.randrange(1, 4 * TICK),
                                 rng.randrange(R16, 3 * R16)])
        else:
            amount = rng.choice([0, MAX, MIN, rng.randrange(-R16, 3 * R16), 4 * TICK])
        ops.append(op(kind, rng.randrange(6), rng.randrange(32), amount))
    tol = rng.choice(list(TOLERANCES)) if tolerant else 0
    return config(slots=rng.choice([8, 16]), budget=rng.choice([1, 2, 3, 256]),
                  single_thread=rng.random() < 0.5, wall=wall_clock, tolerance=tol), ops


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
    os.makedirs(out, exist_ok=True)
    programs = dict(PROGRAMS)
    for seed in range(1, 11):
        programs['random_%02d' % seed] = random_program(seed)
    for seed in range(1, 7):
        programs['random_wall_%02d' % seed] = random_program(1000 + seed, wall_clock=True)
    for seed in range(1, 7):
        programs['random_tolerance_%02d' % seed] = random_program(
            2000 + seed, wall_clock=seed % 2 == 0, tolerant=True)
    for seed in range(1, 7):
        programs['random_extension_%02d' % seed] = random_program(
            3000 + seed, wall_clock=seed % 2 == 0, tolerant=True, extending=True)
    for name, (cfg, ops) in sorted(programs.items()):
        with open(os.path.join(out, name), 'wb') as f:
            f.write(bytes([cfg]) + b''.join(ops))
    print('wrote %d programs to %s' % (len(programs), out))


if __name__ == '__main__':
    main()
