"""The command line wing: the ``rooflow`` program, its options and commands.

It sits above the workflow wing and the domain (docs/architecture.md); nothing below imports it.
"""
