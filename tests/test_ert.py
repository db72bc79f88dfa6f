"""ERT roofline.json → empirical preset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rooflow.errors import InputError
from rooflow.roofs.ert import ert_preset

ROOT = Path(__file__).resolve().parents[1]
EDISON = ROOT.parent / "shared" / "data" / "ert" / "roofline.edison.nersc.gov.01.json"
EXAMPLE = ROOT / "resources" / "ert" / "roofline.gpu-node-a100.json"
KINGSPEAK = ROOT.parent / "shared" / "data" / "ert" / "kingspeak-p100-gpu" / "roofline.json"


def write(tmp_path: Path, gbytes: list, gflops: list) -> Path:
    path = tmp_path / "roofline.json"
    path.write_text(json.dumps(
        {"empirical": {"gbytes": {"data": gbytes}, "gflops": {"data": gflops}}}))
    return path


@pytest.mark.shared
def test_edison_by_hand() -> None:
    assert EDISON.is_file(), f"shared test data missing: {EDISON}"
    # empirical.gbytes.data: L1 1723.23, L2 1075.56 (1075.5599999999999 in the file),
    # L3 669.08, DRAM 83.0 GB/s; empirical.gflops.data: "GFLOPs" 355.79 → ERT 1.1.0 runs
    # double precision only: fp64 = 355.79 GFLOP/s = 0.35579 TFLOP/s.
    preset = ert_preset(EDISON)
    assert preset["memory"] == pytest.approx({"L1": 1723.23, "L2": 1075.56, "L3": 669.08,
                                              "DRAM": 83.0})
    assert preset["compute"] == pytest.approx({"fp64": 0.35579})
    assert (preset["default_compute"], preset["default_memory"], preset["empirical"]) == (
        "fp64", "DRAM", True)
    assert preset["name"] == "edison (ERT empirical)" and str(EDISON) in preset["source"]


def test_example_resource() -> None:
    preset = ert_preset(EXAMPLE)
    # FP16 70,881.2 GFLOP/s is the highest throughput → default compute roof.
    assert preset["compute"] == pytest.approx({"fp64": 9.4127, "fp32": 18.8395, "fp16": 70.8812})
    assert preset["default_compute"] == "fp16" and preset["default_memory"] == "DRAM"


def test_lowest_bandwidth_level_is_default_without_dram(tmp_path: Path) -> None:
    path = write(tmp_path, [["L1", 100.0], ["HBM", 10.0], ["L2", 50.0]], [["FP32 GFLOPs", 1e3]])
    preset = ert_preset(path)
    assert preset["default_memory"] == "HBM" and preset["compute"] == {"fp32": 1.0}
    # No HOSTNAME: a file named roofline.json (ERT's own name) is named by its folder.
    assert preset["name"] == f"{tmp_path.name} (ERT empirical)"
    other = path.rename(tmp_path / "gpu-a.json")
    assert ert_preset(other)["name"] == "gpu-a (ERT empirical)"


@pytest.mark.parametrize(
    ("metadata", "name"),
    [
        # socket.gethostbyaddr() as JSON: [name, aliases, addresses]
        ({"metadata": {"HOSTNAME": ["cn850", [], ["10.1.2.3"]]}}, "cn850"),
        ({"metadata": {"HOSTNAME": [[], "", "cn851"]}}, "cn851"),
        ({"metadata": {"HOSTNAME": "edison"}}, "edison"),
        # ERT's Python 3 version: "KEY  value" lines under a section's metadata
        ({"gflops_meta": ["META_DATA", "HOSTNAME  ('kp361.kingspeak.peaks', ['kp361'], "
                          "['10.242.2.107'])"]}, "kp361.kingspeak.peaks"),
        ({"metadata": {"HOSTNAME": [[], []]}}, "run7"),  # no string: the folder's name
    ],
)
def test_hostname_is_a_readable_name(tmp_path: Path, metadata: dict, name: str) -> None:
    folder = tmp_path / "run7"
    folder.mkdir()
    empirical: dict = {"gbytes": {"data": [["DRAM", 10.0]]},
                       "gflops": {"data": [["FP64 GFLOPs", 1e3]]}}
    if "gflops_meta" in metadata:
        empirical["gflops"]["metadata"] = {"": metadata["gflops_meta"]}
    else:
        empirical |= metadata
    path = folder / "roofline.json"
    path.write_text(json.dumps({"empirical": empirical}))
    assert ert_preset(path)["name"] == f"{name} (ERT empirical)"


@pytest.mark.shared
def test_kingspeak_hostname_from_its_metadata_lines() -> None:
    # HOSTNAME  ('kp361.kingspeak.peaks', ['kp361'], ['10.242.2.107']) in
    # empirical.gflops.metadata[""], the top-level metadata empty: the first string.
    preset = ert_preset(KINGSPEAK)
    assert preset["name"] == "kp361.kingspeak.peaks (ERT empirical)"
    # gbytes.data L1 1723.76, L2 1301.09, DRAM 508.35 GB/s; gflops "FP64 GFLOPs" 4258.4.
    assert preset["memory"] == pytest.approx({"L1": 1723.76, "L2": 1301.09, "DRAM": 508.35})
    assert preset["compute"] == pytest.approx({"fp64": 4.2584})


@pytest.mark.parametrize(
    ("gbytes", "gflops", "fragment"),
    [
        ([["DRAM", 0]], [["GFLOPs", 1]], "value fails validation"),
        ([["DRAM", "fast"]], [["GFLOPs", 1]], "expected a [label, number] pair"),
        ([["DRAM", 1], ["DRAM", 2]], [["GFLOPs", 1]], "value fails validation"),
        ([["MCDRAM", 1]], [["GFLOPs", 1]], "unknown memory level"),
        ([["DRAM", 1]], [["INT8 GOPs", 1]], "unknown FLOP label"),
        ([["DRAM", 1]], [["GFLOPs", 1], ["FP64 GFLOPs", 2]], "the same precision is given twice"),
        ([["DRAM", 1]], [], "no empirical.gflops.data list"),
    ],
)
def test_bad_files(tmp_path: Path, gbytes: list, gflops: list, fragment: str) -> None:
    with pytest.raises(InputError) as err:
        ert_preset(write(tmp_path, gbytes, gflops))
    assert fragment in str(err.value)


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "roofline.json"
    path.write_text("{not json")
    with pytest.raises(InputError, match="not JSON"):
        ert_preset(path)
