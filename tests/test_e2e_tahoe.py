"""Emulated ttcp pairs and pingx modes on the Tahoe stack through Mininet and linkemu, as the
workflow runs them: the receiver says when it listens, both stacks boot at the pair's tick phases,
the transfer arrives whole without waiting out a lost SYN, where the model has two things happen
at one instant the emulation orders them as the sim does, and each pingx mode connects to an echod
of its own."""
import dataclasses
import json
import statistics

import pytest

from netrepro import stacks
from netrepro.backends import emulation_backend
from netrepro.spec import load_spec
from netrepro.sim import run_netsim
from netrepro.topology import LinkNetwork
from netrepro.tools import pingx
from netrepro.tools.ttcp import pair_seed
from netrepro.tools.ttcp import run_pair
from netrepro.topology import H1, H2
from netrepro.tools.ttcp import pair_command
from tests.conftest import needs_root_and_mininet
from tests.test_spec import COMER

pytestmark = needs_root_and_mininet()


def test_a_tahoe_pair_moves_its_bytes_from_first_write_on(tmp_path):
    spec = load_spec(COMER, {"profile": "smoke", "backend": "linkemu"})
    experiment = spec.experiments["table1"]
    send, receive = 49152, 49152
    with LinkNetwork(experiment.link, emulation_backend("linkemu", "tahoe", seed=1), tmp_path / "logs") as net:
        tool_args = stacks.setup_hosts([(net.h1, *H1), (net.h2, *H2)], "tahoe", experiment.host_model,
                                       experiment.link.mtu, frame_times=net.frame_times)
        records = run_pair(net, experiment, tool_args, send, receive, None,
                           pair_seed(experiment, 1, send, receive))
    transfers = [r for r in records if r.get("record") == "transfer"]
    assert {r["role"] for r in transfers} == {"transmitter", "receiver"}
    (sent,) = [r for r in transfers if r["role"] == "transmitter"]
    assert sent["stack"] == "tahoe"
    assert sent["bytes"] == sent["receiver_bytes"] == experiment.settings.transfer_bytes
    # The sender's clock starts at its first write; had the connect or the first segment waited
    # for a retransmission, the sender would report a fraction of the receiver's rate.
    assert sent["sender_bps"] > 0.5 * sent["receiver_bps"]


def test_the_emulation_takes_a_frame_arriving_as_the_cpu_frees_first_as_the_sim_does(tmp_path):
    """With 48K/28K both hosts' per-segment costs are equal, so each back-to-back segment reaches
    the receiver the instant its CPU finishes the one before. The sim takes the frame before the
    receiving process's next read; the emulation must too (its drivers wait for frames stated
    to arrive by then), or it reads in between, sends other ACKs and runs several percent slow."""
    spec = load_spec(COMER, {"profile": "quick", "backend": "linkemu"})
    experiment = spec.experiments["table1"]
    send, receive = 49152, 28672
    seed = pair_seed(experiment, 1, send, receive)
    simulated = run_netsim(pair_command(experiment, send, receive, seed))
    sim_rates = [r["sender_bps"] for r in simulated.transfers if r["role"] == "transmitter"]
    with LinkNetwork(experiment.link, emulation_backend("linkemu", "tahoe", seed=1), tmp_path / "logs") as net:
        tool_args = stacks.setup_hosts([(net.h1, *H1), (net.h2, *H2)], "tahoe", experiment.host_model,
                                       experiment.link.mtu, frame_times=net.frame_times)
        records = run_pair(net, experiment, tool_args, send, receive, None, seed)
    emulated_rates = [r["sender_bps"] for r in records
                      if r.get("record") == "transfer" and r["role"] == "transmitter"]
    assert len(emulated_rates) == len(sim_rates) == experiment.settings.transfers
    # The wrong order slows every transfer by several percent; a busy test machine delays one
    # transfer now and then. The median ratio tells the two apart, each transfer its bound.
    ratios = [emulated / simulated for emulated, simulated in zip(emulated_rates, sim_rates)]
    assert statistics.median(ratios) == pytest.approx(1, rel=0.02)
    assert ratios == pytest.approx([1] * len(ratios), rel=0.05)


