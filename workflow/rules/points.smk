rule points:
    """Validate one raw input file and convert it to canonical roofline points."""
    input:
        unpack(raw_input),
    output:
        "results/points/{kind}/{name}.parquet",
    log:
        "logs/points/{kind}/{name}.log",
    params:
        settings=ADAPTER_SETTINGS,
    conda:
        "../../environment.yml"
    script:
        "../scripts/points.py"
