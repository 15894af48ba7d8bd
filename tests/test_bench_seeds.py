"""benchmarks/seeds/bench_seeds.py: the seeds it moves in a clone's specs, and how it compares
the era-host verdicts across seeds."""
import argparse
from pathlib import Path

import pytest

from tests.conftest import load_script

bench = load_script("benchmarks/seeds/bench_seeds.py", "bench_seeds")

SPEC = "paper: x\ndefaults:\n  tool: pingx\n  seed: 1994\nexperiments:\n  a:\n    # seed: 7 in a comment\n"


def test_move_seeds_changes_the_defaults_seed_line_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "x.yaml").write_text(SPEC)
    assert bench.move_seeds(tmp_path, 3) == {"x.yaml": 1997}
    assert (tmp_path / "configs" / "x.yaml").read_text() == SPEC.replace("  seed: 1994", "  seed: 1997")


def test_move_seeds_refuses_a_spec_without_one_defaults_seed(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "x.yaml").write_text(SPEC.replace("  seed: 1994\n", ""))
    with pytest.raises(SystemExit, match="x.yaml: expected one"):
        bench.move_seeds(tmp_path, 1)


def test_offsets_are_distinct_and_not_negative() -> None:
    assert bench.offsets_arg("0,1,2") == [0, 1, 2]
    for bad in ("", "1,1", "-1"):
        with pytest.raises(argparse.ArgumentTypeError):
            bench.offsets_arg(bad)


def row(claim: str, verdict: str, fitted: str = "FALSE", measured: str = "1") -> dict[str, str]:
    return {"paper": "p", "claim_id": claim, "setup": "s", "fitted": fitted, "verdict": verdict, "measured": measured}


def test_summary_counts_held_out_rows_per_seed_and_names_the_claims_a_seed_moves() -> None:
    runs = [
        {"offset": 0, "exit_status": 0, "rows": [row("A", "reproduced"), row("B", "partly"),
                                                 row("F", "fitted", fitted="TRUE")]},
        {"offset": 1, "exit_status": 0, "rows": [row("A", "reproduced"), row("B", "reproduced", measured="2"),
                                                 row("F", "fitted", fitted="TRUE")]},
        {"offset": 2, "exit_status": 1, "rows": []},
    ]
    s = bench.summary(runs)
    assert s["offsets"] == [0, 1]
    assert [(p["held_out"], p["reproduced"]) for p in s["per_offset"]] == [(2, 1), (2, 2)]
    moved = [c for c in s["claims"] if not c["stable"]]
    assert [(c["claim_id"], c["verdicts"], c["measured"]) for c in moved] == [("B", ["partly", "reproduced"], ["1", "2"])]
    table = bench.markdown({"summary": s, "runs": runs, "git_commit": "0123456789abcdef",
                            "machine": {"cpus": 2}, "elapsed_s": 600})
    assert "| the specs' own | 2 | 1 | 50.0 % |" in table and "| each spec's + 1 | 2 | 2 | 100.0 % |" in table
    assert "FAILED (make exit 1)" in table
    assert "2 of 3 era-host claim rows keep their verdict" in table
    assert "| p B | s | partly (1) | reproduced (2) |" in table
