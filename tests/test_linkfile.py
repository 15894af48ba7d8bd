"""Link kinds read with the links they extend (netrepro/linkfile.py)."""
from dataclasses import replace
from pathlib import Path

import pytest

from netrepro import linkfile
from netrepro.linkspec import link_from_dict
from netrepro.yamlsrc import SpecError

REPO = Path(__file__).resolve().parent.parent
LINKS = REPO / "configs" / "links"
BASE = """description: A base link.
framing: ethernet
mtu: 1500B
rate: 10Mbit
delay: 500ns
medium: shared
queue:
  packets: 50
background:
  frames_per_s: 5
  size: 576B
check:
  rate_tolerance_pct: 5
  rtt_tolerance: 1ms
"""
def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(text)
    return path


def test_a_variant_takes_its_base_and_merges_the_mappings_it_names_key_by_key(tmp_path: Path) -> None:
    write(tmp_path, "base", BASE)
    variant = write(tmp_path, "variant", "description: A variant.\nextends: base\nqueue:\n  packets: 25\n"
                    "check:\n  rtt_tolerance: 2ms\nbackground:\n  frames_per_s: 10\n")
    link = linkfile.load(variant)
    assert link.data["queue"] == {"packets": 25}
    assert link.data["check"] == {"rate_tolerance_pct": 5, "rtt_tolerance": "2ms"}
    assert link.data["background"] == {"frames_per_s": 10, "size": "576B"}
    assert (link.data["description"], link.data["rate"], link.data["medium"]) == ("A variant.", "10Mbit", "shared")
    assert [document.path for document in link.files] == [variant, tmp_path / "base.yaml"]


def test_a_variant_s_queue_replaces_its_base_s_a_limit_in_octets_for_one_in_packets(tmp_path: Path) -> None:
    write(tmp_path, "base", BASE)
    variant = write(tmp_path, "variant", "description: A variant.\nextends: base\nqueue:\n  bytes: 64K\n")
    assert linkfile.load(variant).data["queue"] == {"bytes": "64K"}


def test_a_variant_of_a_variant_takes_both(tmp_path: Path) -> None:
    write(tmp_path, "base", BASE)
    write(tmp_path, "middle", "description: Middle.\nextends: base\nrate: 100Mbit\n")
    top = write(tmp_path, "top", "description: Top.\nextends: middle\nqueue:\n  packets: 25\n")
    params = link_from_dict("top", linkfile.load(top).data)
    assert (params.forward.rate_bps, params.forward.queue_packets, params.medium) == (100e6, 25, "shared")


def test_a_base_is_a_whole_link_itself(tmp_path: Path) -> None:
    """A variant need not give the keys the schema requires (the variants above give no rate); the
    link it extends is one an experiment could name, so it must."""
    write(tmp_path, "base", "description: No queue.\nframing: ethernet\nmtu: 1500B\nrate: 10Mbit\n")
    variant = write(tmp_path, "variant", "description: A variant.\nextends: base\nqueue:\n  packets: 25\n")
    with pytest.raises(SpecError, match=r"base.yaml:1: \(top level\): 'queue' is required here"):
        linkfile.load(variant)


def test_an_unknown_base_names_the_missing_file(tmp_path: Path) -> None:
    orphan = write(tmp_path, "orphan", "description: Orphan.\nextends: nowhere\n")
    with pytest.raises(SpecError, match=rf"orphan.yaml:2: extends: no link named 'nowhere' beside this one "
                                        rf"\({tmp_path}/nowhere.yaml is not a file\)"):
        linkfile.load(orphan)
    # A name that leads out of the folder is no link beside this one either.
    (tmp_path / "elsewhere").mkdir()
    write(tmp_path / "elsewhere", "base", BASE)
    sideways = write(tmp_path / "elsewhere", "sideways", "description: Sideways.\nextends: ../elsewhere/base\n")
    with pytest.raises(SpecError, match=r"sideways.yaml:2: extends: no link named '../elsewhere/base'"):
        linkfile.load(sideways)


def test_extends_names_a_link(tmp_path: Path) -> None:
    empty = write(tmp_path, "empty", "description: E.\nextends:\n")
    with pytest.raises(SpecError, match=r"empty.yaml:2: extends: extends names a link kind beside this file, not None"):
        linkfile.load(empty)


