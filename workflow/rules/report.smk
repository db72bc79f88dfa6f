rule report:
    """Analyze one dataset on one hardware preset: table (CSV) and roofline plot (PNG)."""
    input:
        unpack(report_input),
    output:
        table=report(
            "results/tables/{preset}/{kind}-{name}.csv",
            caption="../report/table.rst",
            category="{preset}",
            subcategory="{kind}",
            labels={"dataset": "{kind}-{name}", "output": "table"},
        ),
        plot=report(
            "results/plots/{preset}/{kind}-{name}.png",
            caption="../report/roofline.rst",
            category="{preset}",
            subcategory="{kind}",
            labels={"dataset": "{kind}-{name}", "output": "plot"},
        ),
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
        roofs=roofs_text,
    script:
        "../scripts/report.py"


use rule report as report_extra_format with:
    output:
        plot="results/plots/{preset}/{kind}-{name}.{ext}",
    log:
        "logs/report/{preset}/{kind}-{name}.{ext}.log",
