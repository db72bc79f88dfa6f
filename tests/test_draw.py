"""The workflow's `draw` rules (rooflow.workflow.draw): datasets grouped by what they write.

Planning runs without Snakemake here (as tests/test_planning.py); the rules themselves run
in tests/test_workflow.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rooflow.defaults import config_defaults, plot_defaults
from rooflow.roofs.datasheet import load_hardware
from rooflow.workflow.draw import (
    RULE,
    bokehjs_files,
    draw_inputs,
    draw_rules,
    name_constraint,
    rule_name,
    shared_options,
)
from rooflow.workflow.planning import Plan


@pytest.fixture
def plan(tmp_path, monkeypatch) -> Plan:
    """Four roofline datasets: a, b on the config presets; c on a100-sxm alone; d with an
    SVG as well; and benchmarks-c, a name shared with roofline-c on the config presets."""
    monkeypatch.chdir(tmp_path)
    for rel in ("roofline/a.csv", "roofline/b.csv", "roofline/c.csv", "roofline/d.csv"):
        path = tmp_path / "resources" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    (tmp_path / "resources/benchmarks").mkdir()
    (tmp_path / "resources/benchmarks/c.csv").write_text("x\n")
    config = {**config_defaults(), "plot_defaults": plot_defaults(),
              "presets": ["h100-sxm", "mi300x"],
              "datasets": {"roofline-c": {"device": "a100-sxm"},
                           "roofline-d": {"formats": ["png", "svg"]}}}
    return Plan(config, load_hardware())


def test_datasets_are_grouped_by_presets_and_formats_largest_first(plan):
    rules = draw_rules(plan)
    assert [(r.name, r.presets, r.formats, r.datasets) for r in rules] == [
        (RULE, ("h100-sxm", "mi300x"), (), ("roofline-a", "roofline-b", "benchmarks-c")),
        ("draw_on_a100_sxm", ("a100-sxm",), (), ("roofline-c",)),
        ("draw_on_h100_sxm_mi300x_with_svg", ("h100-sxm", "mi300x"), ("svg",), ("roofline-d",)),
    ]
    assert rules[0].constraint is None  # the largest takes the rest, at the lowest order


def test_outputs_per_preset_index(plan):
    assert draw_rules(plan)[2].outputs() == {
        "table_0": "results/tables/h100-sxm/{kind}-{name}.csv",
        "plot_0": "results/plots/h100-sxm/{kind}-{name}.png",
        "plot_0_svg": "results/plots/h100-sxm/{kind}-{name}.svg",
        "page_0": "results/html/h100-sxm/{kind}-{name}.html",
        "table_1": "results/tables/mi300x/{kind}-{name}.csv",
        "plot_1": "results/plots/mi300x/{kind}-{name}.png",
        "plot_1_svg": "results/plots/mi300x/{kind}-{name}.svg",
        "page_1": "results/html/mi300x/{kind}-{name}.html",
    }


def test_every_target_of_a_dataset_is_an_output_of_its_rule(plan):
    """rule all asks for exactly what the draw jobs write (plus aggregates and summary)."""
    drawn = {p.format(kind=k, name=n) for r in draw_rules(plan) for d in r.datasets
             for k, n in [plan.datasets[d]] for p in r.outputs().values()}
    per_dataset = {t for t in plan.targets() if not t.endswith(("/all.png", "/all.csv",
                   "/all.html", "summary.md", "datasets_read.txt"))}
    assert per_dataset == drawn


def test_constraint_matches_its_datasets_behind_their_kind_only(plan):
    """roofline-c is in draw_on_a100_sxm; benchmarks-c, same name, another kind, is not."""
    constraint = draw_rules(plan)[1].constraint
    pattern = re.compile(rf"results/tables/a100-sxm/(?P<kind>\w+)-(?P<name>{constraint})\.csv$")
    assert pattern.match("results/tables/a100-sxm/roofline-c.csv")
    assert not pattern.match("results/tables/a100-sxm/benchmarks-c.csv")
    assert not pattern.match("results/tables/a100-sxm/roofline-a.csv")
    # A name with regex characters is matched literally ("." is no wildcard).
    dotted = re.compile(rf"/roofline-(?P<name>{name_constraint([('roofline', 'a.b')])})$")
    assert dotted.search("x/roofline-a.b") and not dotted.search("x/roofline-aXb")
    # One alternation per kind; a name that begins another is still matched whole.
    both = name_constraint([("ncu", "a"), ("ncu", "a.b")])
    assert both == r"(?:(?<=/ncu-)(?:a|a\.b))"
    whole = re.compile(rf"/ncu-(?P<name>{both})\.csv$")
    assert whole.search("x/ncu-a.b.csv")["name"] == "a.b" and whole.search("x/ncu-a.csv")
    assert not whole.search("x/ncu-ab.csv")


def test_draw_rule_file_is_one_rule_per_group():
    """The rules file defines the rules from DRAW_RULES, not by hand."""
    text = (Path(__file__).resolve().parents[1] / "workflow/rules/draw.smk").read_text()
    assert "for _draw in DRAW_RULES:" in text and "name:\n            _draw.name" in text


def test_inputs_are_the_same_for_every_dataset_of_a_rule(plan):
    """No input function: the points file pattern, hardware.yaml and measured presets."""
    assert draw_inputs(plan, ("h100-sxm", "mi300x")) == {
        "points": "results/points/{kind}/{name}.parquet",
        "hardware": plan.config["hardware"],
    }
    plan.measured["ert-x"] = {"measured": "resources/ert/x", "measured_files": ["a.json"]}
    assert draw_inputs(plan, ("h100-sxm", "ert-x")) == {
        "points": "results/points/{kind}/{name}.parquet",
        "hardware": plan.config["hardware"],
        "measured_1": "resources/ert/x",
        "measured_1_files": ["a.json"],
    }


def test_pages_load_the_shared_bokehjs_of_this_bokeh():
    """Every BokehJS bundle, in the folder of the installed Bokeh's version (the draw rules'
    and html_overview's `bokehjs` input, rule bokehjs' output)."""
    import bokeh

    assert bokehjs_files() == [
        f"results/html/bokeh-{bokeh.__version__}/js/{b}.min.js"
        for b in ("bokeh", "bokeh-gl", "bokeh-widgets", "bokeh-tables", "bokeh-mathjax")]
    text = (Path(__file__).resolve().parents[1] / "workflow/rules/draw.smk").read_text()
    assert "bokehjs=ancient(BOKEHJS)" in text


def test_shared_options_only_when_every_dataset_has_the_same(plan):
    """One value for the rule's `options` param, else looked up per job."""
    rules = draw_rules(plan)
    assert shared_options(plan, rules[0].datasets) == plan.dataset_options("roofline-a")
    assert shared_options(plan, ("roofline-a", "roofline-c")) is None
    assert shared_options(plan, ()) is None


def test_rule_names_say_what_they_draw():
    # "-" is no identifier character; a second group with the same name gets "_2".
    assert rule_name(["a100-sxm"], [], set()) == "draw_on_a100_sxm"
    assert rule_name(["a100.sxm"], [], {"draw_on_a100_sxm"}) == "draw_on_a100_sxm_2"
    assert rule_name(["h100"], ["pdf", "svg"], set()) == "draw_on_h100_with_pdf_svg"