TWO_TCP_MODES = """\
paper: two-tcp-modes
title: Two TCP modes in a row
defaults:
  link: ethernet-10
  stack: tahoe
  host: sparcstation-ipc
  backend: linkemu
  seed: 1
profiles:
  quick:
    trials: 1
    echoes: 1
    interval: 100ms
experiments:
  echoes:
    description: Two TCP modes, one after the other, off a Tahoe echod.
    tool: pingx
    modes: [tcp, tcp-nodelay]
    messages: [1K]
"""


def test_a_second_tcp_mode_connects_and_echoes_as_the_sim_does(tmp_path):
    """Each mode's pingx is a process of its own whose stack starts its ports where the last
    one's did; an echod kept from the mode before still held that connection (the peer's stack
    gone before the final ACK), so the second mode's SYN went unanswered until its timeout."""
    path = tmp_path / "two-tcp-modes.yaml"
    path.write_text(TWO_TCP_MODES)
    spec = load_spec(path)
    experiment = spec.experiments["echoes"]
    pingx.run(spec, experiment, 1, tmp_path / "emulated", None, None)
    emulated = {r["mode"]: r["rtt_ms"] for r in map(json.loads, (tmp_path / "emulated" / "records.jsonl").open())}
    pingx.run(spec, dataclasses.replace(experiment, backend="sim"), 1, tmp_path / "sim", None, None)
    simulated = {r["mode"]: r["rtt_ms"] for r in map(json.loads, (tmp_path / "sim" / "records.jsonl").open())}
    assert set(emulated) == set(simulated) == {"tcp", "tcp-nodelay"}
    # The emulation keeps the model's time (frame times); a busy machine may stretch an echo a little.
    assert emulated == pytest.approx(simulated, rel=0.05)


UDP_DROPS = """
paper: liu95cool
title: t
source: s
description: d
defaults:
  network: atm-lan
  link: atm-oc3-155
  stack: tahoe
  host: sparcstation-ipx-solaris23
  backend: linkemu
  socket_buffers: {send: 8K, receive: 8K}
  timeout: 2s
  seed: 1
profiles:
  quick:
    trials: 1
    echoes: 2
    interval: 1s
experiments:
  blast:
    description: Uncooled UDP messages of 300K, which the Solaris hosts' 8K socket buffers overflow.
    tool: pingx
    modes: [udp]
    datagram: 8K
    messages: [300K]
"""


def test_emulated_udp_echoes_count_their_drops_at_the_places_the_sim_does(tmp_path):
    """pingx's and echod's Tahoe stacks print their drop counters and linkemu its own, so an
    emulated run says where datagrams were lost, as netsim's record does in virtual time."""
    path = tmp_path / "udp-drops.yaml"
    path.write_text(UDP_DROPS)
    spec = load_spec(path)
    experiment = spec.experiments["blast"]
    rows = {}
    for backend in ("linkemu", "sim"):
        pingx.run(spec, dataclasses.replace(experiment, backend=backend), 1, tmp_path / backend, None, None)
        rows[backend] = [json.loads(line) for line in (tmp_path / backend / "records.jsonl").open()]
    places = list(pingx.RUN_DROPS)
    emulated, simulated = ({p: rows[b][0][p] for p in places} for b in ("linkemu", "sim"))
    lost = sum(r["datagrams"] - r["datagrams_returned"] for r in rows["linkemu"])
    # 8K datagrams fit the ATM MTU whole, so each lost datagram is one drop at one place.
    assert lost > 0 and sum(emulated.values()) == lost
    assert emulated["run_drops_link"] == 0 and emulated["run_drops_echo_socket"] > 0
    assert emulated == pytest.approx(simulated, rel=0.1, abs=2)
