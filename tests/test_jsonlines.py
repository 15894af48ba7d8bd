import pytest

from netrepro import jsonlines
from netrepro.errors import RunError


def test_a_line_that_is_not_json_is_an_error_naming_it():
    with pytest.raises(RunError, match=r"pingx printed a line that is not JSON \(line 2"):
        jsonlines.parse('{"record": "meta"}\nrtt 3 ms\n', "pingx")


def test_blank_lines_are_skipped_and_records_round_trip(tmp_path):
    records = [{"record": "meta"}, {"record": "message", "rtt_ns": 5}]
    path = tmp_path / "records.jsonl"
    path.write_text(jsonlines.dumps(records) + "\n")
    assert jsonlines.read(path) == records
