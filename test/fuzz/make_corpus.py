#!/usr/bin/env python3
"""make_corpus.py: writes the seed corpus of timer_ops_fuzzer into corpus/ (next to this file).

Each file is a small program in the byte format of test/model/timer_ops.hpp: byte 0 the wheel
configuration, then 4 bytes per operation (kind, timer | other << 3, amount as little-endian
int16 in sixteenths of a tick; 32767 and -32768 stand for the clock's max and min). The
programs below are written by hand, one behaviour each, plus a few seeded random ones so the
fuzzer starts from long mixed programs too. Deterministic: running it again rewrites the same
files. Usage: test/fuzz/make_corpus.py
"""
import os
import random
import struct

# The order of asio_wheel_model::op_kind.
(CREATE, ASYNC_WAIT, CANCEL, CANCEL_ONE, EXPIRES_AT, EXPIRES_AFTER, RESCHEDULE_AT,
 RESCHEDULE_AFTER, MOVE_CONSTRUCT, MOVE_ASSIGN, DESTROY, ADVANCE, ADVANCE_IN_STEPS,
 EMIT_CANCELLATION) = range(14)
KIND_COUNT = 14

TICK = 16          # one tick, in the amount unit (1/16 tick)
MAX, MIN = 32767, -32768


def config(slots=16, budget=256, single_thread=False):
    budgets = {1: 0, 2: 1, 3: 2, 256: 3}
    return (1 if slots == 8 else 0) | (budgets[budget] << 1) | (8 if single_thread else 0)


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
}


def random_program(seed):
    rng = random.Random(seed)
    ops = []
    for _ in range(rng.randrange(20, 80)):
        kind = rng.randrange(KIND_COUNT)
        if kind in (ADVANCE, ADVANCE_IN_STEPS):
            amount = rng.choice([TICK, rng.randrange(1, 3 * TICK), rng.randrange(R16, 3 * R16)])
        else:
            amount = rng.choice([0, MAX, MIN, rng.randrange(-R16, 3 * R16), 4 * TICK])
        ops.append(op(kind, rng.randrange(6), rng.randrange(32), amount))
    return config(slots=rng.choice([8, 16]), budget=rng.choice([1, 2, 3, 256]),
                  single_thread=rng.random() < 0.5), ops


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
    os.makedirs(out, exist_ok=True)
    programs = dict(PROGRAMS)
    for seed in range(1, 11):
        programs['random_%02d' % seed] = random_program(seed)
    for name, (cfg, ops) in sorted(programs.items()):
        with open(os.path.join(out, name), 'wb') as f:
            f.write(bytes([cfg]) + b''.join(ops))
    print('wrote %d programs to %s' % (len(programs), out))


if __name__ == '__main__':
    main()
