"""Shared fixtures: the real input data beside the repository, the repo root, and workflow
copies built by real Snakemake runs (helpers in workflow_copy.py).

Test tiers are pytest markers (registered in pyproject.toml): `workflow`, `shared`, `browser`,
`slurm`, `gallery`, `heavy` (:data:`HEAVY`). Plain `pytest` (`make test-fast`) leaves out
workflow, browser, slurm, gallery and heavy; `make test` runs all. Without ../shared/data
the tests marked `shared` are skipped, each saying where the data must be (CI refuses to
start without it: .ci/run).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from workflow_copy import EXAMPLE_CONFIG, copy_workflow, snakemake

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
MISSING_SHARED = (f"real test data missing: {SHARED_DATA} (a checkout of the shared test inputs "
                  "beside the repository; README, 'Set up and run')")

# A test that requests one of these fixtures belongs to that tier and must carry its marker,
# so that `-m "not ..."` really leaves out what is slow or needs the machine set up.
FIXTURE_TIERS = {
    "shared_data": "shared",
    "workflow_copy": "workflow",
    "examples_build": "workflow",
    "chromium": "browser",
    "cluster": "slurm",
}


HEAVY = {
    "test_amd_properties.py::test_truncated_and_shuffled_files",
    "test_attacks.py::test_math_text_in_names_is_drawn_as_written",
    "test_batches.py::test_a_batch_remakes_only_the_datasets_that_changed",
    "test_batches.py::test_a_changed_plot_option_redraws_from_the_points_it_has",
    "test_batches.py::test_a_dataset_that_fails_is_said_and_the_others_are_made",
    "test_benchmarks_specs.py::test_specs_option",
    "test_benchmarks_specs.py::test_workflow_layout_from_another_folder",
    "test_check.py::test_a_10_pct_slowdown_is_found",
    "test_check.py::test_a_real_workload_against_itself_passes",
    "test_check.py::test_cli_allow",
    "test_check.py::test_cli_exit_codes_lines_junit_json_markdown",
    "test_check.py::test_per_launch_pairs_ncu_launches_by_kernel_and_order",
    "test_check.py::test_per_launch_pairs_pytorch_calls_by_operator_shape_and_order",
    "test_cli.py::test_api_names_resolve_lazily",
    "test_cli.py::test_convert_ncu_passes_folder_list_and_from_ncu_agree",
    "test_cli.py::test_convert_then_table_is_the_table_of_every_shipped_example",
    "test_cli.py::test_convert_to_parquet_writes_parquet_read_back_as_the_same_points",
    "test_cli.py::test_from_aliases_write_what_convert_writes",
    "test_cli.py::test_from_benchmark_writes_precision_and_level",
    "test_cli.py::test_from_ncu_real_nersc_export",
    "test_cli.py::test_from_ncu_rejects_nan_export_and_missing_metrics",
    "test_cli.py::test_from_rocprof_example_workload",
    "test_cli.py::test_plot_custom_roof_svg",
    "test_cli.py::test_plot_reports_points_above_roof",
    "test_cli.py::test_plot_with_preset_and_table",
    "test_cli.py::test_program_ends_without_teardown_but_keeps_output_and_cleanups",
    "test_cli.py::test_readme_library_example_runs",
    "test_cli_device.py::test_a_file_naming_its_gpu_picks_its_preset",
    "test_cli_device.py::test_an_export_with_its_peaks_needs_no_hardware",
    "test_cli_device.py::test_another_gpus_preset_gets_one_warning_naming_both",
    "test_cli_device.py::test_its_peaks_unreadable_names_the_options",
    "test_clocks.py::test_ddp_trace_aten_add_no_longer_tops_the_ranking",
    "test_compare.py::test_a_large_comparison_draws_arrows_for_the_most_changed_and_segments_for_the_rest",
    "test_compare.py::test_cli_compare_writes_plot_table_page",
    "test_detect.py::test_plot_detects_the_kind",
    "test_export.py::test_json_by_suffix_on_table_plot_convert_and_compare",
    "test_export.py::test_table_json_of_a_workload_with_bandwidth_only_rows",
    "test_history.py::test_cli_history_table_and_labels",
    "test_hostile_native.py::test_a_metric_name_not_utf8_is_one_line",
    "test_hostile_native.py::test_cli_crash_is_one_line_exit_1_without_traceback_or_absl_lines",
    "test_imports.py::test_labelled_small_plot_imports_no_bokeh_or_pandera",
    "test_imports.py::test_matplotlib_without_its_import_docs_draws_the_same_pixels",
    "test_imports.py::test_two_point_plot_imports_no_label_placement",
    "test_imports.py::test_two_row_plot_with_a_key_imports_no_label_placement",
    "test_install.py::test_installed_cli_lists_presets_from_any_folder",
    "test_install.py::test_installed_cli_plots_a_roofline_csv",
    "test_install.py::test_installed_rooflow_is_the_venv_copy",
    "test_install.py::test_python_m_rooflow_is_the_program",
    "test_install.py::test_the_wheel_holds_the_package_data",
    "test_layout.py::test_the_package_imports_no_snakemake",
    "test_model_vs_measured.py::test_cli_plot_has_an_arrow_per_level",
    "test_model_vs_measured.py::test_shipped_two_launch_triad_is_set_against_its_model_per_call",
    "test_ncu_launch_clocks.py::test_check_judges_each_run_at_the_clocks_it_ran_at",
    "test_ncu_launch_clocks.py::test_the_command_line_tables_each_launch_at_its_clocks",
    "test_ncu_passes_folder.py::test_the_stranger_is_skipped_with_one_note",
    "test_ncu_passes_folder.py::test_two_runs_without_a_common_kernel_are_both_kept",
    "test_ncu_properties.py::test_any_export_gives_points_or_input_error",
    "test_places.py::test_a_real_trace_page_keeps_roof_and_ridge_labels_off_the_points",
    "test_places.py::test_real_pages_keep_every_label_clear",
    "test_plot_overlap.py::test_a_real_projection_has_no_overlaps",
    "test_plot_overlap.py::test_model_check_has_no_overlaps",
    "test_plot_overlap.py::test_real_inputs_have_no_overlaps",
    "test_plot_overlap.py::test_real_model_check_has_no_overlaps",
    "test_plot_overlap.py::test_shipped_projection_and_history_have_no_overlaps",
    "test_plotting.py::test_the_library_leaves_the_matplotlib_backend_alone",
    "test_project.py::test_cli_totals_per_kernel_and_bad_preset",
    "test_properties.py::test_any_benchmark_csv_gives_points_or_one_line_error",
    "test_properties.py::test_any_csv_gives_valid_points_or_one_line_error",
    "test_pytorch.py::test_causal_attention_of_the_xdit_trace_counts_the_pairs_its_mask_keeps",
    "test_pytorch.py::test_communication_never_becomes_a_point",
    "test_pytorch.py::test_convolution_of_the_resnet_trace",
    "test_pytorch.py::test_every_shared_trace_gives_points_or_one_clear_error",
    "test_pytorch.py::test_in_place_triton_kernels_of_the_xdit_trace_count_their_buffer_twice",
    "test_pytorch.py::test_rooflow_plot_reads_a_trace",
    "test_rocprof.py::test_equal_timestamps_take_the_time_from_cycles",
    "test_rocprof.py::test_long_rocpd_table_gives_the_wide_points",
    "test_rocprof.py::test_long_rocpd_table_of_a_real_workload",
    "test_rocprof.py::test_wave32_valu_work_by_hand",
    "test_scale.py::test_plot_warning_names_attainable_and_percent",
    "test_selection.py::test_cli_table_convert_and_compare_select",
    "test_selection.py::test_compare_top_ranks_the_baseline_and_keeps_its_kernels_in_both_runs",
    "test_selection.py::test_plot_kernel_on_mi325x_workload_with_bandwidth_only_rows",
    "test_shared_data_all.py::test_gives_a_table_or_one_clear_line",
    "test_trajectory.py::test_a_dim_that_makes_no_path_is_said",
    "test_trajectory.py::test_a_plain_roofline_column_is_a_trajectory_dim",
    "test_trajectory.py::test_cli_draws_the_sweep_and_refuses_a_dim_no_point_has",
    "test_trajectory.py::test_many_paths_legend_counts_them_and_fits_the_canvas",
    "test_unitrace.py::test_cli_reads_reports_under_their_own_names",
}
"""``file::test`` (every parameter) of the slowest tests, marked ``heavy``: each took six
seconds or more of a plain ``pytest`` run (``--durations``, a loaded machine), so ``make
test`` runs them and the fast tier does not (README, "Set up and run")."""


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if f"{item.path.name}::{item.originalname}" in HEAVY:
            item.add_marker(pytest.mark.heavy)
    found = {f"{i.path.name}::{i.originalname}" for i in items}
    missing = {h for h in HEAVY if h.split("::")[0] in {i.path.name for i in items}} - found
    if missing:
        raise pytest.UsageError(f"HEAVY names tests that do not exist: {sorted(missing)}")
    unmarked = [
        f"{item.nodeid} (fixture {fixture}: needs @pytest.mark.{tier})"
        for item in items
        for fixture, tier in FIXTURE_TIERS.items()
        if fixture in getattr(item, "fixturenames", ()) and not item.get_closest_marker(tier)
    ]
    if unmarked:
        raise pytest.UsageError("tests missing their tier marker:\n" + "\n".join(unmarked))
    if not SHARED_DATA.is_dir():
        skip = pytest.mark.skip(reason=MISSING_SHARED)
        for item in items:
            if item.get_closest_marker("shared"):
                item.add_marker(skip)


def pytest_report_header(config) -> str | None:
    return None if SHARED_DATA.is_dir() else f"{MISSING_SHARED}: the tests marked shared skip"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (tests using it are marked shared: skipped when it is missing)."""
    return SHARED_DATA


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture
def workflow_copy(tmp_path) -> Path:
    """A fresh copy of the workflow, config and shipped inputs, not yet run."""
    return copy_workflow(tmp_path / "wf")


@pytest.fixture(scope="session")
def examples_build(tmp_path_factory) -> Path:
    """The shipped examples built once per session on EXAMPLE_CONFIG's presets.

    Shared by every test that reads its results; a test that changes the copy puts it back
    before it ends (test_workflow.py). Tests that need a run of their own (killed, on Slurm,
    other inputs) make their own copy.
    """
    work = copy_workflow(tmp_path_factory.mktemp("examples"))
    snakemake(work, *EXAMPLE_CONFIG)
    return work
