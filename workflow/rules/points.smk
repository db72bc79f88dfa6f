rule points:
    """Validate one raw input file and convert it to canonical roofline points."""
    input:
        unpack(raw_input),
    output:
        paths.POINTS,
    log:
        paths.POINTS_LOG,
    conda:
        ROOFLOW_ENV
    resources:
        mem_mb=jobmemory.points_job,
        runtime=10,
    params:
        settings=ADAPTER_SETTINGS,
        kind="{kind}",
    script:
        "../scripts/points.py"
