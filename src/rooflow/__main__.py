"""``python -m rooflow``: the ``rooflow`` program, the same entry as its console script."""

from rooflow.cli.program import console

if __name__ == "__main__":
    console()
