rule model_check:
    """A model check of config `model_checks` on one preset: model → measured, per level."""
    input:
        unpack(model_check_input),
    output:
        plot=paths.MODEL_CHECK_PLOT,
        table=paths.MODEL_CHECK_TABLE,
        parquet=paths.MODEL_CHECK_PARQUET,
    log:
        paths.MODEL_CHECK_LOG,
    conda:
        ROOFLOW_ENV
    resources:
        mem_mb=jobmemory.analysis_job,
        runtime=10,
    params:
        preset="{preset}",
        roofs_at=config["roofs_at"],
        name="{model_check}",
        measured=lambda wc: MODEL_CHECKS[wc.model_check]["measured"],
        model=lambda wc: MODEL_CHECKS[wc.model_check]["model"],
        mapping=lambda wc: [
            f"{k}={v}" for k, v in MODEL_CHECKS[wc.model_check]["map"].items()
        ],
    script:
        "../scripts/model_check.py"
