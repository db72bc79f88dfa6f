rule report:
    """Analyze one dataset on one hardware preset: table (CSV) and roofline plot (PNG)."""
    input:
        unpack(report_input),
    output:
        table="results/tables/{preset}/{kind}-{name}.csv",
        plot="results/plots/{preset}/{kind}-{name}.png",
    log:
        "logs/report/{preset}/{kind}-{name}.log",
    # Inputs were validated by `points`: a failure here is transient (node, file system).
    retries: 1
    conda:
        "../../environment.yml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        options=plot_options,
        preset="{preset}",
    script:
        "../scripts/report.py"


use rule report as report_extra_format with:
    output:
        plot="results/plots/{preset}/{kind}-{name}.{ext}",
    log:
        "logs/report/{preset}/{kind}-{name}.{ext}.log",
