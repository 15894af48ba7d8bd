"""pingx, the extended ping (liu95db, liu95cool): echoes of each message size in each mode
(TCP, UDP, UDP cooled) off echod, one row per echo. A trial runs every mode, in a shuffled
order, each mode against its own echod: in virtual time one netsim run per mode; emulated one
Mininet network, pingx on h1 and, per mode, echod on h2 (a second one for udp-cooled)."""
from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from netrepro import deadlines, hostmodel, kernelstats, limits, phase, sim, stacks
from netrepro.announce import wait_announced
from netrepro.backends import emulation_backend
from netrepro.backends.linkemu import LinkemuBackend, drop_delta
from netrepro.cleanup import finish, kill_group
from netrepro.deadlines import MARGIN, SLACK_S
from netrepro.errors import RunError
from netrepro.experiment import Experiment, Spec
from netrepro.jsonlines import parse
from netrepro.linkcheck import check_link
from netrepro.paths import tool_binary
from netrepro.provenance import now_iso, read_sysctls, tool_version
from netrepro.seeds import link_seed
from netrepro.specread import Source, load_named
from netrepro.topology import H1, H2, H2_IP, IF_A, IF_B, LinkNetwork
from netrepro.trial import (base_provenance, emulation_binaries, link_summary, run_name, run_order, run_seed,
                            tool_digests, write_run)
from netrepro.units import parse_size, parse_time
from netrepro.yamlsrc import Document

NAME = "pingx"
# Spec keys only pingx reads: an experiment of another tool that sets one is refused.
OWN_KEYS = ("print_each", "pacing")
SWEEP_AXES: tuple[str, ...] = ()
# A run's order: each echo by its mode, message size and number.
ORDER_FIELDS = ("mode", "message_bytes", "echo")
ECHO_PORT = 7007
# udp-cooled messages go to a second echod that paces its echo by the same gap, so the round
# trip is cooled both ways, as when both hosts ran the paper's cooled sender.
COOLED_ECHO_PORT = 7008
# CPU time of one busy-loop iteration in netsim for a host model without spin_ps: its
# --spin-ps default (tools/netsim/args.c), an ASSUMPTION of one cycle of a 25 MHz CPU.
NETSIM_SPIN_PS = 40000
# How long echod may take to print its summary once told to stop.
ECHOD_STOP_S = 30.0
# The message set of an experiment that lists its messages in the spec itself.
INLINE_MESSAGES = "inline"
# pingx raises a large message's echo timeout to a round trip at 1 Mbit/s (tools/pingx/args.c).
PINGX_TIMEOUT_PER_OCTET_S = 16e-6
# An upper bound of one busy-loop iteration of udp-cooled's --cool-iterations on any host.
COOL_ITERATION_S = 1e-6


@dataclass(frozen=True)
class Message:
    name: str
    size: int


@dataclass(frozen=True)
class CoolingTune:
    """The loop's length found by trial, as liu95cool found its interval (Sec 2.3): udp-cooled
    echoes `message` at each level, and the run takes the fewest iterations whose loss is
    within margin_points of the least loss any level gave."""

    iterations: tuple[int, ...]
    message: int
    echoes: int
    margin_points: float


@dataclass(frozen=True)
class Settings:
    """What pingx and echod do: the modes, the messages, and the profile's echoes."""

    modes: tuple[str, ...]
    message_set: str
    messages: tuple[Message, ...]
    datagram: int
    cooling_gap_s: float | None
    cooling_iterations: int | None
    send_buffer: int | None
    receive_buffer: int | None
    timeout_s: float
    echoes: int
    interval_s: float
    # pingx --print-each: a printed line per returned datagram or message (liu95db Fig 1).
    print_each: bool = False
    # pingx --pacing: "grid" or "alarm" (liu95db's alarm(1) set again in its handler).
    pacing: str = "grid"
    # cooling.tune: the iterations found by trial before each run (virtual time only).
    cooling_tune: CoolingTune | None = None