def test_a_loop_is_refused_where_it_closes(tmp_path: Path) -> None:
    a = write(tmp_path, "a", "description: A.\nextends: b\n")
    write(tmp_path, "b", "# b\ndescription: B.\nextends: a\n")
    with pytest.raises(SpecError, match=r"b.yaml:3: extends: a loop: a extends b extends a"):
        linkfile.load(a)


def test_a_chain_longer_than_the_limit_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "link-0", BASE)
    for n in range(1, linkfile.EXTENDS_DEPTH_MAX + 2):
        write(tmp_path, f"link-{n}", f"description: Link {n}.\nextends: link-{n - 1}\n")
    assert linkfile.load(tmp_path / f"link-{linkfile.EXTENDS_DEPTH_MAX}.yaml").data["rate"] == "10Mbit"
    with pytest.raises(SpecError, match=rf"link-1.yaml:2: extends: more than {linkfile.EXTENDS_DEPTH_MAX} links"):
        linkfile.load(tmp_path / f"link-{linkfile.EXTENDS_DEPTH_MAX + 1}.yaml")


def test_a_bad_key_or_value_in_a_variant_is_located_in_the_variant(tmp_path: Path) -> None:
    write(tmp_path, "base", BASE)
    unknown = write(tmp_path, "unknown", "description: V.\nextends: base\nqueue:\n  packet: 25\n")
    with pytest.raises(SpecError, match=r"unknown.yaml:4: queue.packet: unknown key 'packet'"):
        linkfile.load(unknown)
    huge = write(tmp_path, "huge", "description: V.\nextends: base\nqueue:\n  packets: 2000000000\n")
    with pytest.raises(SpecError, match=r"huge.yaml:4: queue.packets: 2000000000 is out of range"):
        linkfile.load(huge)
    # A value the variant takes from its base is the base's to answer for.
    write(tmp_path, "slow", BASE.replace("rate: 10Mbit", "rate: 0bit"))
    with pytest.raises(SpecError, match=r"slow.yaml:4: rate: 0bit is out of range"):
        linkfile.load(write(tmp_path, "of-slow", "description: V.\nextends: slow\n"))


def test_a_clash_a_variant_makes_is_located_at_the_variant_s_key(tmp_path: Path) -> None:
    write(tmp_path, "base", BASE)
    duplex = write(tmp_path, "duplex", "description: V.\nextends: base\nmedium: duplex\n")
    with pytest.raises(SpecError, match=r"duplex.yaml:3: medium: other stations' traffic \(background\) needs "
                                        r"medium: shared, not duplex"):
        linkfile.load(duplex)
    # Both keys in one file: the error names the background, as before variants existed.
    write(tmp_path, "plain", BASE.replace("medium: shared", "medium: duplex"))
    with pytest.raises(SpecError, match=r"plain.yaml:9: background: other stations' traffic"):
        linkfile.load(tmp_path / "plain.yaml")
    # The base gives the medium, the variant adds the background to a duplex link.
    write(tmp_path, "wire", BASE.replace("medium: shared", "medium: duplex").split("background:")[0]
          + "check:\n  rate_tolerance_pct: 5\n  rtt_tolerance: 1ms\n")
    noisy = write(tmp_path, "noisy", "description: V.\nextends: wire\nbackground:\n  frames_per_s: 5\n  size: 576B\n")
    with pytest.raises(SpecError, match=r"noisy.yaml:3: background: .* not duplex"):
        linkfile.load(noisy)


@pytest.mark.parametrize("path", sorted(LINKS.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_link_kind_loads_with_its_bases(path: Path) -> None:
    linkfile.link_params(path.stem)


@pytest.mark.parametrize("packets", [25, 100])
def test_the_queue_variants_are_the_shared_ethernet_but_for_the_queue(packets: int) -> None:
    base = linkfile.link_params("ethernet-10-shared")
    variant = linkfile.link_params(f"ethernet-10-shared-queue{packets}")
    queue = replace(base.forward, queue_packets=packets)
    assert variant == replace(base, name=variant.name, forward=queue, reverse=queue)

