"""benchmarks/reproduce/bench_reproduce.py: make reproduce's output cut into stages at the
Makefile's marks, and the table it writes."""
from tests.conftest import load_script

bench = load_script("benchmarks/reproduce/bench_reproduce.py", "bench_reproduce")


def test_stages_run_from_mark_to_mark_the_first_from_the_start() -> None:
    lines = [(1.0, "bash envs/setup.sh\n"), (60.0, "== configs/liu95cool.yaml\n"), (61.0, "rule measure_run:\n"),
             (660.0, "== configs/comer94.yaml (virtual time, paper profile)\n"), (900.0, "== the reports, 2 at a time\n"),
             (1000.0, "Reports: /x/reports/html/index.html\n")]
    assert bench.stages(lines, 1010.0) == [
        {"stage": "set-up and build", "elapsed_s": 60.0},
        {"stage": "configs/liu95cool.yaml", "elapsed_s": 600.0},
        {"stage": "configs/comer94.yaml (virtual time, paper profile)", "elapsed_s": 240.0},
        {"stage": "the reports, 2 at a time", "elapsed_s": 110.0},
    ]


def test_the_table_says_whether_the_goal_was_met_and_a_failure_as_one() -> None:
    result = {"stages": [{"stage": "set-up and build", "elapsed_s": 90.0}], "elapsed_s": 1950.0, "exit_status": 0,
              "git_commit": "0123456789abcdef", "machine": {"cpus": 2}, "met": False}
    table = bench.markdown(result)
    assert "| set-up and build | 1.5 |" in table and "| all (finished) | 32.5 |" in table
    assert "0123456789ab" in table and "met: no" in table
    assert "FAILED (exit 2)" in bench.markdown({**result, "exit_status": 2})


def test_the_makefiles_marks_are_the_ones_the_bench_cuts_at() -> None:
    makefile = (bench.REPO / "Makefile").read_text()
    reproduce = makefile.split("\nreproduce:", 1)[1].split("\n\n", 1)[0]
    echoes = [line for line in reproduce.splitlines() if "echo" in line]
    assert sum(f'echo "{bench.STAGE_MARK}' in line or f"echo '{bench.STAGE_MARK}" in line for line in echoes) == 3