def _messages(document: Document, key_path: tuple, items: list[Any]) -> tuple[Message, ...]:
    """Messages listed at key_path of document: a message set's file, or inline in a spec."""
    messages = []
    for index, item in enumerate(items):
        text = item if isinstance(item, str) else item["size"]
        size = limits.value(document, (*key_path, index), parse_size, text)
        limits.MESSAGE.check(document, (*key_path, index), size)
        messages.append(Message(name=item["name"] if isinstance(item, dict) else "", size=size))
    limits.MESSAGE_SIZES.check(document, key_path, len({message.size for message in messages}))
    return tuple(messages)


def parse_settings(source: Source) -> Settings:
    source.require("modes", "messages")
    source.require_profile("echoes", "interval")
    document, settings = source.document, source.settings
    if isinstance(settings["messages"], list):
        messages = _messages(document, source.key("messages"), settings["messages"])
    else:
        msg_doc = load_named("msgsets", settings["messages"], "msgset.schema.json", document, source.key("messages"))
        messages = _messages(msg_doc, ("messages",), msg_doc.data["messages"])
    datagram = source.parse(source.key("datagram"), parse_size, settings.get("datagram", "8K"))
    limits.DATAGRAM.check(document, source.key("datagram"), datagram)
    modes = tuple(settings["modes"])
    if any(mode.startswith("udp") for mode in modes) and messages:
        largest = max(message.size for message in messages)
        count = -(-largest // datagram)
        if not limits.DATAGRAMS.contains(count):
            raise document.error(source.key("datagram"), f"a {largest}B message in {datagram}B datagrams is "
                                 f"{count} datagrams: {limits.DATAGRAMS.describe()}; give a larger datagram")
    cooling = settings.get("cooling", {})
    if "udp-cooled" in modes and not cooling:
        raise document.error(source.key("modes"), "mode udp-cooled needs `cooling` (a gap or iterations)")
    if "udp-cooled" in modes and source.stack == "tahoe" and source.backend != "sim":
        raise document.error(source.key("modes"), "emulated, mode udp-cooled needs a second echod on "
                             "host h2, and a second Tahoe stack on the same interface would answer the "
                             "first one's packets; run it with backend sim, or on a Linux stack")
    tune = parse_tune(source, datagram, cooling["tune"]) if "tune" in cooling else None
    interval_ns = source.parse(source.profile_key("interval"), limits.ns, source.profile.get("interval", "1s"))
    limits.INTERVAL_NS.check(document, source.profile_key("interval"), interval_ns)
    buffers = settings.get("socket_buffers", {})
    return Settings(
        modes=modes,
        message_set=INLINE_MESSAGES if isinstance(settings["messages"], list) else settings["messages"],
        messages=messages,
        datagram=datagram,
        cooling_gap_s=source.parse(source.key("cooling"), parse_time, cooling["gap"]) if "gap" in cooling else None,
        cooling_iterations=cooling.get("iterations"),
        send_buffer=source.parse(tuple(source.where), parse_size, buffers["send"]) if "send" in buffers else None,
        receive_buffer=source.parse(tuple(source.where), parse_size, buffers["receive"])
        if "receive" in buffers else None,
        timeout_s=source.parse(source.key("timeout"), parse_time, settings.get("timeout", "5s")),
        echoes=int(source.profile.get("echoes", 1)),
        interval_s=interval_ns / limits.NS,
        print_each=bool(settings.get("print_each", False)),
        pacing=str(settings.get("pacing", "grid")),
        cooling_tune=tune,
    )


def parse_tune(source: Source, datagram: int, tune: Mapping[str, Any]) -> CoolingTune:
    """cooling.tune, checked against pingx's ranges; it runs pingx at every level in virtual
    time, where the levels are the host model's busy loop."""
    document = source.document
    where = source.key("cooling", "tune")
    if source.backend != "sim":
        raise document.error(where, "the loop is tuned by echoes in virtual time, where an iteration is the "
                             "host model's; emulated, give cooling.gap or cooling.iterations")
    for index, iterations in enumerate(tune["iterations"]):
        limits.COOL_ITERATIONS.check(document, (*where, "iterations", index), iterations)
    message = source.parse((*where, "message"), parse_size, tune["message"])
    limits.MESSAGE.check(document, (*where, "message"), message)
    if not limits.DATAGRAMS.contains(-(-message // datagram)):
        raise document.error((*where, "message"), f"{message}B in {datagram}B datagrams: "
                             f"{limits.DATAGRAMS.describe()}; give a smaller message")
    limits.ECHOES.check(document, (*where, "echoes"), tune["echoes"])
    return CoolingTune(iterations=tuple(sorted(tune["iterations"])), message=message, echoes=int(tune["echoes"]),
                       margin_points=float(tune["margin_points"]))


def knee(levels: list[dict[str, Any]], margin_points: float) -> int:
    """The fewest iterations whose loss_pct is within margin_points of the least of levels:
    past it a longer loop buys little, the rule liu95cool states for its tuning."""
    least = min(level["loss_pct"] for level in levels)
    return min(level["iterations"] for level in levels if level["loss_pct"] <= least + margin_points)


def sim_only(settings: Mapping[str, Any]) -> list[str]:
    """pingx has no settings that exist only on netsim's stacks."""
    return []


def binaries(backend: str) -> tuple[str, ...]:
    """The programs a trial runs on backend."""
    return ("netsim",) if backend == "sim" else ("pingx", "echod")


def parts(settings: Settings) -> tuple[int, ...] | None:
    """A pingx trial is one job."""
    return None


def traced(settings: Settings) -> bool:
    return False


def fixed_columns(settings: Settings) -> dict[str, Any]:
    """The columns that are the same on every row of an experiment."""
    return {"send_buffer": settings.send_buffer, "recv_buffer": settings.receive_buffer,
            "message_set": settings.message_set}


def message_s(experiment: Experiment, size: int) -> float:
    """The longest one echo of size octets may take: its interval, its sending (cooled gaps
    between datagrams) and the longest wait for its echo."""
    settings: Settings = experiment.settings
    datagrams = math.ceil(size / settings.datagram) + 1
    if settings.cooling_gap_s is not None:
        gap = settings.cooling_gap_s
    else:
        gap = cooling_iterations_bound(settings) * COOL_ITERATION_S
    wait = max(settings.timeout_s, size * PINGX_TIMEOUT_PER_OCTET_S)
    return settings.interval_s + 2 * datagrams * gap + wait


def cooling_iterations_bound(settings: Settings) -> int:
    """The most iterations udp-cooled may loop between datagrams: the given count, or the
    longest level of a tune."""
    if settings.cooling_tune is not None:
        return max(settings.cooling_tune.iterations)
    return settings.cooling_iterations or 0


def cooled_loop(settings: Settings, iterations: int | None) -> int | None:
    """udp-cooled's loop between datagrams: a tuned length, else the spec's count."""
    return iterations if iterations is not None else settings.cooling_iterations


def limit_s(experiment: Experiment) -> float:
    """The wall-clock limit of one pingx run (one mode, every size, every echo)."""
    settings: Settings = experiment.settings
    total = sum(message_s(experiment, m.size) for m in settings.messages) * settings.echoes
    return MARGIN * total + SLACK_S


def frames(experiment: Experiment, size: int) -> int:
    """The frames one echo of size octets puts on the link, there and back: its TCP segments
    of the link's MTU, or its datagrams of the experiment's datagram size in fragments of it."""
    settings: Settings = experiment.settings
    payload = max(1, experiment.link.mtu - 40)
    return 2 * (math.ceil(size / payload) + math.ceil(size / settings.datagram) + 1)


def sim_limit_s(experiment: Experiment) -> float:
    """The wall-clock limit of one pingx run in netsim (one mode, every size, every echo), from
    the frames its echoes move and the most virtual time they may span (every echo waiting its
    whole timeout)."""
    settings: Settings = experiment.settings
    moved = sum(frames(experiment, m.size) for m in settings.messages) * settings.echoes
    virtual_s = sum(message_s(experiment, m.size) for m in settings.messages) * settings.echoes
    return deadlines.sim_limit_s(moved, virtual_s)


def mode_order(experiment: Experiment, trial: int) -> list[str]:
    """Modes in a per-trial shuffled order, so no mode always runs first on a fresh link."""
    modes = list(experiment.settings.modes)
    random.Random(f"{experiment.seed}:{experiment.draws_id}:{trial}").shuffle(modes)
    return modes


def buffer_args(experiment: Experiment) -> list[str]:
    argv = []
    settings: Settings = experiment.settings
    buffers = limits.socket_buffer(experiment.stack)
    if settings.send_buffer:
        argv += ["--sndbuf", buffers.arg(settings.send_buffer)]
    if settings.receive_buffer:
        argv += ["--rcvbuf", buffers.arg(settings.receive_buffer)]
    return argv


def pingx_argv(experiment: Experiment, mode: str, trial: int, stack_args: tuple[str, ...] = (),
               iterations: int | None = None) -> list[str]:
    """pingx's arguments; `iterations` is udp-cooled's loop when the spec tunes it."""
    settings: Settings = experiment.settings
    sizes = ",".join(f"{size}B" for size in sorted({m.size for m in settings.messages}))
    port = COOLED_ECHO_PORT if mode == "udp-cooled" else ECHO_PORT
    argv = [
        str(tool_binary("pingx")), "--host", H2_IP, "--port", str(port), "--mode", mode,
        "--sizes", sizes, "--count", limits.ECHOES.arg(settings.echoes),
        "--interval", limits.INTERVAL_NS.arg(settings.interval_s * 1e9),
        "--datagram", f"{settings.datagram}B",
        "--timeout", limits.TIMEOUT_NS.arg(settings.timeout_s * 1e9),
        "--order", "shuffled", "--seed", str(experiment.seed * 1000 + trial),
    ]
    if mode == "udp-cooled":
        if settings.cooling_gap_s is not None:
            argv += ["--cool-gap", limits.COOL_GAP_NS.arg(settings.cooling_gap_s * 1e9)]
        else:
            argv += ["--cool-iterations", limits.COOL_ITERATIONS.arg(cooled_loop(settings, iterations))]
    if settings.print_each:
        argv.append("--print-each")
    if settings.pacing != "grid":
        argv += ["--pacing", settings.pacing]
    argv += buffer_args(experiment)
    return argv + list(stack_args)


# Where a mode's netsim run lost UDP datagrams, by place (the Tahoe stacks' and the link's own
# counters): host a runs pingx, host b echod. The same totals stand on each of the run's rows.
RUN_DROPS = {
    "run_drops_send_queue": ("a_ips_odropped", "b_ips_odropped"),
    "run_drops_link": ("forward_drop_queue", "forward_drop_loss", "forward_drop_cell_loss",
                       "forward_drop_bit_error", "forward_drop_oversize", "reverse_drop_queue",
                       "reverse_drop_loss", "reverse_drop_cell_loss", "reverse_drop_bit_error",
                       "reverse_drop_oversize"),
    "run_drops_echo_ipq": ("b_ips_qdrop", "b_ips_fragdropped", "b_ips_fragtimeout"),
    "run_drops_echo_socket": ("b_udps_fullsock",),
    "run_drops_client_ipq": ("a_ips_qdrop", "a_ips_fragdropped", "a_ips_fragtimeout"),
    "run_drops_client_socket": ("a_udps_fullsock",),
}


# The same places for hosts on the Linux stack, from the kernel's counters (netrepro.kernelstats;
# h1 runs pingx, h2 echod) and the link's. A host's input queue is its backlog and reassembly.
LINUX_RUN_DROPS = {
    "run_drops_send_queue": ("h1.Ip.OutDiscards", "h2.Ip.OutDiscards"),
    "run_drops_link": RUN_DROPS["run_drops_link"],
    "run_drops_echo_ipq": ("h2.backlog", "h2.Ip.ReasmFails", f"h2.{kernelstats.FRAG_PENDING}"),
    "run_drops_echo_socket": ("h2.Udp.RcvbufErrors",),
    "run_drops_client_ipq": ("h1.backlog", "h1.Ip.ReasmFails", f"h1.{kernelstats.FRAG_PENDING}"),
    "run_drops_client_socket": ("h1.Udp.RcvbufErrors",),
}


def run_drops(counters: Mapping[str, Any], source: str = "netsim's sim record",
              places: Mapping[str, tuple[str, ...]] = RUN_DROPS) -> dict[str, int]:
    """The run's drops by place. A counter the source lacks is an error: the tool renamed it or
    is older than this code, and a column read as not recorded would hide that."""
    missing = [key for keys in places.values() for key in keys if key not in counters]
    if missing:
        raise RunError(f"{source} lacks {', '.join(missing)}; rebuild the tools (make build)")
    return {column: sum(int(counters[key]) for key in keys) for column, keys in places.items()}


def emulated_run_drops(pingx_drops: Mapping[str, Any], echod_drops: list[Mapping[str, Any]],
                       link_before: Mapping[str, Any], link_after: Mapping[str, Any]) -> dict[str, int]:
    """A mode's drops by place in emulation, under the names run_drops() reads in virtual time:
    host a's counters from pingx's drops record, host b's from its echods' (each a stack of
    its own), the link's from linkemu's counters before and after the mode's run."""
    counters: dict[str, int] = {}
    for prefix, records in (("a", [pingx_drops]), ("b", echod_drops)):
        for record in records:
            for key, value in record.items():
                if key.startswith("host_"):
                    name = f"{prefix}_{key.removeprefix('host_')}"
                    counters[name] = counters.get(name, 0) + int(value)
    counters.update(drop_delta(link_before, link_after))
    return run_drops(counters, "the drops records of pingx, echod and linkemu")


def host_spin_ps(host_model: Path | None) -> int:
    """One busy-loop iteration on host_model as netsim charges it: the model's spin_ps, else
    netsim's default."""
    if host_model is None:
        return NETSIM_SPIN_PS
    return int(hostmodel.values(host_model).get("spin_ps", NETSIM_SPIN_PS))


def echod_argv(experiment: Experiment, cooled: bool, iterations: int | None = None) -> list[str]:
    """echod's arguments; a cooled echod paces its echo by the loop's time on its host model,
    `iterations` of it when the spec tunes the loop."""
    settings: Settings = experiment.settings
    argv = [str(tool_binary("echod")), "--proto", "both", *buffer_args(experiment)]
    if not cooled:
        return argv + ["--port", str(ECHO_PORT)]
    if settings.cooling_gap_s is not None:
        gap_ns = round(settings.cooling_gap_s * 1e9)
    elif experiment.backend == "sim":
        # The echo host's loop takes as long as pingx's on the same host model in netsim.
        gap_ns = round(cooled_loop(settings, iterations) * host_spin_ps(experiment.host_model) / 1000)
    else:
        raise RunError("udp-cooled by busy-loop iterations has no echo gap in time; give cooling.gap")
    return argv + ["--port", str(COOLED_ECHO_PORT), "--echo-gap", limits.COOL_GAP_NS.arg(gap_ns)]


def netsim_command(experiment: Experiment, seed: int, pingx_args: list[str], echod_args: list[str],
                   boot_b: int | None = None, binary: Path = sim.BINARY) -> list[str]:
    """The netsim argument list for pingx on host a echoing off echod on host b, both hosts
    with the experiment's host model. The tools' own arguments carry no stack flags: netsim
    gives the stacks."""
    return [str(binary), "--app", "pingx", *sim.link_args(experiment.link), *sim.both_hosts(experiment.host_model),
            *sim.boot_b_args(boot_b), "--seed", str(seed), "--no-wall", "--", *pingx_args, "--", *echod_args]


def check_pingx(records: list[dict[str, Any]], mode: str, status: int,
                errors: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """pingx's meta record and message records; raises when it failed."""
    failures = [r for r in records if r.get("record") == "error"]
    if status != 0 or failures:
        detail = failures[0] if failures else errors.strip()[-500:]
        raise RunError(f"pingx --mode {mode} failed (exit {status}): {detail}")
    meta = next((r for r in records if r.get("record") == "meta"), {})
    return meta, [r for r in records if r.get("record") == "message"]


def message_rows(experiment: Experiment, mode: str, trial: int, run_id: str,
                 records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = {m.size: m.name for m in experiment.settings.messages}
    rows = []
    for record in records:
        rtt_ns = record.get("rtt_ns")
        gap_ns = record.get("cool_gap_ns")
        rows.append({
            "run_id": run_id,
            "trial": trial,
            "mode": mode,
            "message_bytes": record["size"],
            "message_name": names.get(record["size"], ""),
            "echo": record["seq"] + 1,
            "rtt_ms": rtt_ns / 1e6 if rtt_ns is not None else None,
            "datagrams": record.get("datagrams", 0),
            "datagrams_returned": record.get("datagrams_returned", 0),
            "datagrams_misordered": record.get("datagrams_misordered", 0),
            "complete": bool(record["complete"]),
            "cool_gap_us": gap_ns / 1e3 if gap_ns is not None else None,
            "t_start_ns": record.get("t_start_ns"),
        })
    return rows


def prepares(experiment: Experiment) -> bool:
    """Whether a trial runs udp-cooled with a loop that cooling.tune finds: the same for every
    trial (tune_cooling), so it can be found once."""
    return (experiment.backend == "sim" and experiment.settings.cooling_tune is not None
            and "udp-cooled" in experiment.settings.modes)


def prepare(experiment: Experiment) -> dict[str, Any]:
    """What every trial of the experiment shares: its tuned cooling loop."""
    return {"cooling_tune": tune_cooling(experiment)}


def run(spec: Spec, experiment: Experiment, trial: int, out: Path, part: int | None,
        prepared: Mapping[str, Any] | None) -> None:
    """One trial, every mode; writes records.jsonl (a row per echo), then provenance.json."""
    if experiment.backend == "sim":
        run_sim(spec, experiment, trial, out, prepared)
    else:
        run_emulated(spec, experiment, trial, out)


def run_sim_mode(experiment: Experiment, mode: str, trial: int, seed: int,
                 iterations: int | None = None) -> tuple[list[str], sim.SimResult]:
    """One mode's netsim run of pingx against its own echod (`iterations`: a tuned loop);
    its command and result."""
    cooled = mode == "udp-cooled"
    command = netsim_command(experiment, seed, pingx_argv(experiment, mode, trial, iterations=iterations)[1:],
                             echod_argv(experiment, cooled=cooled, iterations=iterations)[1:],
                             boot_b=phase.boot_b_ns(seed))
    try:
        return command, sim.run_netsim(command, sim_limit_s(experiment))
    except sim.SimError as exc:
        loop = f" --cool-iterations {iterations}" if cooled and iterations is not None else ""
        raise RunError(f"pingx --mode {mode}{loop} in virtual time: {exc}") from exc


def tune_probe(experiment: Experiment) -> Experiment:
    """The experiment as cooling.tune runs it: the tune's message and echoes only."""
    tune: CoolingTune = experiment.settings.cooling_tune
    return dataclasses.replace(experiment, settings=dataclasses.replace(
        experiment.settings, messages=(Message(name="", size=tune.message),), echoes=tune.echoes))


def tune_cooling(experiment: Experiment) -> dict[str, Any]:
    """cooling.tune run: each level's pooled loss on the tune's message, its netsim command and
    the events and virtual time netsim gave it, and the knee. Its seeds do not depend on the
    trial, so every trial of the experiment finds the same loop."""
    tune: CoolingTune = experiment.settings.cooling_tune
    probe = tune_probe(experiment)
    levels = []
    for iterations in tune.iterations:
        command, result = run_sim_mode(probe, "udp-cooled", 0,
                                       run_seed(experiment, 0, f"cooling-tune:{iterations}"), iterations)
        records = check_pingx(result.records, "udp-cooled", 0, "")[1]
        sent = sum(record.get("datagrams", 0) for record in records)
        returned = sum(record.get("datagrams_returned", 0) for record in records)
        if sent == 0:
            raise RunError(f"tuning the cooling loop: pingx sent no datagram of {tune.message}B at {iterations} "
                           "iterations")
        levels.append({"iterations": iterations, "loss_pct": 100 * (1 - returned / sent), "command": command,
                       "events": result.sim["events"], "virtual_ns": result.sim["virtual_ns"]})
    return {"message_bytes": tune.message, "echoes": tune.echoes, "margin_points": tune.margin_points,
            "levels": levels, "iterations": knee(levels, tune.margin_points)}


def run_sim(spec: Spec, experiment: Experiment, trial: int, out: Path,
            prepared: Mapping[str, Any] | None) -> None:
    """A pingx trial in virtual time: one netsim run per mode, each with its own echod; a tuned
    cooling loop is the prepared one, or found first."""
    run_id = run_name(spec, experiment, trial)
    started = now_iso()
    rows: list[dict[str, Any]] = []
    modes: dict[str, Any] = {}
    order = mode_order(experiment, trial)
    tuned = None
    if prepares(experiment):
        tuned = prepared["cooling_tune"] if prepared else tune_cooling(experiment)
    iterations = tuned["iterations"] if tuned else None
    for mode in order:
        seed = run_seed(experiment, trial, mode)
        command, result = run_sim_mode(experiment, mode, trial, seed, iterations)
        meta, records = check_pingx(result.records, mode, 0, "")
        drops = run_drops(result.sim)
        rows += [{**row, **drops} for row in message_rows(experiment, mode, trial, run_id, records)]
        summary = next((r for r in result.records if r.get("record") == "summary"), {})
        modes[mode] = {"seed": seed, "boot_b_ns": phase.boot_b_ns(seed), "command": command,
                       "tool_settings": meta, "echod_summary": summary, "sim": result.sim}
    write_run(out, rows, {
        **base_provenance(spec, experiment, run_id, started),
        "backend": "sim",
        "modes": modes,
        "tools": tool_digests([tool_binary("netsim")]),
        **run_order(rows, ORDER_FIELDS),
        "mode_order": order,
        # Made once for every trial (prepare), or by this trial, whose runs it then counts.
        **({"cooling_tune": tuned, "cooling_tune_prepared": prepared is not None} if tuned else {}),
    })


def run_mode(net: Any, experiment: Experiment, mode: str, trial: int,
             stack_args: tuple[str, ...]) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    """Runs pingx in one mode, its Tahoe ticks at the phase the mode's seed gives netsim
    against echod's (netrepro.phase); returns its meta record, its message records and its
    drops record (the Tahoe stack's; None on the Linux stack)."""
    phase_a = phase.host_a_args(experiment.stack, run_seed(experiment, trial, mode))
    argv = pingx_argv(experiment, mode, trial, (*stack_args, *phase_a))
    process = net.h1.popen(argv, stdout=-1, stderr=-1, text=True)
    output, errors = finish(process, limit_s(experiment), f"pingx --mode {mode}")
    records = parse(output, "pingx")
    meta, messages = check_pingx(records, mode, process.returncode, errors)
    return meta, messages, next((r for r in records if r.get("record") == "drops"), None)


def start_echods(net: Any, experiment: Experiment, stack_args: tuple[str, ...], seed: int) -> dict[str, Any]:
    """The echods of one mode's run (`seed`, its seed), as in virtual time. One echod for every
    mode kept a Tahoe echod's last connection of the mode before, whose peer stack had gone with
    pingx's process before the final ACK, on the port the next pingx's fresh stack connects
    from: that pingx's SYN went unanswered."""
    servers = {"plain": echod_argv(experiment, cooled=False)}
    if "udp-cooled" in experiment.settings.modes:
        servers["cooled"] = echod_argv(experiment, cooled=True)
    processes = {}
    phase_b = phase.host_b_args(experiment.stack, seed)
    try:
        for name, argv in servers.items():
            processes[name] = net.h2.popen([*argv, *stack_args, *phase_b], stdout=-1, stderr=-1, text=True)
            wait_announced(processes[name], "echod: serving", f"echod ({name})")
    except BaseException:
        for process in processes.values():
            kill_group(process)
        raise
    return processes


def stop_echod(process: Any) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Stops an echod; its summary, and its drops record (None on the Linux stack)."""
    if process.poll() is None:
        process.terminate()
    output, errors = finish(process, ECHOD_STOP_S, "echod")
    records = parse(output, "echod")
    summary = next((r for r in records if r.get("record") == "summary"), None)
    if summary is None:
        raise RunError(f"echod ended without its summary (exit {process.returncode}): {errors.strip()[-300:]}")
    return summary, next((r for r in records if r.get("record") == "drops"), None)


def mode_drops(experiment: Experiment, pingx_drops: Mapping[str, Any] | None,
               echod_drops: list[Mapping[str, Any] | None], before: Mapping[str, Any] | None,
               after: Mapping[str, Any] | None) -> dict[str, int]:
    """An emulated mode's drops by place, from mode_counters' snapshots before and after it and,
    on the Tahoe stack, the tools' drops records; none (the columns read NA) where the emulator
    gives no counters while it runs."""
    if before is None or after is None:
        return {}
    if experiment.stack != "tahoe":
        counters = {**kernelstats.delta(before["kernel"], after["kernel"]), **drop_delta(before["link"], after["link"])}
        return run_drops(counters, "the kernel's and linkemu's counters", LINUX_RUN_DROPS)
    if pingx_drops is None or any(d is None for d in echod_drops):
        raise RunError("pingx or echod on the Tahoe stack printed no drops record; rebuild the tools (make build)")
    return emulated_run_drops(pingx_drops, [d for d in echod_drops if d is not None], before["link"], after["link"])


def mode_counters(experiment: Experiment, backend: Any, net: Any) -> dict[str, Any] | None:
    """The counters a mode's drops are the difference of: linkemu's so far and, on the Linux
    stack, the kernel's in each node (the Tahoe stacks' come in their tools' drops records);
    None for an emulator that gives no counters while it runs."""
    if not isinstance(backend, LinkemuBackend):
        return None
    counters: dict[str, Any] = {"link": backend.snapshot()}
    if experiment.stack != "tahoe":
        counters["kernel"] = kernelstats.snapshot({"h1": net.h1, "h2": net.h2}, net.mid, {"h1": IF_A, "h2": IF_B})
    return counters


def run_emulated(spec: Spec, experiment: Experiment, trial: int, out: Path) -> None:
    """A pingx trial on Mininet over the emulated link: pingx on h1 in each mode, against that
    mode's echod on h2."""
    settings: Settings = experiment.settings
    run_id = run_name(spec, experiment, trial)
    started = now_iso()
    seed_of_link = link_seed(experiment.seed, experiment.draws_id, trial)
    backend = emulation_backend(experiment.backend, experiment.stack, seed_of_link)
    rows: list[dict[str, Any]] = []
    metas: dict[str, Any] = {}
    order = mode_order(experiment, trial)
    with LinkNetwork(experiment.link, backend, out / "logs") as net:
        link_check = check_link(net, experiment.link, H2_IP)
        tool_args = stacks.setup_hosts(
            [(net.h1, *H1), (net.h2, *H2)], experiment.stack,
            experiment.host_model, experiment.link.mtu, buffers=(settings.send_buffer or stacks.RETRO_DEFAULT_BUFFER,
                                                                 settings.receive_buffer or stacks.RETRO_DEFAULT_BUFFER),
            frame_times=net.frame_times)
        sysctls = read_sysctls(net.h1)
        echod_summary: dict[str, Any] = {}
        for mode in order:
            echods = start_echods(net, experiment, tuple(tool_args["h2"]), run_seed(experiment, trial, mode))
            before = mode_counters(experiment, backend, net)
            try:
                metas[mode], records, pingx_drops = run_mode(net, experiment, mode, trial, tuple(tool_args["h1"]))
            except BaseException:
                # Their summaries no longer matter; ending them must not hide why the run failed.
                for process in echods.values():
                    kill_group(process)
                raise
            after = mode_counters(experiment, backend, net)
            stopped = {name: stop_echod(process) for name, process in echods.items()}
            echod_summary[mode] = {name: summary for name, (summary, _) in stopped.items()}
            drops = mode_drops(experiment, pingx_drops, [d for _, d in stopped.values()], before, after)
            rows += [{**row, **drops} for row in message_rows(experiment, mode, trial, run_id, records)]
    write_run(out, rows, {
        **base_provenance(spec, experiment, run_id, started),
        "sysctls": sysctls,
        "offloads": net.at_stop["offloads"],
        "cpu_idle": net.at_stop["cpu_idle"],
        "link": {**link_summary(experiment), "backend_settings": net.at_stop["backend_settings"],
                 "seed": seed_of_link},
        "link_check": link_check.as_dict(),
        "link_counters": net.counters,
        "backend": backend.name,
        "tools": tool_digests(emulation_binaries(backend.name, ["pingx", "echod"]),
                              iperf3=tool_version(["iperf3", "--version"])),
        "tool_settings": metas,
        "tool_args": tool_args,
        "echod_summary": echod_summary,
        **run_order(sorted(rows, key=lambda r: r["t_start_ns"] or 0), ORDER_FIELDS),
        "mode_order": order,
        "boot_b_ns": {mode: phase.boot_b_ns(run_seed(experiment, trial, mode)) for mode in order},
    })
