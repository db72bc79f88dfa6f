"""Intel GPUs: kind ``unitrace`` (:mod:`.unitrace`).

Two unitrace reports of one program, read by :mod:`.unitrace_report`.
"""
