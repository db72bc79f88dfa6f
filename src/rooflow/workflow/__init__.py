"""The workflow wing, for ``workflow/`` (the Snakemake rules).

Planning, the batch jobs that read and draw the datasets, rule-script glue,
failed-dataset notes, job memory and preflight checks.

It sits above the domain and below the command line (docs/architecture.md).
"""
