"""Tick phases: one draw per seed, the same relative phase for both backends."""
from __future__ import annotations

from netrepro import phase


def test_boot_b_is_a_fixed_draw_within_one_cycle_per_seed() -> None:
    draws = [phase.boot_b_ns(seed) for seed in range(1, 201)]
    assert draws == [phase.boot_b_ns(seed) for seed in range(1, 201)]
    assert all(0 <= d < phase.TICK_CYCLE_NS for d in draws)
    assert len(set(draws)) == len(draws)
    # Spread over the cycle, not bunched: every tenth of it is hit.
    assert {d * 10 // phase.TICK_CYCLE_NS for d in draws} == set(range(10))


def test_absolute_phases_keep_host_b_boot_b_ahead_of_host_a() -> None:
    for boot_b in (0, 300_000_000, 700_000_000, phase.TICK_CYCLE_NS - 1):
        a = phase.host_a_phase(boot_b)
        assert 0 <= a < phase.TICK_CYCLE_NS
        # b's ticks fall boot_b before a's, modulo the cycle, as netsim's --boot-b puts them.
        assert (a - phase.HOST_B_PHASE_NS) % phase.TICK_CYCLE_NS == boot_b


def test_only_the_tahoe_stack_takes_a_phase() -> None:
    assert phase.tick_phase_args("tahoe", 1_300_000_000) == ["--tick-phase", "300000000ns"]
    assert phase.tick_phase_args("linux", 5) == []
    assert phase.tick_phase_args("linux-retro", 5) == []



def test_the_hosts_args_put_host_a_boot_b_after_host_b() -> None:
    seed = 7
    a, b = phase.host_a_args("tahoe", seed), phase.host_b_args("tahoe")
    assert b == ["--tick-phase", f"{phase.HOST_B_PHASE_NS}ns"]
    assert a == ["--tick-phase", f"{phase.host_a_phase(phase.boot_b_ns(seed))}ns", "--jitter", f"{seed}:5"]
    assert phase.host_b_args("tahoe", seed)[2:] == ["--jitter", f"{seed}:6"]
    assert phase.host_a_args("linux", seed) == phase.host_b_args("linux") == []
