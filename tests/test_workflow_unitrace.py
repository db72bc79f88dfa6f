"""A real Snakemake run of unitrace folders: reports as exported (``NAME.<pid>``) and the
``flops.txt`` + ``bytes.txt`` layout, drawn on the pti-gpu device config's preset.

The shared PVC sample (``../shared/data/intel/unitrace-pvc-gemm-fp16``, linked, never
copied): its two reports under their own names in ``resources/unitrace/pvc/``, beside the
device config (not a report: ignored), and renamed in ``resources/unitrace/named/``; the
config is also ``resources/intel/PVC_1tile.csv``, preset ``intel-PVC_1tile``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from workflow_copy import copy_workflow, snakemake

pytestmark = [pytest.mark.workflow, pytest.mark.shared]

CONFIG = ("hardware: config/hardware.yaml\nfamilies: config/families.yaml\n"
          "presets: [intel-PVC_1tile]\n")
FLOPS, BYTES, DEVICE = "gemm_fp16_flops.1799853", "gemm_fp16_bytes.1799860", "PVC_1tile.csv"


@pytest.fixture(scope="module")
def built(shared_data, tmp_path_factory) -> Path:
    sample = shared_data / "intel" / "unitrace-pvc-gemm-fp16"
    work = copy_workflow(tmp_path_factory.mktemp("wf_unitrace"), resources=False)
    (work / "config" / "config.yaml").write_text(CONFIG)
    res = work / "resources"
    for folder, names in (("pvc", {FLOPS: FLOPS, BYTES: BYTES, DEVICE: DEVICE}),
                          ("named", {FLOPS: "flops.txt", BYTES: "bytes.txt"})):
        (res / "unitrace" / folder).mkdir(parents=True)
        for name, link in names.items():
            shutil.copy(sample / name, res / "unitrace" / folder / link)  # no link out
    (res / "intel").mkdir()
    shutil.copy(sample / DEVICE, res / "intel" / DEVICE)
    snakemake(work)
    return work


def test_both_layouts_give_the_same_table_on_the_device_config(built):
    tables = {name: pl.read_csv(built / f"results/tables/intel-PVC_1tile/unitrace-{name}.csv")
              for name in ("pvc", "named")}
    assert tables["pvc"].drop("source").equals(tables["named"].drop("source"))
    hgemm = tables["pvc"].filter(pl.col("precision") == "fp16-tensor")
    # FP16_XMX_GFLOPS 314000 → the hgemm's roof 314 TFLOP/s; DRAM and L3 rows.
    assert hgemm["compute_roof"].to_list() == [314e12, 314e12]
    assert sorted(hgemm["level"].to_list()) == ["DRAM", "L3"]
    assert (built / "results/plots/intel-PVC_1tile/unitrace-pvc.png").stat().st_size > 10_000
