rule points:
    """Validate one raw input file and convert it to canonical roofline points."""
    input:
        unpack(raw_input),
    output:
        "results/points/{kind}/{name}.parquet",
    log:
        "logs/points/{kind}/{name}.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        settings=ADAPTER_SETTINGS,
        kind="{kind}",
    script:
        "../scripts/points.py"
