"""Every emulated run draws its link's loss and jitter from its own seed."""
from netrepro.backends import emulation_backend
from netrepro.seeds import derive_seed, link_seed


def test_trials_and_parts_of_one_experiment_draw_different_link_seeds():
    seeds = {link_seed(1995, "wan-1k", trial) for trial in range(1, 21)}
    seeds |= {link_seed(1995, "table1", 1, send) for send in (16384, 20480)}
    assert len(seeds) == 22 and all(1 <= s < 1 << 31 for s in seeds)
    assert link_seed(1995, "wan-1k", 3) == link_seed(1995, "wan-1k", 3)


def test_a_link_seed_is_not_the_seed_of_the_tools_in_the_same_run():
    assert link_seed(7, "e", 1) != derive_seed(7, "e", 1)


def test_the_linkemu_backend_is_given_the_runs_seed():
    assert emulation_backend("linkemu", "tahoe", seed=123456).seed == 123456
