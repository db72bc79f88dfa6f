rule points:
    """Validate one raw input file and convert it to canonical roofline points."""
    input:
        unpack(raw_input),
    output:
        "results/points/{kind}/{name}.parquet",
    log:
        "logs/points/{kind}/{name}.log",
    conda:
        ROOFLOW_ENV
    resources:
        mem_mb=points_mem_mb,
        runtime=10,
    params:
        settings=ADAPTER_SETTINGS,
        kind="{kind}",
    script:
        "../scripts/points.py"
