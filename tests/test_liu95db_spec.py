"""liu95db on the era's hosts: every figure of the inventory has an experiment, cooling is the
paper's 2000 iterations timed by the host model, and Fig 1's print per datagram reaches pingx."""
from pathlib import Path

import pytest

from netrepro.spec import load_spec
from netrepro.yamlsrc import SpecError, load_document
from netrepro.tools import pingx

REPO = Path(__file__).resolve().parent.parent
SPEC = REPO / "configs" / "liu95db.yaml"
IPC = REPO / "configs" / "hosts" / "sparcstation-ipc.yaml"


def paper():
    return load_spec(SPEC, {"profile": "paper", "backend": "sim"})


def test_every_figure_and_table_has_an_experiment():
    mirrored = {m for e in paper().experiments.values() for m in e.mirrors}
    wanted = {"Fig 1", "Fig 2a", "Fig 2b", "Fig 3a", "Fig 3b", "Fig 4a", "Fig 4b", "Fig 5a", "Fig 5b",
              "Fig 6a", "Fig 6b", "Fig 7a", "Fig 7b", "Fig 8a", "Fig 8b", "Fig 9a", "Fig 9b", "Fig 11",
              "Fig 12", "Fig 14a", "Fig 14b", "Fig 15", "Fig 16", "Fig 17", "Fig 18", "Table 1",
              "Table 3", "Sec 3.2.2"}
    assert wanted <= mirrored


def test_lan_and_wan_run_five_modes_on_the_tahoe_hosts_with_the_papers_loop():
    experiments = paper().experiments
    for name in ("lan-512b", "lan-2k", "lan-nasa", "wan-1k"):
        assert set(experiments[name].settings.modes) == {"tcp-per-message", "tcp-nodelay", "tcp", "udp-cooled", "udp"}
    cooled = [e for e in experiments.values() if e.tool == "pingx" and "udp-cooled" in e.settings.modes]
    assert cooled and all(e.settings.cooling_iterations == 2000 and e.backend == "sim" for e in cooled)
    # A variant (variant_of) may move the host model on purpose.
    assert all(e.stack == "tahoe" and e.host == "sparcstation-ipc"
               for exp_id, e in experiments.items() if exp_id not in paper().variants)
    assert {experiments[e].link_name for e in ("lan-large", "wan-large", "atm-nasa")} == \
        {"ethernet-10-shared", "wan-1995", "atm-taxi-100"}
    assert experiments["atm-100k-32k"].settings.send_buffer == experiments["atm-100k-32k"].settings.receive_buffer == 32768
    assert experiments["lan-print"].settings.print_each and not experiments["lan-large"].settings.print_each


def test_the_print_flag_reaches_pingx_only_where_asked():
    experiments = paper().experiments
    assert "--print-each" in pingx.pingx_argv(experiments["lan-print"], "udp", 1)
    assert "--print-each" not in pingx.pingx_argv(experiments["lan-large"], "udp", 1)


@pytest.mark.parametrize("key, value", [("print_each", "true"), ("pacing", "alarm")])
def test_pingx_options_are_refused_where_pingx_does_not_run(tmp_path, key, value):
    text = SPEC.read_text()
    anchor = "    tool: ttcp\n"
    assert anchor in text, "the test's anchor is gone from the spec"
    path = tmp_path / "spec.yaml"
    path.write_text(text.replace(anchor, anchor + f"    {key}: {value}\n", 1))
    with pytest.raises(SpecError) as err:
        load_spec(path, {"profile": "paper"})
    assert f"{key} is pingx's option" in str(err.value)
    assert f"experiments.table3.{key}" in str(err.value)


def test_the_busy_loop_takes_the_host_models_time():
    model = load_document(IPC).data
    assert pingx.host_spin_ps(IPC) == model["spin_ps"]
    assert pingx.host_spin_ps(None) == pingx.NETSIM_SPIN_PS
    argv = pingx.echod_argv(paper().experiments["lan-large"], cooled=True)
    gap = argv[argv.index("--echo-gap") + 1]
    assert gap == f"{2000 * model['spin_ps'] // 1000}ns"


def test_a_host_model_without_the_loop_falls_back_to_netsims_default(tmp_path):
    bare = tmp_path / "bare.yaml"
    bare.write_text("name: bare\nper_packet_ns: 1\nper_byte_ps: 1\nper_call_ns: 1\n")
    assert pingx.host_spin_ps(bare) == pingx.NETSIM_SPIN_PS
